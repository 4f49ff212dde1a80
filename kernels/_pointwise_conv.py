"""CPU 1x1 convolution (stride 1, no padding) straight on NCHW: per-sample GEMMs, no columns, no copies.

A 1x1 convolution of sample n is the product W (O, C) @ x[n] (C, H*W), and
x[n] as stored (NCHW, C-contiguous) already is that matrix; its result is the
output sample y[n] (O, H*W) as stored. So the forward is one GEMM per sample
written in place, the data gradient W.T @ dy[n] likewise, and the weight
gradient dW = sum_n dy[n] @ x[n].T accumulates sample by sample in one GEMM
buffer (BLAS's `beta` = 1, `_blas.product_into`). Nothing is gathered,
padded, zeroed or transposed: the im2col of the planar and general kernels
(a full copy of the input each way) is gone, and the depthwise convolutions
around (channels-last inside their own per-sample scratch) read and write
NCHW as this does.

Per-sample products stay close to one batched product even at 4x4 pixels:
MobileNetV2's 160->960 at 4x4, batch 32, one thread: 1.9 ms against 1.8 ms
for transposing the batch into one (C, N*H*W) matrix, multiplying and
transposing back; from 8x8 up the per-sample products win (1.1 against 1.5 ms
at 64->384, 8x8); torch's own 1x1 forward took 3.6 and 4.0 ms there (thread time,
loaded machine). So one schedule serves every pixel count.

Threads (`_parallel.run_parts`, BLAS at one thread inside): the forward and
the data gradient split the samples, the weight gradient splits the output
channels (rows of dW): each row sums its samples in batch order, so dW does
not depend on the thread count.

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

    def part(start: int, stop: int) -> None:
        np.matmul(w2, x3[start:stop], out=y[start:stop])

    run_parts(
        [functools.partial(part, a, b) for a, b in spans(x.shape[0], thread_count())],
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
    dw = np.empty((o, x3.shape[1]), w.dtype)
    dx = np.empty_like(x3) if need_dx else None
    wt = w2.T

    def part(samples: tuple[int, int], rows: tuple[int, int]) -> None:
        if dx is not None and samples[1] > samples[0]:
            np.matmul(wt, d3[samples[0] : samples[1]], out=dx[samples[0] : samples[1]])
        block = dw[rows[0] : rows[1]]
        if block.shape[0] == 0:
            return
        if n == 0:
            block[...] = 0
        for b in range(n):  # batch order, whatever the thread count
            grad = d3[b, rows[0] : rows[1]]
            product_into(block, grad, x3[b], transpose_b=True, beta=float(b > 0))

    parts = thread_count()
    sample_spans = spans(n, parts)
    row_spans = spans(o, parts)
    # As many parts as the longer list; the shorter is padded with empty spans.
    count = max(len(sample_spans), len(row_spans))
    sample_spans += [(n, n)] * (count - len(sample_spans))
    row_spans += [(o, o)] * (count - len(row_spans))
    run_parts(
        [
            functools.partial(part, s, r)
            for s, r in zip(sample_spans, row_spans, strict=True)
        ],
        blas_inside=True,
    )
    grad_w = dw.reshape(w.shape)
    return (None if dx is None else dx.reshape(x.shape)), grad_w
