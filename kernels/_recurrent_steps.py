"""One time step of the recurrent cells and the embedding loops, written once as plain Python.

The CPU table compiles these with `numba.jit` and calls them inside one
compiled time loop per layer and direction (`_recurrent`); the CUDA table
compiles them with `cuda.jit(device=True)` and calls them from one block per
batch row. As in `_rowwise`, no function here calls another of this module, so
each target compiles each one alone; callers check shapes and indices.
The gate nonlinearities come from `_gate_math` (rational in float32, so that
the CPU's unit loop vectorizes; through `exp` in float64).

A step body sees one batch row at one step (T steps, B batch rows, H hidden
units) and computes every hidden unit of the views it is given: the CPU passes
whole rows, a CUDA thread the column of its one unit (j:j+1), so n is H or 1:
- `x` (gates, n): the row's input projection x @ W_ih^T + b_ih at the step's
  position, computed for all positions before the loop by one matrix product;
- `gh` (gates, n): the row's h_prev @ W_hh^T (without b_hh); `bias` (gates, n): b_hh;
- `prev` (h_prev, c_prev) and `out` (h, c, act, y): the state before and after
  the step, (n,) each, what the backward step needs (`act`, (slots, n)) and the
  output (n,). The callers keep the states by *step* (step 0 is the initial
  state; the reverse direction's step s reads position T-1-s).
The callers view the (T, B, gates x H) arrays as (T, B, gates, H), so gate k of
unit j is row k, column j (MindSpore's order: column k*H + j of the flat row).

Why this shape: it is the one in which LLVM vectorized the CPU's unit loop
(an LSTM unit forward 3.2 ns against 23-29 ns): a plain `range(n)` loop with
no branch inside, one 1-D view per gate, in a function compiled on its own
(not inlined into the time loop). A start or step not known to be 0 and 1,
a mode test inside the loop, or stores into one array at j and n + j (n
unknown to the compiler) each kept the loop scalar.

Rows past their length (`lengths`) are skipped: the state is carried through
unchanged and the output there is 0. The callers test the length and call the
`_skip` body there.

Modes: 0 RNN with tanh, 1 RNN with ReLU, 2 LSTM (gates i, f, g, o), 3 GRU
(gates r, z, n).
"""

from __future__ import annotations

from typing import Any

from ._gate_math import ONE, gate_sigmoid, gate_tanh

__all__ = [
    "embedding_grad_column",
    "embedding_row",
    "recurrent_step_backward",
    "recurrent_step_backward_skip",
    "recurrent_step_forward",
    "recurrent_step_skip",
]


def recurrent_step_skip(prev: Any, out: Any) -> None:
    """A row at a step past its length: the state carried through, act and y 0."""
    h_prev, c_prev = prev
    h, c, act, y = out
    for j in range(h.shape[0]):
        h[j] = h_prev[j]
        c[j] = c_prev[j]
        y[j] = 0.0
        for k in range(act.shape[0]):
            act[k, j] = 0.0


def recurrent_step_forward(
    mode: int, x: Any, gh: Any, bias: Any, prev: Any, out: Any
) -> None:
    """A row at a step within its length: the new state, what backward needs, the output."""
    h_prev, c_prev = prev
    h_new, c_new, act, y = out
    n = h_new.shape[0]
    if mode == 2:
        x0, x1, x2, x3 = x[0], x[1], x[2], x[3]
        g0, g1, g2, g3 = gh[0], gh[1], gh[2], gh[3]
        b0, b1, b2, b3 = bias[0], bias[1], bias[2], bias[3]
        a0, a1, a2, a3 = act[0], act[1], act[2], act[3]
        for j in range(n):
            i_g = gate_sigmoid(x0[j] + g0[j] + b0[j])
            f_g = gate_sigmoid(x1[j] + g1[j] + b1[j])
            g_g = gate_tanh(x2[j] + g2[j] + b2[j])
            o_g = gate_sigmoid(x3[j] + g3[j] + b3[j])
            c = f_g * c_prev[j] + i_g * g_g
            h = o_g * gate_tanh(c)
            a0[j], a1[j], a2[j], a3[j] = i_g, f_g, g_g, o_g
            c_new[j] = c
            h_new[j] = h
            y[j] = h
    elif mode == 3:
        x0, x1, x2 = x[0], x[1], x[2]
        g0, g1, g2 = gh[0], gh[1], gh[2]
        b0, b1, b2 = bias[0], bias[1], bias[2]
        a0, a1, a2, a3 = act[0], act[1], act[2], act[3]
        for j in range(n):
            r_g = gate_sigmoid(x0[j] + g0[j] + b0[j])
            z_g = gate_sigmoid(x1[j] + g1[j] + b1[j])
            h_n = g2[j] + b2[j]
            n_g = gate_tanh(x2[j] + r_g * h_n)
            h = n_g + z_g * (h_prev[j] - n_g)
            a0[j], a1[j], a2[j], a3[j] = r_g, z_g, n_g, h_n
            c_new[j] = 0.0
            h_new[j] = h
            y[j] = h
    else:
        x0, g0, b0, a0 = x[0], gh[0], bias[0], act[0]
        for j in range(n):
            pre = x0[j] + g0[j] + b0[j]
            h = gate_tanh(pre) if mode == 0 else max(pre, 0.0)
            a0[j] = h
            c_new[j] = 0.0
            h_new[j] = h
            y[j] = h


def recurrent_step_backward_skip(carry: Any, gate_grads: Any) -> None:
    """A row at a step past its length: zero gate gradients, the state's passed back."""
    dh, dc, dh_prev, dc_prev = carry
    dgi, dgh = gate_grads
    for j in range(dh.shape[0]):
        dh_prev[j] = dh[j]
        dc_prev[j] = dc[j]
        for k in range(dgi.shape[0]):
            dgi[k, j] = 0.0
            dgh[k, j] = 0.0


def recurrent_step_backward(
    mode: int, dy: Any, saved: Any, carry: Any, gate_grads: Any
) -> None:
    """A row at a step within its length: the gate gradients and the direct state gradients.

    `dy` (n,) is the output's gradient at the step's position; `saved` is the
    forward's (h_prev, c_prev, c, act) of the row at the step. `carry` is (dh, dc,
    dh_prev, dc_prev): dh and dc hold the gradient reaching the state after the
    step from later steps; the part of d(h_prev) not flowing through W_hh goes to
    dh_prev, d(c_prev) to dc_prev. `gate_grads` is (dgi, dgh), (gates, n) each:
    the pre-activation gradients of the input side and of the recurrent side.
    They differ only for the GRU's n gate: the other cells write dgi alone (the
    callers pass dgi as dgh for them).
    """
    h_prev, c_prev, c_new, act = saved
    dh, dc, dh_prev, dc_prev = carry
    dgi, dgh = gate_grads
    n = dh.shape[0]
    if mode == 2:
        a0, a1, a2, a3 = act[0], act[1], act[2], act[3]
        i0, i1, i2, i3 = dgi[0], dgi[1], dgi[2], dgi[3]
        for j in range(n):
            g = dh[j] + dy[j]
            i_g, f_g, g_g, o_g = a0[j], a1[j], a2[j], a3[j]
            tc = gate_tanh(c_new[j])
            d_c = dc[j] + g * o_g * (ONE - tc * tc)
            d_i = d_c * g_g * i_g * (ONE - i_g)
            d_f = d_c * c_prev[j] * f_g * (ONE - f_g)
            d_g = d_c * i_g * (ONE - g_g * g_g)
            d_o = g * tc * o_g * (ONE - o_g)
            i0[j], i1[j], i2[j], i3[j] = d_i, d_f, d_g, d_o
            dh_prev[j] = 0.0
            dc_prev[j] = d_c * f_g
    elif mode == 3:
        a0, a1, a2, a3 = act[0], act[1], act[2], act[3]
        i0, i1, i2 = dgi[0], dgi[1], dgi[2]
        r0, r1, r2 = dgh[0], dgh[1], dgh[2]
        for j in range(n):
            g = dh[j] + dy[j]
            r_g, z_g, n_g, h_n = a0[j], a1[j], a2[j], a3[j]
            d_n = g * (ONE - z_g) * (ONE - n_g * n_g)
            d_r = d_n * h_n * r_g * (ONE - r_g)
            d_z = g * (h_prev[j] - n_g) * z_g * (ONE - z_g)
            i0[j], i1[j], i2[j] = d_r, d_z, d_n
            r0[j], r1[j], r2[j] = d_r, d_z, d_n * r_g
            dh_prev[j] = g * z_g
            dc_prev[j] = 0.0
    else:
        a0, i0 = act[0], dgi[0]
        for j in range(n):
            g = dh[j] + dy[j]
            h = a0[j]
            d_pre = g * (ONE - h * h) if mode == 0 else (g if h > 0.0 else 0.0)
            i0[j] = d_pre
            dh_prev[j] = 0.0
            dc_prev[j] = 0.0


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
