"""CPU 1x1 convolution (stride 1, no padding) straight on NCHW: per-sample GEMMs, no columns, no copies.

A 1x1 convolution of sample n is the product W (O, C) @ x[n] (C, H*W), and
x[n] as stored (NCHW, C-contiguous) already is that matrix; its result is the
output sample y[n] (O, H*W) as stored. So the forward is one GEMM per sample
written in place (samples of 16 pixels: 8 side by side a GEMM, then copied
back), the data gradient W.T @ dy[n] likewise, and the weight
gradient dW = sum_n dy[n] @ x[n].T accumulates in one GEMM buffer (BLAS's
`beta` = 1, `_blas.product_into`). The forward and the data gradient gather,
pad, zero and transpose nothing: the im2col of the planar and general kernels
(a full copy of the input each way) is gone, and the depthwise convolutions
around (channels-last inside their own per-sample scratch) read and write
NCHW as this does.

The weight gradient's GEMM is shaped for OpenBLAS (issue 23, MobileNetV2 at
batch 32, one thread, thread time, load 10-30): its rows are the longer of O
and C, so a projection (C > O) computes dW.T = sum_n x[n] @ dy[n].T and
transposes it once (144->24 at 32x32: 4.9 against 5.6 ms for dW itself: a
24-row product runs at two thirds of a 144-row one's speed); and where a
sample has few pixels, samples are copied side by side so one GEMM sums over
512 or more of them (192->32 at 16x16: 2.0 against 2.8 ms), where one product
a sample would read and write the whole buffer for 64 or 16 columns. The
threads split the longer side too, where splitting 24 filters over two
threads left two 12-row products (both threads' CPU time at 144->24: 10.3
against 14.6 ms).

Per-sample products stay close to one batched product even at 4x4 pixels:
MobileNetV2's 160->960 at 4x4, batch 32, one thread: 1.9 ms against 1.8 ms
for transposing the batch into one (C, N*H*W) matrix, multiplying and
transposing back; from 8x8 up the per-sample products win (1.1 against 1.5 ms
at 64->384, 8x8); torch's own 1x1 forward took 3.6 and 4.0 ms there (thread time,
loaded machine). So one schedule serves every pixel count.

Threads (`_parallel.run_parts`, BLAS at one thread inside): the forward and
the data gradient split the samples, the weight gradient splits its GEMM's
rows: each row sums its samples in batch order, in blocks that depend on the
pixel count only, so dW does not depend on the thread count.

CPU only: the CUDA table has no pair of this name, so its convolutions keep
their kernels (the runtime checks for the pair, `runtime/ops/_nn.py`).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from ._blas import product_into
from ._checks import check_float_array, is_pointwise
from ._parallel import run_parts, spans, thread_count

__all__ = ["conv2d_pointwise_backward", "conv2d_pointwise_forward"]

Array = npt.NDArray[Any]
Pair = tuple[int, int]
Pad = tuple[int, int, int, int]

_GEMM_DEPTH = 512
"""Pixels (samples x H*W) a weight-gradient GEMM sums over at the least, when samples are small."""
_GROUP_PIXELS = 128
_MIN_GROUP = 4
"""Forward and data-gradient GEMMs take `_GROUP_PIXELS` pixels of samples side by side, if that is this many samples.

At 4x4 (groups of 8) that saves 5-20 % against a product a sample (data gradient
960->320: 3.4 against 4.3 ms, forward 3.5 against 4.1, one thread); at 8x8 groups of
2 lose (192->64: 0.66 against 0.45 ms, 0.64 against 0.44).
"""


def _matrices(x: Array, w: Array, stride: Pair, padding: Pad) -> tuple[Array, Array]:
    """Return x as (N, C, H*W) and w as (O, C), after checking the call is one these kernels compute."""
    check_float_array("x", x, 4)
    check_float_array("w", w, 4)
    if not is_pointwise(w.shape, stride, padding) or w.shape[1] != x.shape[1]:
        raise ValueError(
            "Kernel arguments must be a 1x1 convolution with stride 1 and no padding and "
            f"x's channels, but got x {x.shape}, w {w.shape}, stride {stride}, padding {padding}."
        )
    n, c, h, wd = x.shape
    return np.ascontiguousarray(x).reshape(n, c, h * wd), np.ascontiguousarray(
        w.reshape(w.shape[0], c)
    )


def conv2d_pointwise_forward(
    x: Array, w: Array, stride: Pair, padding: Pad, dilation: Pair
) -> Array:
    """`conv2d_forward` of a 1x1, stride-1, unpadded convolution: y[n] = W @ x[n], NCHW in and out."""
    x3, w2 = _matrices(x, w, stride, padding)
    y = np.empty((x.shape[0], w.shape[0], x3.shape[2]), x.dtype)

    run_parts(
        [
            functools.partial(_each_sample, y, w2, x3, a, b)
            for a, b in spans(x.shape[0], thread_count())
        ],
        blas_inside=True,
    )
    return y.reshape(x.shape[0], w.shape[0], *x.shape[2:])


def conv2d_pointwise_backward(
    dy: Array, x: Array, w: Array, stride: Pair, padding: Pad, dilation: Pair,
    need_dx: bool,
) -> tuple[Array | None, Array]:  # fmt: skip
    """(dx or None, dw) of `conv2d_pointwise_forward`: dx[n] = W.T @ dy[n], dW = sum_n dy[n] @ x[n].T."""
    x3, w2 = _matrices(x, w, stride, padding)
    check_float_array("dy", dy, 4)
    n, o = x.shape[0], w.shape[0]
    if dy.shape != (n, o, *x.shape[2:]):
        raise ValueError(
            f"Kernel argument `dy` must have shape {(n, o, *x.shape[2:])}, but got {dy.shape}."
        )
    d3 = np.ascontiguousarray(dy).reshape(n, o, x3.shape[2])
    dx = np.empty_like(x3) if need_dx else None
    wt = w2.T
    # The GEMM's rows are the longer of the filters and the channels (threads split them),
    # its columns the shorter: (O, C) = dy @ x.T or (C, O) = x @ dy.T, transposed at the end.
    flipped = x3.shape[1] > o
    tall, wide = (x3, d3) if flipped else (d3, x3)
    total = np.empty((tall.shape[1], wide.shape[1]), w.dtype)
    group = max(1, min(n, _GEMM_DEPTH // max(x3.shape[2], 1)))

    def part(samples: tuple[int, int], rows: tuple[int, int]) -> None:
        if dx is not None:
            _each_sample(dx, wt, d3, *samples)
        if rows[1] > rows[0]:
            _sum_products(
                total[rows[0] : rows[1]], tall[:, rows[0] : rows[1]], wide, group
            )

    parts = thread_count()
    sample_spans = spans(n, parts)
    row_spans = spans(total.shape[0], parts)
    # As many parts as the longer list; the shorter is padded with empty spans.
    count = max(len(sample_spans), len(row_spans))
    sample_spans += [(n, n)] * (count - len(sample_spans))
    row_spans += [(total.shape[0],) * 2] * (count - len(row_spans))
    run_parts(
        [
            functools.partial(part, s, r)
            for s, r in zip(sample_spans, row_spans, strict=True)
        ],
        blas_inside=True,
    )
    dw = np.ascontiguousarray(total.T) if flipped else total
    grad_w = dw.reshape(w.shape)
    return (None if dx is None else dx.reshape(x.shape)), grad_w


def _each_sample(out: Array, left: Array, right: Array, start: int, stop: int) -> None:
    """out[n] = left @ right[n] for n in [start, stop): one batched matmul, or tiny samples side by side."""
    pixels = right.shape[2]
    group = _GROUP_PIXELS // max(pixels, 1)
    if group < _MIN_GROUP:
        np.matmul(left, right[start:stop], out=out[start:stop])
        return
    for first in range(start, stop, group):
        last = min(stop, first + group)
        product = left @ _side_by_side(right[first:last])
        out[first:last] = product.reshape(
            left.shape[0], last - first, pixels
        ).transpose(1, 0, 2)


def _sum_products(out: Array, tall: Array, wide: Array, group: int) -> None:
    """Write sum_n tall[n] @ wide[n].T into `out` in batch order, `group` samples a GEMM (copied side by side)."""
    if tall.shape[0] == 0:
        out[...] = 0
    for start in range(0, tall.shape[0], group):
        block = slice(start, start + group)
        product_into(
            out,
            _side_by_side(tall[block]),
            _side_by_side(wide[block]),
            transpose_b=True,
            beta=float(start > 0),
        )


def _side_by_side(samples: Array) -> Array:
    """(S, R, P) samples as one (R, S*P) matrix, each row's pixels sample after sample (no copy when S is 1)."""
    return np.ascontiguousarray(samples.transpose(1, 0, 2)).reshape(
        samples.shape[1], -1
    )
