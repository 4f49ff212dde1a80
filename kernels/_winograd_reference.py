"""The plain-numpy spec of the Winograd convolution kernels (re-exported by `reference`).

Two transform sets: F(2x2, 3x3) (`_winograd_bodies`) and F(4x4, 3x3)
(`_winograd4_bodies`), whose docstrings give the matrices; `output_tile` says
which one a convolution uses, for the spec and every target alike. Here the
algorithm is written as einsums over whole arrays, including the backward pass
as the adjoint of every step (the input gradient scattered back from the
tiles' gradients, where the target kernels run the forward again with flipped
filters: two routes to one answer, so the tests compare independent computations).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "MIN_F4_TILES",
    "conv2d_winograd_backward",
    "conv2d_winograd_forward",
    "output_tile",
]

Array = npt.NDArray[Any]
Pair = tuple[int, int]
Quad = tuple[int, int, int, int]

MIN_F4_TILES = 64
"""The fewest 4x4 output blocks in a whole batch computed through F(4x4, 3x3): its 36
transformed filters per filter (F(2x2)'s 16) do not depend on the batch, so a small
batch pays them for few products (tests/bench/bench_conv3x3.py: at batch 32, 512
channels at 4x4 (32 blocks) ran 1.25 times slower than through F(2x2); at batch 128
(128 blocks) 1.2 times faster)."""


# (B^T, G, A^T) by output tile size m: tiles of m + 2 inputs at stride m.
MATRICES: dict[int, tuple[Array, Array, Array]] = {
    2: (
        np.array(
            [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64
        ),
        np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64),
    ),
    4: (
        np.array(
            [
                [4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1],
            ],
            np.float64,
        ),
        np.array(
            [
                [1 / 4, 0, 0],
                [-1 / 6, -1 / 6, -1 / 6],
                [-1 / 6, 1 / 6, -1 / 6],
                [1 / 24, 1 / 12, 1 / 6],
                [1 / 24, -1 / 12, 1 / 6],
                [0, 0, 1],
            ],
            np.float64,
        ),
        np.array(
            [
                [1, 1, 1, 1, 1, 0],
                [0, 1, -1, 2, -2, 0],
                [0, 1, 1, 4, 4, 0],
                [0, 1, -1, 8, -8, 1],
            ],
            np.float64,
        ),
    ),
}


def output_tile(n: int, oh: int, ow: int) -> int:
    """The side of the output blocks (2 or 4) the Winograd kernels compute n (oh, ow) outputs in.

    F(4x4, 3x3) when its products are at most 3/4 of F(2x2, 3x3)'s (outputs cut from
    partial tiles count: a 5x5 or 6x6 output costs both sets the same) and the batch
    holds at least `MIN_F4_TILES` 4x4 blocks.
    """
    blocks4 = -(-oh // 4) * -(-ow // 4)
    blocks2 = -(-oh // 2) * -(-ow // 2)
    fewer = 4 * 36 * blocks4 <= 3 * 16 * blocks2
    return 4 if fewer and n * blocks4 >= MIN_F4_TILES else 2


def _tiles(x: Array, padding: Quad) -> tuple[Array, int, int, int]:
    """The overlapping (m+2)x(m+2) input tiles (N, C, TH, TW, m+2, m+2) at stride m, the output's (OH, OW), and m."""
    n, c, h, w = x.shape
    oh, ow = h + padding[0] + padding[1] - 2, w + padding[2] + padding[3] - 2
    m = output_tile(n, oh, ow)
    th, tw = -(-oh // m), -(-ow // m)
    xp = np.zeros((n, c, m * th + 2, m * tw + 2), np.float64)
    xp[:, :, padding[0] : padding[0] + h, padding[2] : padding[2] + w] = x
    windows = np.lib.stride_tricks.sliding_window_view(xp, (m + 2, m + 2), axis=(2, 3))
    return windows[:, :, ::m, ::m], oh, ow, m


def conv2d_winograd_forward(
    x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair
) -> Array:
    """`conv2d_forward` of a 3x3, stride-1, dilation-1 convolution: Y = A^T [(G w G^T) * (B^T d B)] A per mxm outputs."""
    d, oh, ow, m = _tiles(x, padding)
    b_t, g, a_t = MATRICES[m]
    v = np.einsum("ri,nctxij,sj->nctxrs", b_t, d, b_t)
    u = np.einsum("ri,ocij,sj->ocrs", g, w, g)
    mm = np.einsum("ocrs,nctxrs->notxrs", u, v)
    y = np.einsum("ir,notxrs,js->notixj", a_t, mm, a_t)
    n, o, th, _, tw, _ = y.shape
    out: Array = y.reshape(n, o, m * th, m * tw)[:, :, :oh, :ow].astype(x.dtype)
    return out


def conv2d_winograd_backward(
    dy: Array, x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair, need_dx: bool
) -> tuple[Array | None, Array]:  # fmt: skip
    """Return (dx or None, dw) of `conv2d_winograd_forward`, each step's adjoint in reverse order."""
    d, oh, ow, m = _tiles(x, padding)
    b_t, g, a_t = MATRICES[m]
    n, c, th, tw = d.shape[:4]
    dyp = np.zeros((n, w.shape[0], m * th, m * tw), np.float64)
    dyp[:, :, :oh, :ow] = dy
    dyt = dyp.reshape(n, -1, th, m, tw, m).transpose(0, 1, 2, 4, 3, 5)
    dm = np.einsum("ir,notxij,js->notxrs", a_t, dyt, a_t)
    v = np.einsum("ri,nctxij,sj->nctxrs", b_t, d, b_t)
    du = np.einsum("notxrs,nctxrs->ocrs", dm, v)
    dw = np.einsum("ri,ocrs,sj->ocij", g, du, g).astype(w.dtype)
    if not need_dx:
        return None, dw
    u = np.einsum("ri,ocij,sj->ocrs", g, w, g)
    dd = np.einsum("ri,ocrs,notxrs,sj->nctxij", b_t, u, dm, b_t)
    dxp = np.zeros((n, c, m * th + 2, m * tw + 2), np.float64)
    for i in range(m + 2):
        for j in range(m + 2):
            dxp[:, :, i : i + m * th : m, j : j + m * tw : m] += dd[..., i, j]
    h, wd = x.shape[2], x.shape[3]
    dx = dxp[:, :, padding[0] : padding[0] + h, padding[2] : padding[2] + wd]
    return np.ascontiguousarray(dx, dtype=x.dtype), dw
