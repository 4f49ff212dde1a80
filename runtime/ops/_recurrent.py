"""Differentiable recurrent-layer and embedding ops backed by the current target's kernels.

`recurrent` runs one layer in one direction: the input side of every step is
one dense product before the loop, the time loop is one kernel call (forward)
and one (backward), and the weight gradients are one dense product each after
it. `cadence.nn`'s RNN / GRU / LSTM stack these per layer and direction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._functional import Array, GradFn, as_tensor, record
from ._nn import _contig, _float, _k

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["MODES", "embedding", "recurrent"]


class _IdOutOfRangeError(IndexError, RuntimeError):
    """An embedding id outside the table: MindSpore raises RuntimeError, Python code expects IndexError."""


# Kernel mode codes (see `cadence.kernels.reference.recurrent_forward`).
MODES = {"RNN_TANH": 0, "RNN_RELU": 1, "LSTM": 2, "GRU": 3}


def recurrent(
    mode: int,
    x: Any,
    h0: Tensor,
    c0: Tensor,
    weights: tuple[Tensor, Tensor, Tensor | None, Tensor | None],
    lengths: Array,
    reverse: bool,
) -> tuple[Tensor, Tensor, Tensor]:
    """Run one layer direction over time-major `x` (T, B, I); return (output, h_n, c_n).

    Args:
        mode: A code of `MODES`.
        x: The input sequence, (T, B, I).
        h0: The initial hidden state, (B, H).
        c0: The initial cell state (B, H); zeros and unused except for the LSTM.
        weights: (W_ih, W_hh, b_ih, b_hh), MindSpore's shapes; biases may be None.
        lengths: (B,) integers: a row's positions at and past its length carry the
            state through and output 0 (T everywhere for full sequences).
        reverse: Run from the last position to the first.
    """
    w_ih, w_hh, b_ih, b_hh = weights
    tx = as_tensor(x)
    k = _k()
    xd = _float(tx)
    steps, rows, width = xd.shape
    x2 = xd.reshape(steps * rows, width)
    wi, wh = _float(w_ih), _float(w_hh)
    bi = None if b_ih is None else _float(b_ih)
    bh = None if b_hh is None else _float(b_hh)
    if mode != MODES["GRU"] and bi is not None:
        # Both biases add to the same pre-activations (the GRU's n gate alone scales
        # b_hh): add their sum once, in the step, not b_ih in a pass of its own.
        bi, bh = None, bi if bh is None else bi + bh
    xw = k.dense_forward(x2, wi, bi, 0)
    gates = xw.shape[1]
    y, hs, cs, act = k.recurrent_forward(
        mode,
        xw.reshape(steps, rows, gates),
        _float(h0),
        _float(c0),
        wh,
        bh,
        lengths,
        reverse,
    )
    units = wh.shape[1]
    # One recorded node for the three results (the tape keeps one output per node);
    # the callers slice output, h_n and c_n out of it, differentiably.
    packed = np.concatenate([y, hs[steps : steps + 1], cs[steps : steps + 1]])
    inputs = (tx, h0, c0, w_ih, w_hh, *(b for b in (b_ih, b_hh) if b is not None))

    def grad_fn() -> GradFn:
        def backward(g: Array) -> list[Array | None]:
            g = _contig(g)
            dgi, dgh, dh0, dc0 = k.recurrent_backward(
                mode, _contig(g[:steps]), _contig(g[steps]), _contig(g[steps + 1]),
                wh, hs, cs, act, lengths, reverse,
            )  # fmt: skip
            dx, dwi, dbi = k.dense_backward(
                dgi.reshape(steps * rows, gates), x2, wi, None, 0, tx._tracked
            )
            # dW_hh pairs each step's recurrent-side gradients with the state before the
            # step. For every cell but the GRU they are dgi's, by step: run backwards,
            # pair dgi (by position) with the states reversed (1/4 the data to reorder).
            if reverse and mode != MODES["GRU"]:
                rec, before = dgi, _contig(hs[steps - 1 :: -1])
            else:
                rec, before = dgh, _contig(hs[:steps])
            _, dwh, dbh = k.dense_backward(
                _contig(rec).reshape(steps * rows, gates),
                before.reshape(steps * rows, units),
                wh,
                None,
                0,
                False,
            )
            out = [None if dx is None else dx.reshape(xd.shape), dh0, dc0, dwi, dwh]
            return out + [db for db, b in ((dbi, b_ih), (dbh, b_hh)) if b is not None]

        return backward

    both = record(packed, inputs, grad_fn)
    return both[:steps], both[steps], both[steps + 1]


def embedding(table: Tensor, ids: Any) -> Tensor:
    """Rows `ids` (any shape of integers in [0, vocab)) of `table`; shape ids.shape + (E,)."""
    k = _k()
    data = _float(table)
    flat = np.ascontiguousarray(np.asarray(as_tensor(ids)._data).reshape(-1))
    vocab, width = data.shape
    if flat.dtype.kind not in "iu":
        raise TypeError(
            f"For 'Embedding', the ids must be integers, but got dtype {flat.dtype}."
        )
    if flat.size and (int(flat.min()) < 0 or int(flat.max()) >= vocab):
        raise _IdOutOfRangeError(
            f"For 'Embedding', every id must lie in [0, {vocab}), but got values in [{int(flat.min())}, {int(flat.max())}]."
        )
    out = k.embedding_forward(data, flat)
    shape = (*np.shape(as_tensor(ids)._data), width)
    return record(
        out.reshape(shape),
        (table,),
        lambda: (
            lambda g: (
                k.embedding_backward(_contig(g).reshape(-1, width), flat, vocab),
            )
        ),
    )
