"""CUDA kernels of the recurrent layers and the embedding lookup.

The time loop runs on the host: each step launches the tiled matmul for the
recurrent product and one kernel over (batch row, hidden unit) running the
step body of `_recurrent_steps` (the same Python the CPU table compiles). A
fused persistent kernel would need a grid-wide barrier between steps, which
numba-cuda offers only through cooperative launches the simulator cannot run.
The embedding gradient runs one thread per table column (no atomics, the same
summation order as the CPU).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _recurrent_steps
from .._recurrent_api import RecurrentPrimitives, recurrent_kernels
from ._array import DeviceArray, device_empty, to_device
from ._device import cuda, launch
from ._generic import fill
from ._matmul import device_arg, matmul, raw

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


@cuda.jit
def _forward_step(
    mode: int, xw: Any, gh: Any, bhh: Any, lengths: Any, state: Any, s: int, p: int
) -> None:
    rows, units = state[0].shape[1], state[0].shape[2]
    for e in range(cuda.grid(1), rows * units, cuda.gridsize(1)):
        b, j = e // units, e % units
        if p >= lengths[b]:
            _step_skip(state, s, p, b, j)
        else:
            _step_forward(mode, xw, gh, bhh, state, s, p, b, j)


@cuda.jit
def _backward_step(
    mode: int, dy: Any, lengths: Any, saved: Any, carry: Any, gate_grads: Any, s: int, p: int
) -> None:  # fmt: skip
    rows, units = dy.shape[1], dy.shape[2]
    for e in range(cuda.grid(1), rows * units, cuda.gridsize(1)):
        b, j = e // units, e % units
        if p >= lengths[b]:
            _step_backward_skip(carry, gate_grads, s, p, b, j)
        else:
            _step_backward(mode, dy, saved, carry, gate_grads, s, p, b, j)


@cuda.jit
def _carry(rec: Any, carry: Any) -> None:
    # d(h_prev) = dgh[s] @ W_hh (in `rec`) + the direct part; the cell gradient flows directly.
    dh, dc, dh_prev, dc_prev = carry
    units = dh.shape[1]
    for e in range(cuda.grid(1), dh.size, cuda.gridsize(1)):
        b, j = e // units, e % units
        dh[b, j] = rec[b, j] + dh_prev[b, j]
        dc[b, j] = dc_prev[b, j]


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


def _forward(
    mode: int, xw: DeviceArray, w_hh: DeviceArray, bhh: DeviceArray, lengths: DeviceArray,
    reverse: bool, init: tuple[DeviceArray, ...], state: tuple[DeviceArray, ...],
) -> None:  # fmt: skip
    hs, cs = raw(state[0]), raw(state[1])
    hs[0].copy_to_device(raw(init[0]))
    cs[0].copy_to_device(raw(init[1]))
    steps, rows, units = state[3].shape
    args = (raw(xw), None, raw(bhh), raw(lengths), _raw(state))
    for s in range(steps):
        gh = matmul(DeviceArray(hs[s]), w_hh, tb=True)
        p = steps - 1 - s if reverse else s
        _forward_step[launch(rows * units)](mode, args[0], raw(gh), *args[2:], s, p)


def _backward(
    mode: int, dy: DeviceArray, w_hh: DeviceArray, lengths: DeviceArray, reverse: bool,
    saved: tuple[DeviceArray, ...], final: tuple[DeviceArray, ...],
    carry: tuple[DeviceArray, ...], gate_grads: tuple[DeviceArray, ...],
) -> None:  # fmt: skip
    raw(carry[0]).copy_to_device(raw(final[0]))
    raw(carry[1]).copy_to_device(raw(final[1]))
    steps, rows, units = dy.shape
    grid = launch(rows * units)
    args = (raw(dy), raw(lengths), _raw(saved), _raw(carry), _raw(gate_grads))
    for s in range(steps - 1, -1, -1):
        _backward_step[grid](mode, *args, s, steps - 1 - s if reverse else s)
        rec = matmul(DeviceArray(raw(gate_grads[1])[s]), w_hh)
        _carry[grid](raw(rec), args[3])


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
