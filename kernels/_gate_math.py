"""The gate nonlinearities of the recurrent step bodies: tanh and sigmoid a compiler can vectorize in float32.

Why this exists: numba's LLVM has no vector math library here, so `math.exp` in
a loop stays one scalar libm call per element and keeps the whole unit loop
scalar (an LSTM unit forward cost about 29 ns, nearly all of it five `exp`s).
In float32 these functions use no call at all: tanh is a rational function of
x^2 on [-9.02, 9.02] (beyond, float32 tanh is +-1), sigmoid(x) = (1 + tanh(x/2)) / 2.
Multiplies, adds, one division and clamps: LLVM vectorizes the unit loop
(16 lanes with AVX-512; about 1.8 ns an LSTM unit forward, measured).

Accuracy in float32 (tests/kernels/test_gate_math.py checks it on a dense grid
against float64 numpy): tanh within 4e-7 relative (7 ulp) and never beyond +-1;
sigmoid within 3e-7 absolute. The coefficients were fitted for this module: a
linear least-squares fit of P(t) - f(t) Q(t) with t = x^2, f = tanh(x)/x, weights
refined (Lawson's iteration) toward the smallest maximum relative error, which
is 2.1e-8 in exact arithmetic; the rest is float32 rounding.

float64 keeps the exact formulas (through `exp`): the kernels' float64 results
match the reference to 1e-10. The choice is made on the argument's type, at
compile time (`overload`) and in plain Python (the CUDA simulator runs these
as Python), so the CPU and CUDA targets compute the same thing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

__all__ = ["ONE", "TANH_LIMIT", "gate_sigmoid", "gate_tanh"]

_F = np.float32
TANH_LIMIT = 9.02
"""Where float32 tanh reaches +-1: the rational form is evaluated on [-TANH_LIMIT, TANH_LIMIT]."""

# tanh(x) ~ x * P(x^2) / Q(x^2), coefficients from degree 0 up (Q's constant is 1).
_P0, _P1, _P2, _P3, _P4 = (
    _F(0.9999999790354783),
    _F(0.13379720638616616),
    _F(0.0034940376940929083),
    _F(2.058353004236864e-05),
    _F(1.331913411445602e-08),
)
_Q1, _Q2, _Q3, _Q4 = (
    _F(0.46713035883292425),
    _F(0.025871085304643597),
    _F(0.0003283097845002186),
    _F(7.762046045870431e-07),
)
_ONE, _HALF, _LIMIT = _F(1.0), _F(0.5), _F(TANH_LIMIT)
ONE = _ONE
"""1 as float32: `ONE - x` stays float32 for float32 x (a literal 1.0 is float64 in numba,
and the conversions halve the vector width) and is exact for float64 x."""


@register_jitable
def _tanh_rational(x: Any) -> Any:
    v = min(max(x, -_LIMIT), _LIMIT)
    t = v * v
    p = _P0 + t * (_P1 + t * (_P2 + t * (_P3 + t * _P4)))
    q = _ONE + t * (_Q1 + t * (_Q2 + t * (_Q3 + t * _Q4)))
    # Rounding may carry the quotient a few ulp past 1; tanh's derivative 1 - y^2 must stay >= 0.
    return min(max(v * p / q, -_ONE), _ONE)


def _sigmoid_rational(x: Any) -> Any:
    return _HALF + _HALF * _tanh_rational(_HALF * x)


def _tanh_exp(x: Any) -> Any:
    # sign(x) (1 - e) / (1 + e) with e = exp(-2|x|) <= 1: one exp, nothing overflows.
    e = math.exp(-2.0 * abs(x))
    return math.copysign((1.0 - e) / (1.0 + e), x)


def _sigmoid_exp(x: Any) -> Any:
    return 1.0 / (1.0 + math.exp(-x))


def gate_tanh(x: Any) -> Any:
    """tanh(x): rational in float32 (vectorizable), through `exp` otherwise."""
    # float64 out, not a Python float: with a Python float, `ONE - y` would round to float32.
    return _tanh_rational(x) if isinstance(x, np.float32) else np.float64(_tanh_exp(x))


def gate_sigmoid(x: Any) -> Any:
    """1 / (1 + exp(-x)): through the rational tanh in float32, through `exp` otherwise."""
    return (
        _sigmoid_rational(x)
        if isinstance(x, np.float32)
        else np.float64(_sigmoid_exp(x))
    )


@overload(gate_tanh)
def _gate_tanh_typed(x: Any) -> Any:
    return _tanh_rational if x == types.float32 else _tanh_exp


@overload(gate_sigmoid)
def _gate_sigmoid_typed(x: Any) -> Any:
    return _sigmoid_rational if x == types.float32 else _sigmoid_exp
