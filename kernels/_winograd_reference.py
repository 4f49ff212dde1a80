"""The plain-numpy spec of the Winograd F(2x2, 3x3) convolution kernels (re-exported by `reference`).

The matrices and the algorithm are `_winograd_bodies`'s docstring's; here they
are written as einsums over whole arrays, including the backward pass as the
adjoint of every step (the input gradient scattered back from the tiles'
gradients, where the target kernels run the forward again with flipped
filters: two routes to one answer, so the tests compare independent computations).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["conv2d_winograd_backward", "conv2d_winograd_forward"]

Array = npt.NDArray[Any]
Pair = tuple[int, int]
Quad = tuple[int, int, int, int]

B_T = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64)
G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64)
A_T = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64)


def _tiles(x: Array, padding: Quad) -> tuple[Array, int, int]:
    """The overlapping 4x4 input tiles (N, C, TH, TW, 4, 4) at stride 2, and the output's (OH, OW)."""
    n, c, h, w = x.shape
    oh, ow = h + padding[0] + padding[1] - 2, w + padding[2] + padding[3] - 2
    th, tw = (oh + 1) // 2, (ow + 1) // 2
    xp = np.zeros((n, c, 2 * th + 2, 2 * tw + 2), np.float64)
    xp[:, :, padding[0] : padding[0] + h, padding[2] : padding[2] + w] = x
    windows = np.lib.stride_tricks.sliding_window_view(xp, (4, 4), axis=(2, 3))
    return windows[:, :, ::2, ::2], oh, ow


def conv2d_winograd_forward(
    x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair
) -> Array:
    """`conv2d_forward` of a 3x3, stride-1, dilation-1 convolution: Y = A^T [(G w G^T) * (B^T d B)] A per 2x2 outputs."""
    d, oh, ow = _tiles(x, padding)
    v = np.einsum("ri,nctxij,sj->nctxrs", B_T, d, B_T)
    u = np.einsum("ri,ocij,sj->ocrs", G, w, G)
    m = np.einsum("ocrs,nctxrs->notxrs", u, v)
    y = np.einsum("ir,notxrs,js->notixj", A_T, m, A_T)
    n, o, th, _, tw, _ = y.shape
    out: Array = y.reshape(n, o, 2 * th, 2 * tw)[:, :, :oh, :ow].astype(x.dtype)
    return out


def conv2d_winograd_backward(
    dy: Array, x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair, need_dx: bool
) -> tuple[Array | None, Array]:  # fmt: skip
    """Return (dx or None, dw) of `conv2d_winograd_forward`, each step's adjoint in reverse order."""
    d, oh, ow = _tiles(x, padding)
    n, c, th, tw = d.shape[:4]
    dyp = np.zeros((n, w.shape[0], 2 * th, 2 * tw), np.float64)
    dyp[:, :, :oh, :ow] = dy
    dyt = dyp.reshape(n, -1, th, 2, tw, 2).transpose(0, 1, 2, 4, 3, 5)
    dm = np.einsum("ir,notxij,js->notxrs", A_T, dyt, A_T)
    v = np.einsum("ri,nctxij,sj->nctxrs", B_T, d, B_T)
    du = np.einsum("notxrs,nctxrs->ocrs", dm, v)
    dw = np.einsum("ri,ocrs,sj->ocij", G, du, G).astype(w.dtype)
    if not need_dx:
        return None, dw
    u = np.einsum("ri,ocij,sj->ocrs", G, w, G)
    dd = np.einsum("ri,ocrs,notxrs,sj->nctxij", B_T, u, dm, B_T)
    dxp = np.zeros((n, c, 2 * th + 2, 2 * tw + 2), np.float64)
    for i in range(4):
        for j in range(4):
            dxp[:, :, i : i + 2 * th : 2, j : j + 2 * tw : 2] += dd[..., i, j]
    h, wd = x.shape[2], x.shape[3]
    dx = dxp[:, :, padding[0] : padding[0] + h, padding[2] : padding[2] + wd]
    return np.ascontiguousarray(dx, dtype=x.dtype), dw
