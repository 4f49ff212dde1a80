"""CPU kernels of the recurrent layers and the embedding lookup (the CPU table re-exports them).

A layer direction is one compiled call forward and one backward: the time loop
runs inside numba, each step one BLAS product for the recurrent side
(`np.dot` inside the loop) and the step bodies of `_recurrent_steps` for the
gates. The input side of every step (x @ W_ih^T) and the weight gradients are
one BLAS product each, outside the loop, by the caller (`cadence.ops`).

Inside the loop BLAS runs on one thread: each step's product is small
(batch x hidden x gates), and between two of them the step bodies run on this
thread, while idle BLAS workers spin-wait for the next call and take the
cores the loop needs (measured on 2 cores: an LSTM layer of 32 steps, batch
128, hidden 64, ran 13x slower with two BLAS threads than with one). The
cores are used instead by splitting the batch (`_parallel`): rows are
independent through time, so each thread runs the whole loop on its own block
of rows (the gates, not the products, are most of a step: 8 of 9.4 ms forward
in the case above).

Cached on disk, keyed on this file and `_recurrent_steps` (see `_numba_cache`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from . import _numba_cache, _recurrent_steps
from ._checks import check_float_array
from ._parallel import in_spans
from ._recurrent_api import RecurrentPrimitives, recurrent_kernels

__all__ = [
    "embedding_backward",
    "embedding_forward",
    "recurrent_backward",
    "recurrent_forward",
]

Array = npt.NDArray[Any]

_CACHE = _numba_cache.install(__file__, _recurrent_steps.__file__)
_kernel = numba.jit(nogil=True, cache=_CACHE, error_model="numpy")
# Inlined at numba's IR level, as `_cpu` does with the `_rowwise` bodies.
_body = numba.jit(error_model="numpy", inline="always")
_step_forward: Any = _body(_recurrent_steps.recurrent_step_forward)
_step_skip: Any = _body(_recurrent_steps.recurrent_step_skip)
_step_backward: Any = _body(_recurrent_steps.recurrent_step_backward)
_step_backward_skip: Any = _body(_recurrent_steps.recurrent_step_backward_skip)
_embedding_row: Any = _body(_recurrent_steps.embedding_row)
_embedding_grad_column: Any = _body(_recurrent_steps.embedding_grad_column)


@_kernel
def _forward_loop(
    mode: int, xw: Array, w_hh_t: Array, bhh: Array, lengths: Array, reverse: bool, init: Any, state: Any,
    gh: Array, r0: int, r1: int,
) -> None:  # fmt: skip
    # Rows r0 to r1 only; `gh` (B, G) is shared, each block writing its own rows.
    hs, cs = state[0], state[1]
    steps = xw.shape[0]
    units = hs.shape[2]
    for b in range(r0, r1):
        for j in range(units):
            hs[0, b, j] = init[0][b, j]
            cs[0, b, j] = init[1][b, j]
    for s in range(steps):
        p = steps - 1 - s if reverse else s
        np.dot(hs[s, r0:r1], w_hh_t, gh[r0:r1])
        # Live rows, then the rows past their length, as two passes: with the skip
        # inside the same row loop, numba's code for it was 1.5x slower (12 against 7.9 ms).
        for b in range(r0, r1):
            if p < lengths[b]:
                for j in range(units):
                    _step_forward(mode, xw, gh, bhh, state, s, p, b, j)
        for b in range(r0, r1):
            if p >= lengths[b]:
                for j in range(units):
                    _step_skip(state, s, p, b, j)


@_kernel
def _backward_loop(
    mode: int, dy: Array, w_hh: Array, lengths: Array, reverse: bool, saved: Any, final: Any, carry: Any, gate_grads: Any,
    r0: int, r1: int,
) -> None:  # fmt: skip
    dh, dc, dh_prev, dc_prev = carry
    steps, _, units = dy.shape
    for b in range(r0, r1):
        for j in range(units):
            dh[b, j] = final[0][b, j]
            dc[b, j] = final[1][b, j]
    for s in range(steps - 1, -1, -1):
        p = steps - 1 - s if reverse else s
        # Two passes as forward; here the rows past their length first (any order: rows are independent).
        for b in range(r0, r1):
            if p >= lengths[b]:
                for j in range(units):
                    _step_backward_skip(carry, gate_grads, s, p, b, j)
        for b in range(r0, r1):
            if p < lengths[b]:
                for j in range(units):
                    _step_backward(mode, dy, saved, carry, gate_grads, s, p, b, j)
        # d(h_prev) = the direct part + dgh[s] @ W_hh; the cell gradient flows directly.
        np.dot(gate_grads[1][s, r0:r1], w_hh, dh[r0:r1])
        for b in range(r0, r1):
            for j in range(units):
                dh[b, j] += dh_prev[b, j]
                dc[b, j] = dc_prev[b, j]


@_kernel
def _lookup(table: Array, ids: Array, out: Array) -> None:
    for i in range(ids.shape[0]):
        _embedding_row(table, ids, out, i)


@_kernel
def _scatter_add(dy: Array, ids: Array, dtable: Array) -> None:
    for e in range(dy.shape[1]):
        _embedding_grad_column(dy, ids, dtable, e)


# Rows below which a block's product and gates are too small to be worth a thread.
_MIN_BLOCK_ROWS = 8


def _array(name: str, a: Array, ndim: int) -> Array:
    check_float_array(name, a, ndim)
    return a


def _forward(mode: int, xw: Array, w_hh: Array, *rest: Any) -> None:
    # The loop multiplies by W_hh^T every step: transpose it once, contiguous for BLAS.
    _, rows, gates = xw.shape
    gh = np.empty((rows, gates), xw.dtype)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    args = (mode, xw, w_hh_t, *rest, gh)
    in_spans(_forward_loop, rows, _MIN_BLOCK_ROWS, *args, blas_inside=True)


def _backward(mode: int, dy: Array, *rest: Any) -> None:
    rows = dy.shape[1]
    in_spans(_backward_loop, rows, _MIN_BLOCK_ROWS, mode, dy, *rest, blas_inside=True)


recurrent_forward, recurrent_backward, embedding_forward, embedding_backward = (
    recurrent_kernels(
        RecurrentPrimitives(
            empty=np.empty,
            zeros=np.zeros,
            array=_array,
            ints=lambda a: np.ascontiguousarray(a, np.int64),
            forward=_forward,
            backward=_backward,
            lookup=_lookup,
            scatter=_scatter_add,
        )
    )
)
