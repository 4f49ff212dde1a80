"""CPU convolution in the planar layout: per-sample columns (C*KH*KW, OH*OW), one GEMM per sample.

The general kernel (`_cpu.conv2d_forward`) builds one column row per output
pixel, (N*OH*OW, C*KH*KW), and multiplies it by the (C*KH*KW, O) weight: with
LeNet's 6 or 16 output channels that product is a tall, thin GEMM that BLAS
runs far from its peak, and its (N, OH, OW, O) result must be transposed to
NCHW in one more pass. Here the columns of each sample are laid out as planes,
row r = (channel, tap) holding that tap's view of the whole output image, so

- building them copies contiguous runs of OW pixels (the inner loop vectorizes),
- the forward is W (O, C*KH*KW) @ cols[n] (C*KH*KW, OH*OW) per sample, whose
  result is already the NCHW output plane by plane (no transpose),
- the backward is dW = sum_n dy[n] @ cols[n].T and dcols[n] = W.T @ dy[n], with
  col2im adding whole rows back.

Each thread takes one block of images (`_by_blocks`), columns and products
included, so the columns of one block only are alive at a time.

On LeNet-5's shapes (batch 64; 1->6 channels at 32x32 and 6->16 at 14x14, 5x5) a
prototype of this layout ran one forward and backward in 1.6 and 6.9 ms against 10.1 and
13.2 ms for the general kernel (one thread, wall time on a loaded machine); the whole
LeNet-5 step, by CPU time, 7.2 against 11.6 ms (docs/performance.md). The runtime picks
this layout for few output channels (`runtime/ops/_nn.py`). The columns are rebuilt in
the backward pass rather than kept from the forward: simpler, and a lower peak memory;
keeping them would save one im2col per convolution per step (not measured).
"""

from __future__ import annotations

import functools
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from ._checks import check_float_array
from ._parallel import run_parts, spans, thread_count

__all__ = ["conv2d_planar_backward", "conv2d_planar_forward"]

Array = npt.NDArray[Any]
A = Array
Pair = tuple[int, int]
Pad = tuple[int, int, int, int]
"""Padding as (top, bottom, left, right)."""


def _planar_loop(scatter: bool, unit: bool) -> Any:
    """Compile the gather (im2col) or scatter (col2im) loop nest over planar columns.

    One source for both directions, so the two index mappings cannot drift apart.
    `scatter` and `unit` (stride and dilation 1 along the width) are closure constants:
    numba compiles them into the loop, whose branch-free inner copy over contiguous
    pixels then vectorizes (a run-time flag made it 10 to 25 times slower).
    """

    def loop(
        xp: Array, cols: Array, kh: int, kw: int, sh: int, sw: int, dh: int, dw: int
    ) -> None:
        # xp is padded, so no bounds checks; cols is (N, C*KH*KW, OH*OW).
        n, c = xp.shape[0], xp.shape[1]
        if unit:
            sw = dw = 1
        ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
        oh = cols.shape[2] // ow
        for b in range(n):
            for ch in range(c):
                for i in range(kh):
                    for j in range(kw):
                        r = (ch * kh + i) * kw + j
                        for oy in range(oh):
                            row = xp[b, ch, oy * sh + i * dh]
                            out = cols[b, r, oy * ow : (oy + 1) * ow]
                            for ox in range(ow):
                                if scatter:
                                    row[ox * sw + j * dw] += out[ox]
                                else:
                                    out[ox] = row[ox * sw + j * dw]

    return numba.jit(nogil=True, error_model="numpy")(loop)


_LOOPS = {
    (scatter, unit): _planar_loop(scatter, unit)
    for scatter in (False, True)
    for unit in (False, True)
}


def _planar_columns(
    xp: Array,
    cols: Array,
    kh: int,
    kw: int,
    stride: Pair,
    dilation: Pair,
    scatter: bool,
) -> None:
    unit = stride[1] == 1 and dilation[1] == 1
    _LOOPS[scatter, unit](xp, cols, kh, kw, *stride, *dilation)


def _padded(x: Array, padding: Pad) -> Array:
    pt, pb, pl, pr = padding
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr))) if any(padding) else x


def _planar_geometry(
    x: Array, w: Array, stride: Pair, padding: Pad, dilation: Pair
) -> tuple[Array, int, int]:
    """(x padded, OH, OW), after checking the arguments."""
    check_float_array("x", x, 4)
    check_float_array("w", w, 4)
    kh, kw = w.shape[2], w.shape[3]
    xp = _padded(x, padding)
    oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    return xp, oh, ow


def _block_cols(
    xp: Array, w: Array, stride: Pair, dilation: Pair, p: int, n0: int, n1: int
) -> Array:
    """The planar columns (n1 - n0, C*KH*KW, p) of images n0 .. n1 - 1 of the padded input."""
    kh, kw = w.shape[2], w.shape[3]
    cols = np.empty((n1 - n0, xp.shape[1] * kh * kw, p), xp.dtype)
    _planar_columns(xp[n0:n1], cols, kh, kw, stride, dilation, False)
    return cols


def _by_blocks(part: Any, n: int) -> list[Any]:
    """`part(n0, n1)` over one block of images per thread, BLAS on one thread in each (`_parallel`).

    The per-sample products are small (a few hundred pixels): BLAS's own threads spent
    more time meeting than multiplying on them, so the images are split instead.
    """
    return run_parts(
        [functools.partial(part, n0, n1) for n0, n1 in spans(n, thread_count())],
        blas_inside=True,
    )


def conv2d_planar_forward(
    x: Array, w: Array, stride: Pair, padding: Pad, dilation: Pair
) -> Array:
    """`conv2d_forward` through planar columns: one GEMM per sample, NCHW out without a transpose."""
    xp, oh, ow = _planar_geometry(x, w, stride, padding, dilation)
    w2 = w.reshape(w.shape[0], -1)
    y = np.empty((x.shape[0], w.shape[0], oh * ow), np.result_type(x, w))

    def part(n0: int, n1: int) -> None:
        np.matmul(
            w2, _block_cols(xp, w, stride, dilation, oh * ow, n0, n1), out=y[n0:n1]
        )

    _by_blocks(part, x.shape[0])
    return y.reshape(x.shape[0], w.shape[0], oh, ow)


def conv2d_planar_backward(
    dy: A, x: A, w: A, stride: Pair, padding: Pad, dilation: Pair, need_dx: bool
) -> tuple[Array | None, Array]:
    """`conv2d_backward` through planar columns (rebuilt from x, which must be the forward's input)."""
    check_float_array("dy", dy, 4)
    xp, oh, ow = _planar_geometry(x, w, stride, padding, dilation)
    o, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    d = np.ascontiguousarray(dy).reshape(dy.shape[0], o, oh * ow)
    w2t = w.reshape(o, -1).T
    dxp = np.zeros_like(xp) if need_dx else None

    def part(n0: int, n1: int) -> Array:
        cols = _block_cols(xp, w, stride, dilation, oh * ow, n0, n1)
        dw_part: Array = np.matmul(d[n0:n1], cols.transpose(0, 2, 1)).sum(axis=0)
        if dxp is not None:
            dcols = np.matmul(w2t, d[n0:n1])
            _planar_columns(dxp[n0:n1], dcols, kh, kw, stride, dilation, True)
        return dw_part

    parts = _by_blocks(part, x.shape[0])
    dw = parts[0]
    for more in parts[1:]:
        np.add(dw, more, out=dw)
    dw = dw.reshape(w.shape).astype(w.dtype, copy=False)
    if dxp is None:
        return None, dw
    h, wd = x.shape[2], x.shape[3]
    dx = dxp[:, :, padding[0] : padding[0] + h, padding[2] : padding[2] + wd]
    return np.ascontiguousarray(dx), dw
