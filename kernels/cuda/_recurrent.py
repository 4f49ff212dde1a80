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
    state: Any, gh: Any, by_gate: Any,
) -> None:  # fmt: skip
    # One block per batch row (rows are independent), its threads over the hidden units;
    # the block's barrier orders the steps, so the whole time loop is one launch.
    # `by_gate` is (xw, gh, bhh, act) viewed (..., gates or slots, H): each thread hands
    # the step body the columns of its unit (see `_recurrent_steps`).
    hs, cs, _, y = state
    xw4, gh3, bias, act4 = by_gate
    steps, rows, units = y.shape
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
                u = slice(j, j + 1)
                prev = (hs[s, b, u], cs[s, b, u])
                out = (hs[s + 1, b, u], cs[s + 1, b, u], act4[p, b, :, u], y[p, b, u])
                if live:
                    _step_forward(
                        mode, xw4[p, b, :, u], gh3[b, :, u], bias[:, u], prev, out
                    )
                else:
                    _step_skip(prev, out)
            cuda.syncthreads()


@cuda.jit
def _backward_loop(
    mode: int, dy: Any, w_hh: Any, lengths: Any, reverse: bool, saved: Any, final: Any,
    carry: Any, gate_grads: Any, by_gate: Any,
) -> None:  # fmt: skip
    # `by_gate` is (act, dgi, dgh) viewed (T, B, slots or gates, H).
    hs, cs, _ = saved
    dh, dc, dh_prev, dc_prev = carry
    act4, dgi4, dgh4 = by_gate
    steps, rows, units = dy.shape
    for b in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
        for j in range(cuda.threadIdx.x, units, cuda.blockDim.x):
            dh[b, j] = final[0][b, j]
            dc[b, j] = final[1][b, j]
        cuda.syncthreads()
        for s in range(steps - 1, -1, -1):
            p = steps - 1 - s if reverse else s
            q = (
                s if mode == 3 else p
            )  # dgh is dgi but for the GRU (see `_recurrent_api`)
            live = p < lengths[b]
            for j in range(cuda.threadIdx.x, units, cuda.blockDim.x):
                u = slice(j, j + 1)
                rows_u = (dh[b, u], dc[b, u], dh_prev[b, u], dc_prev[b, u])
                grads = (dgi4[p, b, :, u], dgh4[q, b, :, u])
                if live:
                    row = (hs[s, b, u], cs[s, b, u], cs[s + 1, b, u], act4[p, b, :, u])
                    _step_backward(mode, dy[p, b, u], row, rows_u, grads)
                else:
                    _step_backward_skip(rows_u, grads)
            cuda.syncthreads()
            # d(h_prev) = dgh[s] @ W_hh + the direct part; the cell gradient flows directly.
            _row_product(gate_grads[1][q], w_hh, dh, b, False)
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


def _by_gate(a: DeviceArray, units: int) -> DeviceArray:
    # (..., k x H) -> (..., k, H): gate k of unit j at [..., k, j] (a view).
    return a.reshape(*a.shape[:-1], a.shape[-1] // units, units)


def _rows(rows: int) -> tuple[int, int]:
    # (blocks, threads): a block per batch row, up to the launch limit (the kernels stride over rows).
    return min(rows, MAX_BLOCKS), THREADS


def _forward(
    mode: int, xw: DeviceArray, w_hh: DeviceArray, bhh: DeviceArray, lengths: DeviceArray,
    reverse: bool, init: tuple[DeviceArray, ...], state: tuple[DeviceArray, ...],
) -> None:  # fmt: skip
    rows, width = xw.shape[1], w_hh.shape[0]
    units = w_hh.shape[1]
    gh = device_empty(
        (rows, width), xw.dtype
    )  # each block's h_prev @ W_hh^T, its row only
    by_gate = _raw(tuple(_by_gate(a, units) for a in (xw, gh, bhh, state[2])))
    _forward_loop[_rows(rows)](
        mode, raw(xw), raw(w_hh), raw(bhh), raw(lengths), reverse, _raw(init), _raw(state), raw(gh),
        by_gate,
    )  # fmt: skip


def _backward(
    mode: int, dy: DeviceArray, w_hh: DeviceArray, lengths: DeviceArray, reverse: bool,
    saved: tuple[DeviceArray, ...], final: tuple[DeviceArray, ...],
    carry: tuple[DeviceArray, ...], gate_grads: tuple[DeviceArray, ...],
) -> None:  # fmt: skip
    units = dy.shape[2]
    by_gate = _raw(tuple(_by_gate(a, units) for a in (saved[2], *gate_grads)))
    _backward_loop[_rows(dy.shape[1])](
        mode, raw(dy), raw(w_hh), raw(lengths), reverse, _raw(saved), _raw(final),
        _raw(carry), _raw(gate_grads), by_gate,
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
