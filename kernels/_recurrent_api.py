"""The public recurrent and embedding kernels, built the same way by every table from its primitives.

As `_wrappers` does for the activations and optimizers: a table supplies how
it allocates, moves arguments and runs the step loops; the names, signatures,
checks and result shapes are written here once (`reference` is the spec).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ._checks import check_shape

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "GATES",
    "SLOTS",
    "RecurrentKernels",
    "RecurrentPrimitives",
    "recurrent_kernels",
]

Array = Any

# Per mode (0 RNN tanh, 1 RNN ReLU, 2 LSTM, 3 GRU): gates in W_ih's rows, and columns of
# `act` per hidden unit (the GRU keeps its recurrent n-gate term as a fourth).
GATES = (1, 1, 4, 3)
SLOTS = (1, 1, 4, 4)


class RecurrentPrimitives(NamedTuple):
    """What a table supplies.

    `empty(shape, dtype)` and `zeros(shape, dtype)` allocate on the target;
    `array(name, a, ndim)` checks a float argument and returns it on the target;
    `ints(a)` returns integers (lengths, ids) as an int64 array on the target.
    `forward(mode, xw, w_hh, b_hh, lengths, reverse, (h0, c0), (hs, cs, act, y))`
    seeds hs[0], cs[0] and runs the steps; `backward(mode, dy, w_hh, lengths,
    reverse, (hs, cs, act), (dh_n, dc_n), (dh, dc, dh_prev, dc_prev), (dgi, dgh))`
    seeds dh, dc and runs the steps back, leaving dh0, dc0 in dh, dc; dgh is
    dgi itself except for the GRU (mode 3), and indexed by step only then.
    `lookup(table, ids, out)` and `scatter(dy, ids, dtable)` run the embedding loops.
    """

    empty: Callable[[tuple[int, ...], Any], Array]
    zeros: Callable[[tuple[int, ...], Any], Array]
    array: Callable[[str, Array, int], Array]
    ints: Callable[[Array], Array]
    forward: Callable[..., None]
    backward: Callable[..., None]
    lookup: Callable[[Array, Array, Array], None]
    scatter: Callable[[Array, Array, Array], None]


class RecurrentKernels(NamedTuple):
    """The four kernels, with `reference`'s names and signatures."""

    recurrent_forward: Callable[..., tuple[Array, Array, Array, Array]]
    recurrent_backward: Callable[..., tuple[Array, Array, Array, Array]]
    embedding_forward: Callable[[Array, Array], Array]
    embedding_backward: Callable[[Array, Array, int], Array]


def _check_mode(mode: int) -> None:
    if mode not in (0, 1, 2, 3):
        raise ValueError(
            f"Kernel argument `mode` must be 0 (RNN tanh), 1 (RNN ReLU), 2 (LSTM) or 3 (GRU), but got {mode!r}."
        )


def _check_lengths(lengths: Array, rows: int) -> None:
    if lengths.shape != (rows,) or np.dtype(lengths.dtype).kind not in "iu":
        raise ValueError(
            f"Kernel argument `lengths` must be integers of shape ({rows},), but got {lengths.dtype} {lengths.shape}."
        )


def _check_ids(ids: Array, vocab: int) -> None:
    # Checked on the host: the lookup and the scatter trust the ids.
    if ids.ndim != 1 or np.dtype(ids.dtype).kind not in "iu":
        raise ValueError(
            f"Kernel argument `ids` must be a 1-D integer array, but got {ids.dtype} {ids.shape}."
        )
    host = np.asarray(ids)
    if host.size and (int(host.min()) < 0 or int(host.max()) >= vocab):
        raise IndexError(
            f"Kernel argument `ids` must lie in [0, {vocab}), but got values in [{int(host.min())}, {int(host.max())}]."
        )


def recurrent_kernels(prim: RecurrentPrimitives) -> RecurrentKernels:
    """Build the recurrent and embedding kernels of a table from its primitives."""

    def recurrent_forward(mode: int, xw: Array, h0: Array, c0: Array, w_hh: Array, b_hh: Array | None, lengths: Array, reverse: bool) -> tuple[Array, Array, Array, Array]:  # fmt: skip
        """Run one layer direction over all steps; return (y, hs, cs, act) (see `reference`)."""
        _check_mode(mode)
        xw, w_hh = prim.array("xw", xw, 3), prim.array("w_hh", w_hh, 2)
        steps, rows, width = xw.shape
        units = w_hh.shape[1]
        check_shape("xw", xw, (steps, rows, GATES[mode] * units))
        check_shape("w_hh", w_hh, (width, units))
        init = (prim.array("h0", h0, 2), prim.array("c0", c0, 2))
        for name, a in zip(("h0", "c0"), init, strict=True):
            check_shape(name, a, (rows, units))
        bias = (
            prim.zeros((width,), xw.dtype)
            if b_hh is None
            else prim.array("b_hh", b_hh, 1)
        )
        check_shape("b_hh", bias, (width,))
        _check_lengths(lengths, rows)
        state = (
            prim.empty((steps + 1, rows, units), xw.dtype),
            prim.empty((steps + 1, rows, units), xw.dtype),
            prim.empty((steps, rows, SLOTS[mode] * units), xw.dtype),
            prim.empty((steps, rows, units), xw.dtype),
        )
        prim.forward(mode, xw, w_hh, bias, prim.ints(lengths), reverse, init, state)
        hs, cs, act, y = state
        return y, hs, cs, act

    def recurrent_backward(mode: int, dy: Array, dh_n: Array, dc_n: Array, w_hh: Array, hs: Array, cs: Array, act: Array, lengths: Array, reverse: bool) -> tuple[Array, Array, Array, Array]:  # fmt: skip
        """Back-propagate one layer direction through time; return (dgi, dgh, dh0, dc0)."""
        _check_mode(mode)
        dy, w_hh = prim.array("dy", dy, 3), prim.array("w_hh", w_hh, 2)
        steps, rows, units = dy.shape
        width = w_hh.shape[0]
        saved = (
            prim.array("hs", hs, 3),
            prim.array("cs", cs, 3),
            prim.array("act", act, 3),
        )
        check_shape("hs", saved[0], (steps + 1, rows, units))
        check_shape("act", saved[2], (steps, rows, SLOTS[mode] * units))
        final = (prim.array("dh_n", dh_n, 2), prim.array("dc_n", dc_n, 2))
        for name, a in zip(("dh_n", "dc_n"), final, strict=True):
            check_shape(name, a, (rows, units))
        _check_lengths(lengths, rows)
        carry = tuple(prim.empty((rows, units), dy.dtype) for _ in range(4))
        dgi = prim.empty((steps, rows, width), dy.dtype)
        # Only the GRU's recurrent-side gradients differ from the input side's; the
        # other cells' are dgi's, by step instead of position: the loops index them
        # at the position (`gate_grads` (dgi, dgi)) and nothing is written twice.
        gru = mode == 3
        dgh = prim.empty((steps, rows, width), dy.dtype) if gru else dgi
        prim.backward(
            mode, dy, w_hh, prim.ints(lengths), reverse, saved, final, carry, (dgi, dgh)
        )
        by_step = dgh if gru or not reverse else dgi[::-1]
        return dgi, by_step, carry[0], carry[1]

    def embedding_forward(table: Array, ids: Array) -> Array:
        """Rows `ids` (1-D integers in [0, vocab)) of `table` (vocab, E)."""
        table = prim.array("table", table, 2)
        _check_ids(ids, table.shape[0])
        out = prim.empty((ids.shape[0], table.shape[1]), table.dtype)
        prim.lookup(table, prim.ints(ids), out)
        return out

    def embedding_backward(dy: Array, ids: Array, vocab_size: int) -> Array:
        """The table's gradient: row i of dy (N, E) added into row ids[i]."""
        dy = prim.array("dy", dy, 2)
        _check_ids(ids, vocab_size)
        check_shape("dy", dy, (ids.shape[0], dy.shape[1]))
        dtable = prim.zeros((vocab_size, dy.shape[1]), dy.dtype)
        prim.scatter(dy, prim.ints(ids), dtable)
        return dtable

    return RecurrentKernels(
        recurrent_forward, recurrent_backward, embedding_forward, embedding_backward
    )
