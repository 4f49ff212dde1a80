"""CPU 3x3 stride-2 convolution through the input's four stride phases: columns by plain copies.

A stride-2 output pixel (oy, ox) reads padded input rows 2*oy + i and columns
2*ox + j, i, j in 0..2. Split the padded input into its four phases, the planes
of even/odd rows x even/odd columns; tap (i, j) then reads phase (i % 2, j % 2)
at (oy + i // 2, ox + j // 2): a stride-1 window of the phase, shifted by 0 or
1 row and column. So a block of images' columns (9*C, images*OH*OW), row block
t = tap t's window over every channel and image, are nine strided numpy copies
of whole windows (the general kernel's im2col gathers pixel by pixel), and

- forward: Y = W (O, 9*C) @ cols (one GEMM), transposed to NCHW,
- weight gradient: dW = dY (O, images*OH*OW) @ cols.T, the forward's columns
  kept for it (`_keep_columns`),
- data gradient: dcols = W.T @ dY, each tap's rows added to its phase window,
  the phases interleaved back into dx (no padded dx, no crop).

The phases are stored on an (OH + 1, OW + 1) grid, the windows' reach. Measured
on ResNet-18's first strided layer (64->128, 32x32 in) it beats im2col, and on
the smaller strided layers it does not: the layout is chosen from 16x16 outputs
up (`runtime/ops/_nn.py`, PHASE_MIN_PIXELS, with the numbers). Each thread takes
one run of images in chunks of CHUNK_IMAGES (`_by_chunks`), phases, columns and
products included.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt

from ._checks import check_float_array
from ._planar_conv import _by_blocks, _padded

__all__ = ["CHUNK_IMAGES", "conv2d_phase_backward", "conv2d_phase_forward"]

Array = npt.NDArray[Any]
Pair = tuple[int, int]
Pad = tuple[int, int, int, int]
"""Padding as (top, bottom, left, right)."""

CHUNK_IMAGES = 16
"""Images whose columns one product takes: 16 at 16x16 outputs is 4096 columns, their
columns (9 * 64 * 4096 floats) 9.4 MB. With one chunk per thread (64 images at batch 128)
the 64->128 layer took 289 ms against im2col's 159 (2 threads, wall, load 3); in chunks
of 16, 270 against 287 ms of CPU time."""
_kept_lock = threading.Lock()  # the chunks' parts run on several threads
_TAPS = tuple((i, j) for i in range(3) for j in range(3))
"""The filter taps in the order of the columns' row blocks."""


class _Grid:
    """The geometry of one chunk of `n` images: phases (4, C, n, OH + 1, OW + 1)."""

    def __init__(self, n: int, c: int, oh: int, ow: int) -> None:
        self.n, self.c, self.oh, self.ow = n, c, oh, ow
        self.shape = (4, c, n, oh + 1, ow + 1)


def _phases(xp: Array, g: _Grid) -> Array:
    """The four phases of a padded chunk, zero past the input."""
    out = np.zeros(g.shape, xp.dtype)
    for a in range(2):
        for b in range(2):
            src = xp[:, :, a::2, b::2][:, :, : g.shape[3], : g.shape[4]]
            dst = out[a * 2 + b]
            dst[:, :, : src.shape[2], : src.shape[3]] = src.transpose(1, 0, 2, 3)
    return out


def _tap_view(phases: Array, g: _Grid, tap: Pair) -> Array:
    """Tap (i, j)'s input under every output pixel: a (C, n, OH, OW) window of its phase."""
    di, dj = tap[0] // 2, tap[1] // 2
    return phases[(tap[0] % 2) * 2 + tap[1] % 2, :, :, di : di + g.oh, dj : dj + g.ow]


def _columns(phases: Array, g: _Grid) -> Array:
    """The chunk's columns (9*C, n*OH*OW): row block t holds tap t's window."""
    cols = np.empty((9, g.c, g.n, g.oh, g.ow), phases.dtype)
    for t, tap in enumerate(_TAPS):
        cols[t] = _tap_view(phases, g, tap)
    return cols.reshape(9 * g.c, -1)


def _interleave(dphases: Array, g: _Grid, dx: Array, padding: Pad) -> None:
    """Write the phases' gradients into the block's dx (zeroed), skipping the padding.

    Input row y is padded row y + top, so phase a holds the rows y = a - top (mod 2),
    from phase row (y0 + top - a) // 2 on; rows past the grid were read by no tap.
    """
    for a in range(2):
        for b in range(2):
            y0, x0 = (a - padding[0]) % 2, (b - padding[2]) % 2
            r0, c0 = (y0 + padding[0] - a) // 2, (x0 + padding[2] - b) // 2
            dst = dx[:, :, y0::2, x0::2]
            rows = max(0, min(dst.shape[2], g.shape[3] - r0))
            cols = max(0, min(dst.shape[3], g.shape[4] - c0))
            src = dphases[a * 2 + b].transpose(1, 0, 2, 3)
            dst[:, :, :rows, :cols] = src[:, :, r0 : r0 + rows, c0 : c0 + cols]


# The columns of recent forward passes, by block, taken back by the backward pass of the
# same input (one phase split and column copy less per step). A weak reference proves
# the same live array; bounded, so at most _KEEP blocks' columns stay alive.
_KEEP = 8
_kept: OrderedDict[tuple[Any, ...], tuple[weakref.ref[Array], Array]] = OrderedDict()


def _key(x: Array, w: Array, padding: Pad, n0: int, n1: int) -> tuple[Any, ...]:
    return (id(x), x.shape, w.shape[1:], padding, n0, n1)


def _keep_columns(x: Array, w: Array, padding: Pad, n0: int, n1: int, cols: Array) -> None:  # fmt: skip
    with _kept_lock:
        _kept[_key(x, w, padding, n0, n1)] = (weakref.ref(x), cols)
        while len(_kept) > _KEEP:
            _kept.popitem(last=False)


def _kept_columns(x: Array, w: Array, padding: Pad, n0: int, n1: int) -> Array | None:  # fmt: skip
    with _kept_lock:
        hit = _kept.pop(_key(x, w, padding, n0, n1), None)
    return hit[1] if hit is not None and hit[0]() is x else None


def _by_chunks(part: Any, n: int) -> list[Any]:
    """`part(n0, n1)` over chunks of at most CHUNK_IMAGES images, one run of chunks per thread.

    Returns each thread's results summed (None for a forward's parts).
    """

    def run(n0: int, n1: int) -> Any:
        total = None
        for start in range(n0, n1, CHUNK_IMAGES):
            got = part(start, min(start + CHUNK_IMAGES, n1))
            total = got if total is None else np.add(total, got, out=total)
        return total

    return _by_blocks(run, n)


def _geometry(x: Array, w: Array, stride: Pair, padding: Pad, dilation: Pair) -> tuple[Array, int, int]:  # fmt: skip
    check_float_array("x", x, 4)
    check_float_array("w", w, 4)
    if tuple(w.shape[2:]) != (3, 3) or stride != (2, 2) or dilation != (1, 1):
        raise ValueError(
            "Kernel argument `w` must be 3x3 filters with stride (2, 2) and dilation (1, 1), "
            f"but got shape {w.shape}, stride {stride}, dilation {dilation}."
        )
    xp = _padded(x, padding)
    return xp, (xp.shape[2] - 3) // 2 + 1, (xp.shape[3] - 3) // 2 + 1


def _tap_major(w: Array) -> Array:
    """The filters (O, C, 3, 3) as (O, 9*C), their columns in the order of the columns' rows."""
    return np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(w.shape[0], -1)


def conv2d_phase_forward(
    x: Array, w: Array, stride: Pair, padding: Pad, dilation: Pair
) -> Array:
    """`conv2d_forward` for 3x3 stride-2 filters through the input's stride phases."""
    xp, oh, ow = _geometry(x, w, stride, padding, dilation)
    w2 = _tap_major(w)
    y = np.empty((x.shape[0], w.shape[0], oh, ow), np.result_type(x, w))

    def part(n0: int, n1: int) -> None:
        g = _Grid(n1 - n0, x.shape[1], oh, ow)
        cols = _columns(_phases(xp[n0:n1], g), g)
        _keep_columns(x, w, padding, n0, n1, cols)
        out = w2 @ cols
        y[n0:n1] = out.reshape(-1, g.n, oh, ow).transpose(1, 0, 2, 3)

    _by_chunks(part, x.shape[0])
    return y


def conv2d_phase_backward(
    dy: Array, x: Array, w: Array, stride: Pair, padding: Pad, dilation: Pair, need_dx: bool
) -> tuple[Array | None, Array]:  # fmt: skip
    """`conv2d_backward` for 3x3 stride-2 filters through the input's stride phases."""
    check_float_array("dy", dy, 4)
    xp, oh, ow = _geometry(x, w, stride, padding, dilation)
    o, c = w.shape[0], w.shape[1]
    if dy.shape != (x.shape[0], o, oh, ow):
        raise ValueError(
            f"Kernel argument `dy` must have shape {(x.shape[0], o, oh, ow)}, but got {dy.shape}."
        )
    w2 = _tap_major(w)
    dx = np.zeros_like(x) if need_dx else None

    def part(n0: int, n1: int) -> Array:
        g = _Grid(n1 - n0, c, oh, ow)
        cols = _kept_columns(x, w, padding, n0, n1)
        if cols is None:
            cols = _columns(_phases(xp[n0:n1], g), g)
        dyo = np.ascontiguousarray(dy[n0:n1].transpose(1, 0, 2, 3)).reshape(o, -1)
        dw_part: Array = dyo @ cols.T
        if dx is not None:
            dcols = (w2.T @ dyo).reshape(9, c, g.n, oh, ow)
            dphases = np.zeros(g.shape, dcols.dtype)
            for t, tap in enumerate(_TAPS):
                _tap_view(dphases, g, tap)[...] += dcols[t]
            _interleave(dphases, g, dx[n0:n1], padding)
        return dw_part

    parts = _by_chunks(part, x.shape[0])
    dw2 = parts[0]
    for more in parts[1:]:
        np.add(dw2, more, out=dw2)
    dw = np.ascontiguousarray(dw2.reshape(o, 3, 3, c).transpose(0, 3, 1, 2), w.dtype)
    return dx, dw
