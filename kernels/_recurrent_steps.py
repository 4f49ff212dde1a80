"""One time step of the recurrent cells and the embedding loops, written once as plain Python.

The CPU table compiles these with `numba.jit` and loops over them inside one
compiled call per layer and direction (`_recurrent`); the CUDA table compiles
them with `cuda.jit(device=True)` and runs one thread per (batch row, hidden
unit) per launch. As in `_rowwise`, no function here calls another, so each
target compiles each one alone; callers check shapes and indices.

Layout shared by every body (T steps, B batch rows, H hidden units):
- `xw` (T, B, G): the input projection x @ W_ih^T + b_ih of every position,
  computed before the loop by one matrix product;
- `gh` (B, G): h_prev @ W_hh^T of the current step (without b_hh);
- `hs`, `cs` (T+1, B, H): hidden and cell state by *step* (step 0 is the initial
  state; the reverse direction's step s reads position T-1-s);
- `act` (T, B, S): what the backward step needs, by position;
- `lengths` (B,): a row's positions at and past its length are skipped: the
  state is carried through unchanged and the output there is 0. The callers
  test the length and call the `_skip` body there: tested inside the step
  body, the branch made the CPU loop 1.6x slower (numba, LSTM: 12.6 against 7.7 ms).

Modes: 0 RNN with tanh, 1 RNN with ReLU, 2 LSTM (gates i, f, g, o), 3 GRU
(gates r, z, n). Gate k of unit j sits at column k*H + j.

tanh(v) is written as sign(v) * (1 - e) / (1 + e) with e = exp(-2|v|): on the CPU
one `exp` costs a quarter of libm's `tanh` (measured: 4 against 16 ns in float32),
and the gates are most of a step's time; e <= 1, so nothing overflows on any target.
The formula is exact to a few float64 ulps of 1 (so float32 results are rounded once).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "embedding_grad_column",
    "embedding_row",
    "recurrent_step_backward",
    "recurrent_step_backward_skip",
    "recurrent_step_forward",
    "recurrent_step_skip",
]


def recurrent_step_skip(state: Any, s: int, p: int, b: int, j: int) -> None:
    """Unit j of batch row b at step s, past the row's length: the state carried through, act and y 0."""
    hs, cs, act, y = state
    h_units = hs.shape[2]
    hs[s + 1, b, j] = hs[s, b, j]
    cs[s + 1, b, j] = cs[s, b, j]
    for k in range(act.shape[2] // h_units):
        act[p, b, k * h_units + j] = 0.0
    y[p, b, j] = 0.0


def recurrent_step_forward(
    mode: int,
    xw: Any,
    gh: Any,
    bhh: Any,
    state: Any,
    s: int,
    p: int,
    b: int,
    j: int,
) -> None:
    """Unit j of batch row b at step s (position p, within the row's length): the new state, what backward needs, the output.

    `state` is (hs, cs, act, y).
    """
    hs, cs, act, y = state
    h_units = hs.shape[2]
    h_prev = hs[s, b, j]
    if mode == 2:
        i_g = 1.0 / (1.0 + math.exp(-(xw[p, b, j] + gh[b, j] + bhh[j])))
        f_at = h_units + j
        f_g = 1.0 / (1.0 + math.exp(-(xw[p, b, f_at] + gh[b, f_at] + bhh[f_at])))
        g_at = 2 * h_units + j
        g_pre = xw[p, b, g_at] + gh[b, g_at] + bhh[g_at]
        g_e = math.exp(-2.0 * abs(g_pre))
        g_g = math.copysign((1.0 - g_e) / (1.0 + g_e), g_pre)
        o_at = 3 * h_units + j
        o_g = 1.0 / (1.0 + math.exp(-(xw[p, b, o_at] + gh[b, o_at] + bhh[o_at])))
        c = f_g * cs[s, b, j] + i_g * g_g
        c_e = math.exp(-2.0 * abs(c))
        h = o_g * math.copysign((1.0 - c_e) / (1.0 + c_e), c)
        cs[s + 1, b, j] = c
        act[p, b, j] = i_g
        act[p, b, f_at] = f_g
        act[p, b, g_at] = g_g
        act[p, b, o_at] = o_g
    elif mode == 3:
        r_g = 1.0 / (1.0 + math.exp(-(xw[p, b, j] + gh[b, j] + bhh[j])))
        z_at = h_units + j
        z_g = 1.0 / (1.0 + math.exp(-(xw[p, b, z_at] + gh[b, z_at] + bhh[z_at])))
        n_at = 2 * h_units + j
        h_n = gh[b, n_at] + bhh[n_at]
        n_pre = xw[p, b, n_at] + r_g * h_n
        n_e = math.exp(-2.0 * abs(n_pre))
        n_g = math.copysign((1.0 - n_e) / (1.0 + n_e), n_pre)
        h = n_g + z_g * (h_prev - n_g)
        cs[s + 1, b, j] = 0.0
        act[p, b, j] = r_g
        act[p, b, z_at] = z_g
        act[p, b, n_at] = n_g
        act[p, b, 3 * h_units + j] = h_n
    else:
        pre = xw[p, b, j] + gh[b, j] + bhh[j]
        pre_e = math.exp(-2.0 * abs(pre))
        h = (
            math.copysign((1.0 - pre_e) / (1.0 + pre_e), pre)
            if mode == 0
            else max(pre, 0.0)
        )
        cs[s + 1, b, j] = 0.0
        act[p, b, j] = h
    hs[s + 1, b, j] = h
    y[p, b, j] = h


def recurrent_step_backward_skip(
    carry: Any, gate_grads: Any, s: int, p: int, b: int, j: int
) -> None:
    """Unit j of batch row b at step s, past the row's length: zero gate gradients, the state's passed back."""
    dh, dc, dh_prev, dc_prev = carry
    dgi, dgh = gate_grads
    h_units = dh.shape[1]
    for k in range(dgi.shape[2] // h_units):
        dgi[p, b, k * h_units + j] = 0.0
        dgh[s, b, k * h_units + j] = 0.0
    dh_prev[b, j] = dh[b, j]
    dc_prev[b, j] = dc[b, j]


def recurrent_step_backward(
    mode: int,
    dy: Any,
    saved: Any,
    carry: Any,
    gate_grads: Any,
    s: int,
    p: int,
    b: int,
    j: int,
) -> None:
    """Unit j of batch row b at step s: the gate gradients and the direct state gradients.

    `saved` is the forward's (hs, cs, act). `carry` is (dh, dc, dh_prev, dc_prev):
    dh and dc hold the gradient reaching the state after step s from later steps;
    the part of d(h_prev) not flowing through W_hh goes to dh_prev, d(c_prev) to
    dc_prev. `gate_grads` is (dgi, dgh): the pre-activation gradients of the input
    side (by position) and of the recurrent side (by step; they differ for the
    GRU's n gate).
    """
    hs, cs, act = saved
    dh, dc, dh_prev, dc_prev = carry
    dgi, dgh = gate_grads
    h_units = hs.shape[2]
    g = dh[b, j] + dy[p, b, j]
    if mode == 2:
        i_g = act[p, b, j]
        f_g = act[p, b, h_units + j]
        g_g = act[p, b, 2 * h_units + j]
        o_g = act[p, b, 3 * h_units + j]
        c = cs[s + 1, b, j]
        c_e = math.exp(-2.0 * abs(c))
        tc = math.copysign((1.0 - c_e) / (1.0 + c_e), c)
        d_c = dc[b, j] + g * o_g * (1.0 - tc * tc)
        d_i = d_c * g_g * i_g * (1.0 - i_g)
        d_f = d_c * cs[s, b, j] * f_g * (1.0 - f_g)
        d_g = d_c * i_g * (1.0 - g_g * g_g)
        d_o = g * tc * o_g * (1.0 - o_g)
        dgi[p, b, j] = d_i
        dgh[s, b, j] = d_i
        dgi[p, b, h_units + j] = d_f
        dgh[s, b, h_units + j] = d_f
        dgi[p, b, 2 * h_units + j] = d_g
        dgh[s, b, 2 * h_units + j] = d_g
        dgi[p, b, 3 * h_units + j] = d_o
        dgh[s, b, 3 * h_units + j] = d_o
        dh_prev[b, j] = 0.0
        dc_prev[b, j] = d_c * f_g
    elif mode == 3:
        r_g = act[p, b, j]
        z_g = act[p, b, h_units + j]
        n_g = act[p, b, 2 * h_units + j]
        h_n = act[p, b, 3 * h_units + j]
        d_n = g * (1.0 - z_g) * (1.0 - n_g * n_g)
        d_r = d_n * h_n * r_g * (1.0 - r_g)
        d_z = g * (hs[s, b, j] - n_g) * z_g * (1.0 - z_g)
        dgi[p, b, j] = d_r
        dgh[s, b, j] = d_r
        dgi[p, b, h_units + j] = d_z
        dgh[s, b, h_units + j] = d_z
        dgi[p, b, 2 * h_units + j] = d_n
        dgh[s, b, 2 * h_units + j] = d_n * r_g
        dh_prev[b, j] = g * z_g
        dc_prev[b, j] = 0.0
    else:
        h = act[p, b, j]
        d_pre = g * (1.0 - h * h) if mode == 0 else (g if h > 0.0 else 0.0)
        dgi[p, b, j] = d_pre
        dgh[s, b, j] = d_pre
        dh_prev[b, j] = 0.0
        dc_prev[b, j] = 0.0


def embedding_row(table: Any, ids: Any, out: Any, i: int) -> None:
    """Row i of the lookup: out[i] = table[ids[i]] (ids checked in range by the caller)."""
    row = ids[i]
    for e in range(table.shape[1]):
        out[i, e] = table[row, e]


def embedding_grad_column(dy: Any, ids: Any, dtable: Any, e: int) -> None:
    """Column e of the table's gradient: scatter-add every lookup's gradient into its row.

    One column per call, so no two CUDA threads write the same element and the sums
    come out in the same order on every target and run (no atomics).
    """
    for i in range(ids.shape[0]):
        dtable[ids[i], e] += dy[i, e]
