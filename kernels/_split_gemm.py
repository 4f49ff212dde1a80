"""One matrix product split over the kernel threads by rows, BLAS on one thread per part.

The im2col convolution's three products (`_spatial.conv2d_*`) are single GEMMs
of N*OH*OW rows. Left to BLAS's own threads they ran far below their share of
two cores on the shared 2-core machine: in one ResNet-18 step at batch 32 the
calling thread alone spent 178 ms of CPU time in them against 40 ms for the
whole work on one thread (cProfile on `time.thread_time`, load 10). BLAS's
workers spin-wait for each other, and a worker the OS takes away stalls the
product. Cut into one contiguous block of rows per thread, each block a
single-threaded GEMM (`_parallel.run_parts`), the parts meet once per product.

- `op(a)` keeps a's rows (no `ta`): each part writes its rows of the result.
- `ta`: the rows of a are the product's contraction (dW = dY^T @ cols): each
  part multiplies its rows, and the partial results are summed, split over the
  threads too (`add_into`; one more (M, K) array per extra thread; the order
  of the sum is fixed by the spans).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from ._parallel import add_into, run_parts, spans, thread_count

__all__ = ["MIN_ROWS_PER_THREAD", "split_matmul"]

Array = npt.NDArray[Any]
MIN_ROWS_PER_THREAD = 128
"""Fewest rows (of a) a part takes: below, the hand-off costs more than the thread saves."""


def _rows_product(a: Array, b: Array, out: Array, start: int, stop: int) -> None:
    np.matmul(a[start:stop], b, out=out[start:stop])


def _contraction_part(a: Array, b: Array, start: int, stop: int) -> Array:
    part: Array = a[start:stop].T @ b[start:stop]
    return part


def split_matmul(
    a: Array, b: Array, ta: bool, tb: bool, out: Array | None = None
) -> Array:
    """op(a) @ op(b) for 2-D float arrays, op transposing when set; rows split over the threads.

    `out` (without `ta`): the C-contiguous array the product is written into.
    """
    rhs = b.T if tb else b
    cuts = spans(a.shape[0], thread_count(), MIN_ROWS_PER_THREAD)
    if len(cuts) < 2:
        lhs = a.T if ta else a
        plain: Array = lhs @ rhs if out is None else np.matmul(lhs, rhs, out=out)
        return plain
    if ta:
        partial = run_parts(
            [functools.partial(_contraction_part, a, rhs, s, e) for s, e in cuts]
        )
        total = partial[0]
        for more in partial[1:]:
            add_into(total, more)
        return total
    if out is None:
        out = np.empty((a.shape[0], rhs.shape[1]), np.result_type(a, b))
    run_parts([functools.partial(_rows_product, a, rhs, out, s, e) for s, e in cuts])
    return out
