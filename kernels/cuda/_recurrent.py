"""CUDA kernels of the recurrent layers and the embedding lookup.

A layer direction is one launch forward and one backward: the whole time loop
runs inside the kernel. Batch rows are independent through time, so each
block owns a row (striding over rows when there are more rows than blocks)
and only a block-wide barrier (`cuda.syncthreads`) separates the steps; no
grid-wide barrier (a cooperative launch, which the simulator cannot run) is
needed. Each step's threads first compute the row's recurrent product (one
output column each, looping when there are more columns than threads), then
run the step body of `_recurrent_steps` (the same Python the CPU table
compiles) over the hidden units.
The embedding gradient runs one thread per table column (no atomics, the same
summation order as the CPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _recurrent_steps
from .._recurrent_api import RecurrentPrimitives, recurrent_kernels
from ._array import DeviceArray, device_empty, to_device
from ._device import MAX_BLOCKS, THREADS, cuda, launch
from ._generic import fill
from ._matmul import device_arg, raw

__all__ = [
    "embedding_backward",
    "embedding_forward",
    "recurrent_backward",
    "recurrent_forward",
]

Array = Any

_step_forward: Any = cuda.jit(device=True)(_recurrent_steps.recurrent_step_forward)
_step_skip: Any = cuda.jit(device=True)(_recurrent_steps.recurrent_step_skip)
_step_backward: Any = cuda.jit(device=True)(_recurrent_steps.recurrent_step_backward)
_step_backward_skip: Any = cuda.jit(device=True)(
    _recurrent_steps.recurrent_step_backward_skip
)
_embedding_row: Any = cuda.jit(device=True)(_recurrent_steps.embedding_row)
_embedding_grad_column: Any = cuda.jit(device=True)(
    _recurrent_steps.embedding_grad_column
)


@cuda.jit(device=True)
def _row_product(a: Any, w: Any, out: Any, b: int, transpose: bool) -> None:
    """out[b] = a[b] @ w.T (transpose) or a[b] @ w, split over the block's threads by output column."""
    for col in range(cuda.threadIdx.x, out.shape[1], cuda.blockDim.x):
        acc = 0.0
        if transpose:
            for k in range(a.shape[1]):
                acc += a[b, k] * w[col, k]
        else:
            for k in range(a.shape[1]):
                acc += a[b, k] * w[k, col]
        out[b, col] = acc


@cuda.jit
def _forward_loop(
    mode: int, xw: Any, w_hh: Any, bhh: Any, lengths: Any, reverse: bool, init: Any,
    state: Any, gh: Any,
) -> None:  # fmt: skip
    # One block per batch row (rows are independent), its threads over the hidden units and
    # gates; the block's barrier orders the steps, so the whole time loop is one launch.
    hs, cs = state[0], state[1]
    steps, rows, units = state[3].shape
    for b in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        for j in range(cuda.threadIdx.x, units, cuda.blockDim.x):
            hs[0, b, j] = init[0][b, j]
            cs[0, b, j] = init[1][b, j]
        cuda.syncthreads()
        for s in range(steps):
            _row_product(hs[s], w_hh, gh, b, True)
            cuda.syncthreads()
            p = steps - 1 - s if reverse else s
            live = p < lengths[b]
            for j in range(cuda.threadIdx.x, units, cuda.blockDim.x):
                if live:
                    _step_forward(mode, xw, gh, bhh, state, s, p, b, j)
                else:
                    _step_skip(state, s, p, b, j)
            cuda.syncthreads()


@cuda.jit
def _backward_loop(
    mode: int, dy: Any, w_hh: Any, lengths: Any, reverse: bool, saved: Any, final: Any,
    carry: Any, gate_grads: Any,
) -> None:  # fmt: skip
    dh, dc, dh_prev, dc_prev = carry
    steps, rows, units = dy.shape
    for b in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        for j in range(cuda.threadIdx.x, units, cuda.blockDim.x):
            dh[b, j] = final[0][b, j]
            dc[b, j] = final[1][b, j]
        cuda.syncthreads()
        for s in range(steps - 1, -1, -1):
            p = steps - 1 - s if reverse else s
            live = p < lengths[b]
            for j in range(cuda.threadIdx.x, units, cuda.blockDim.x):
                if live:
                    _step_backward(mode, dy, saved, carry, gate_grads, s, p, b, j)
                else:
                    _step_backward_skip(carry, gate_grads, s, p, b, j)
            cuda.syncthreads()
            # d(h_prev) = dgh[s] @ W_hh + the direct part; the cell gradient flows directly.
            _row_product(gate_grads[1][s], w_hh, dh, b, False)
            cuda.syncthreads()
            for j in range(cuda.threadIdx.x, units, cuda.blockDim.x):
                dh[b, j] += dh_prev[b, j]
                dc[b, j] = dc_prev[b, j]
            cuda.syncthreads()


@cuda.jit
def _lookup(table: Any, ids: Any, out: Any) -> None:
    for i in range(cuda.grid(1), ids.shape[0], cuda.gridsize(1)):
        _embedding_row(table, ids, out, i)


@cuda.jit
def _scatter_add(dy: Any, ids: Any, dtable: Any) -> None:
    for e in range(cuda.grid(1), dy.shape[1], cuda.gridsize(1)):
        _embedding_grad_column(dy, ids, dtable, e)


def _raw(arrays: tuple[DeviceArray, ...]) -> tuple[Any, ...]:
    return tuple(raw(a) for a in arrays)


def _rows(rows: int) -> tuple[int, int]:
    # (blocks, threads): a block per batch row, up to the launch limit (the kernels stride over rows).
    return min(rows, MAX_BLOCKS), THREADS


def _forward(
    mode: int, xw: DeviceArray, w_hh: DeviceArray, bhh: DeviceArray, lengths: DeviceArray,
    reverse: bool, init: tuple[DeviceArray, ...], state: tuple[DeviceArray, ...],
) -> None:  # fmt: skip
    rows, width = xw.shape[1], w_hh.shape[0]
    gh = device_empty(
        (rows, width), xw.dtype
    )  # each block's h_prev @ W_hh^T, its row only
    _forward_loop[_rows(rows)](
        mode, raw(xw), raw(w_hh), raw(bhh), raw(lengths), reverse, _raw(init), _raw(state), raw(gh)
    )  # fmt: skip


def _backward(
    mode: int, dy: DeviceArray, w_hh: DeviceArray, lengths: DeviceArray, reverse: bool,
    saved: tuple[DeviceArray, ...], final: tuple[DeviceArray, ...],
    carry: tuple[DeviceArray, ...], gate_grads: tuple[DeviceArray, ...],
) -> None:  # fmt: skip
    _backward_loop[_rows(dy.shape[1])](
        mode, raw(dy), raw(w_hh), raw(lengths), reverse, _raw(saved), _raw(final),
        _raw(carry), _raw(gate_grads),
    )  # fmt: skip


recurrent_forward, recurrent_backward, embedding_forward, embedding_backward = (
    recurrent_kernels(
        RecurrentPrimitives(
            empty=device_empty,
            zeros=lambda shape, dtype: fill(device_empty(shape, dtype), 0),
            array=device_arg,
            ints=lambda a: to_device(np.asarray(a, np.int64)),
            forward=_forward,
            backward=_backward,
            lookup=lambda table, ids, out: _lookup[launch(ids.shape[0])](
                raw(table), raw(ids), raw(out)
            ),
            scatter=lambda dy, ids, dtable: _scatter_add[launch(dy.shape[1])](
                raw(dy), raw(ids), raw(dtable)
            ),
        )
    )
)
