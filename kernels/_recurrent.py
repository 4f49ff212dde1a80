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
of rows, its products and its gates alike (in the case above, one thread: 3.2 ms
forward, 1.4 ms of it the products; the gates were 8 of 9.4 ms before they
vectorized).

Cached on disk, keyed on this file, `_recurrent_steps` and `_gate_math` (see `_numba_cache`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from . import _gate_math, _numba_cache, _recurrent_steps
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

_CACHE = _numba_cache.install(__file__, _recurrent_steps.__file__, _gate_math.__file__)
_kernel = numba.jit(nogil=True, cache=_CACHE, error_model="numpy")
# The step bodies stay functions of their own, called once per row and step: so
# compiled, their unit loop vectorizes; inlined at numba's IR level into the time
# loop (as `_cpu` does with the `_rowwise` bodies) it stayed scalar, 7x slower.
_row = numba.jit(nogil=True, cache=_CACHE, error_model="numpy")
_step_forward: Any = _row(_recurrent_steps.recurrent_step_forward)
_step_skip: Any = _row(_recurrent_steps.recurrent_step_skip)
_step_backward: Any = _row(_recurrent_steps.recurrent_step_backward)
_step_backward_skip: Any = _row(_recurrent_steps.recurrent_step_backward_skip)
_body = numba.jit(error_model="numpy", inline="always")
_embedding_row: Any = _body(_recurrent_steps.embedding_row)
_embedding_grad_column: Any = _body(_recurrent_steps.embedding_grad_column)


@_kernel
def _forward_loop(
    mode: int, xw: Array, w_hh_t: Array, bhh: Array, lengths: Array, reverse: bool, init: Any, state: Any,
    gh: Array, r0: int, r1: int,
) -> None:  # fmt: skip
    # Rows r0 to r1 only; `gh` (B, G) is shared, each block writing its own rows.
    # xw, bhh and act come as (..., gates or slots, H) views (see `_recurrent_steps`).
    hs, cs, act, y = state
    steps, _, gates, units = xw.shape
    gates_h = gh.reshape((gh.shape[0], gates, units))
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
                prev = (hs[s, b], cs[s, b])
                out = (hs[s + 1, b], cs[s + 1, b], act[p, b], y[p, b])
                _step_forward(mode, xw[p, b], gates_h[b], bhh, prev, out)
        for b in range(r0, r1):
            if p >= lengths[b]:
                prev = (hs[s, b], cs[s, b])
                _step_skip(prev, (hs[s + 1, b], cs[s + 1, b], act[p, b], y[p, b]))


@_kernel
def _backward_loop(
    mode: int, dy: Array, w_hh: Array, lengths: Array, reverse: bool, saved: Any, final: Any, carry: Any, gate_grads: Any,
    r0: int, r1: int,
) -> None:  # fmt: skip
    # act and the gate gradients come as (T, B, slots or gates, H) views.
    hs, cs, act = saved
    dh, dc, dh_prev, dc_prev = carry
    dgi, dgh = gate_grads
    steps, _, units = dy.shape
    flat_dgh = dgh.reshape((steps, dgh.shape[1], dgh.shape[2] * units))
    for b in range(r0, r1):
        for j in range(units):
            dh[b, j] = final[0][b, j]
            dc[b, j] = final[1][b, j]
    for s in range(steps - 1, -1, -1):
        p = steps - 1 - s if reverse else s
        q = s if mode == 3 else p  # dgh is dgi but for the GRU (see `_recurrent_api`)
        # Two passes as forward; here the rows past their length first (any order: rows are independent).
        for b in range(r0, r1):
            if p >= lengths[b]:
                rows = (dh[b], dc[b], dh_prev[b], dc_prev[b])
                _step_backward_skip(rows, (dgi[p, b], dgh[q, b]))
        for b in range(r0, r1):
            if p < lengths[b]:
                row = (hs[s, b], cs[s, b], cs[s + 1, b], act[p, b])
                rows = (dh[b], dc[b], dh_prev[b], dc_prev[b])
                _step_backward(mode, dy[p, b], row, rows, (dgi[p, b], dgh[q, b]))
        # d(h_prev) = the direct part + dgh[s] @ W_hh; the cell gradient flows directly.
        np.dot(flat_dgh[q, r0:r1], w_hh, dh[r0:r1])
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


def _by_gate(a: Array, units: int) -> Array:
    # (..., k x H) -> (..., k, H): gate k of unit j at [..., k, j] (a view).
    return a.reshape((*a.shape[:-1], a.shape[-1] // units, units))


def _forward(
    mode: int, xw: Array, w_hh: Array, bhh: Array, lengths: Array, reverse: bool, init: Any, state: Any,
) -> None:  # fmt: skip
    # The loop multiplies by W_hh^T every step: transpose it once, contiguous for BLAS.
    _, rows, gates = xw.shape
    units = w_hh.shape[1]
    gh = np.empty((rows, gates), xw.dtype)
    w_hh_t = np.ascontiguousarray(w_hh.T)
    hs, cs, act, y = state
    args = (mode, _by_gate(xw, units), w_hh_t, _by_gate(bhh, units), lengths, reverse)
    in_spans(
        _forward_loop, rows, _MIN_BLOCK_ROWS, *args, init, (hs, cs, _by_gate(act, units), y), gh,
        blas_inside=True,
    )  # fmt: skip


def _backward(
    mode: int, dy: Array, w_hh: Array, lengths: Array, reverse: bool, saved: Any, final: Any,
    carry: Any, gate_grads: Any,
) -> None:  # fmt: skip
    rows, units = dy.shape[1], dy.shape[2]
    hs, cs, act = saved
    saved = (hs, cs, _by_gate(act, units))
    grads = tuple(_by_gate(g, units) for g in gate_grads)
    in_spans(
        _backward_loop, rows, _MIN_BLOCK_ROWS, mode, dy, w_hh, lengths, reverse, saved, final,
        carry, grads, blas_inside=True,
    )  # fmt: skip


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
