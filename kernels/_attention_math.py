"""Loop bodies of the attention-era kernels, written once as plain Python; each target builds them.

Per-element activations (`smooth_act`, `smooth_act_grad`) take and return
scalars, like `_scalar`; the normalization bodies work on one row (or one
parameter element), like `_rowwise`. The CPU table (`_attention`) compiles them
with `numba.jit`, the CUDA table (`cuda/_attention`) with
`cuda.jit(device=True)`. A function calls no other function of this module, so
a target compiles each one alone; callers check arguments.

Normalization layout: x is (R, L), each row one normalized unit. Row i's
element j scales by gamma[c] with c = (i % groups) * (L // span) + j // span:
layer norm is groups=1, span=1 (c = j); group norm of (N, C, M) input is
rows N*G of length (C/G)*M, groups=G, span=M (c = the channel).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "BODY_NAMES",
    "SMOOTH_ACT_CODES",
    "norm_param_grad",
    "norm_param_grad_row",
    "norm_row_backward",
    "norm_row_forward",
    "smooth_act",
    "smooth_act_grad",
]

# What each target builds, in this order (its modules unpack them by these names).
BODY_NAMES = (
    "smooth_act",
    "smooth_act_grad",
    "norm_row_forward",
    "norm_row_backward",
    "norm_param_grad",
    "norm_param_grad_row",
)

# Codes of `smooth_act`; `alpha` is the negative slope of leaky relu and unused otherwise.
SMOOTH_ACT_CODES = {"gelu_tanh": 0, "gelu": 1, "silu": 2, "leaky_relu": 3, "erf": 4}


def smooth_act(x: float, code: int, alpha: float) -> float:
    """Activation by code: 0 gelu (tanh form), 1 gelu (erf form), 2 silu, 3 leaky relu, 4 erf."""
    if code == 0:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + math.tanh(inner))
    if code == 1:
        return 0.5 * x * (1.0 + math.erf(x * 0.7071067811865476))
    if code == 2:
        # x * sigmoid(x), with the sigmoid written so exp never overflows.
        if x >= 0:
            return x / (1.0 + math.exp(-x))
        e = math.exp(x)
        return x * e / (1.0 + e)
    if code == 4:
        return math.erf(x)
    return x if x > 0 else alpha * x


def smooth_act_grad(x: float, code: int, alpha: float) -> float:
    """Derivative of `smooth_act` by code, from its input."""
    if code == 0:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        t = math.tanh(inner)
        dinner = 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x)
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * dinner
    if code == 1:
        cdf = 0.5 * (1.0 + math.erf(x * 0.7071067811865476))
        return cdf + x * 0.3989422804014327 * math.exp(-0.5 * x * x)
    if code == 2:
        if x >= 0:
            s = 1.0 / (1.0 + math.exp(-x))
        else:
            e = math.exp(x)
            s = e / (1.0 + e)
        return s * (1.0 + x * (1.0 - s))
    if code == 4:
        return 1.1283791670955126 * math.exp(-x * x)  # 2 / sqrt(pi) * exp(-x^2)
    return 1.0 if x > 0 else alpha


def norm_row_forward(
    x: Any, gamma: Any, beta: Any, eps: float, layout: Any, y: Any, stats: Any, i: int
) -> None:
    """Row i: y = (x - mean) / sqrt(var + eps) * gamma + beta; stats[0, i] = mean, stats[1, i] = 1/std.

    `layout` is (groups, span); the statistics take two passes over the row.
    """
    length = x.shape[1]
    base = (i % layout[0]) * (length // layout[1])
    s = 0.0
    for j in range(length):
        s += x[i, j]
    mu = s / length
    q = 0.0
    for j in range(length):
        d = x[i, j] - mu
        q += d * d
    r = 1.0 / math.sqrt(q / length + eps)
    span = layout[1]
    for j in range(length):
        # Layer norm (span 1) skips the integer division: it was most of the loop's time.
        c = base + (j if span == 1 else j // span)
        y[i, j] = (x[i, j] - mu) * r * gamma[c] + beta[c]
    stats[0, i] = mu
    stats[1, i] = r


def norm_row_backward(
    dy: Any, x: Any, gamma: Any, stats: Any, layout: Any, dx: Any, i: int
) -> None:
    """Row i of the input gradient: rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma."""
    length = x.shape[1]
    base = (i % layout[0]) * (length // layout[1])
    mu = stats[0, i]
    r = stats[1, i]
    span = layout[1]  # as in the forward, no division for layer norm (span 1)
    sg = 0.0
    sgx = 0.0
    for j in range(length):
        g = dy[i, j] * gamma[base + (j if span == 1 else j // span)]
        sg += g
        sgx += g * (x[i, j] - mu) * r
    a = sg / length
    b = sgx / length
    for j in range(length):
        g = dy[i, j] * gamma[base + (j if span == 1 else j // span)]
        dx[i, j] = r * (g - a - (x[i, j] - mu) * r * b)


def norm_param_grad(
    dy: Any, x: Any, stats: Any, layout: Any, dparams: Any, c: int
) -> None:
    """Element c of gamma's and beta's gradients (dparams[0, c], dparams[1, c]): sums of dy * xhat and dy."""
    rows, length = x.shape
    groups, span = layout[0], layout[1]
    per = length // span
    first = (c % per) * span
    sg = 0.0
    sb = 0.0
    for i in range(c // per, rows, groups):
        for j in range(first, first + span):
            sg += dy[i, j] * (x[i, j] - stats[0, i]) * stats[1, i]
            sb += dy[i, j]
    dparams[0, c] = sg
    dparams[1, c] = sb


def norm_param_grad_row(
    dy: Any, x: Any, stats: Any, layout: Any, acc: Any, i: int
) -> None:
    """Row i's terms of gamma's and beta's gradients, added into acc[0, c] and acc[1, c].

    The same sums as `norm_param_grad`, in row order: the CPU's traversal (contiguous
    reads; by element, a layer norm's (8192, 128) gradient took 3 ms of strided reads),
    where CUDA sums one element per thread (no two threads add into one place).
    """
    length = x.shape[1]
    base = (i % layout[0]) * (length // layout[1])
    span = layout[1]
    mu = stats[0, i]
    r = stats[1, i]
    for j in range(length):
        c = base + (j if span == 1 else j // span)
        acc[0, c] += dy[i, j] * (x[i, j] - mu) * r
        acc[1, c] += dy[i, j]
