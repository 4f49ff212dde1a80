"""Per-element math written once, as plain Python; each target builds it (numba.jit, cuda.jit).

Functions take and return scalars only and call no other function of this
module (a target compiles each one alone), so the same source compiles for
every target and runs unmodified as Python in tests.
"""

from __future__ import annotations

import math

__all__ = [
    "act",
    "act_grad",
    "adam_param",
    "relu",
    "relu_grad",
    "sigmoid",
    "sigmoid_grad",
    "tanh",
    "tanh_grad",
]


def relu(x: float) -> float:
    """max(x, 0)."""
    return x if x > 0 else 0.0 * x


def relu_grad(y: float) -> float:
    """Derivative of relu, from its output."""
    return 1.0 if y > 0 else 0.0


def sigmoid(x: float) -> float:
    """1 / (1 + exp(-x)) without overflow."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def sigmoid_grad(y: float) -> float:
    """Derivative of sigmoid, from its output."""
    return y * (1.0 - y)


def tanh(x: float) -> float:
    """Hyperbolic tangent."""
    return math.tanh(x)


def tanh_grad(y: float) -> float:
    """Derivative of tanh, from its output."""
    return 1.0 - y * y


def act(x: float, code: int) -> float:
    """Activation by code: 0 identity, 1 relu, 2 sigmoid, 3 tanh (self-contained: targets compile it alone)."""
    if code == 1:
        return x if x > 0 else 0.0 * x
    if code == 2:
        if x >= 0:
            return 1.0 / (1.0 + math.exp(-x))
        e = math.exp(x)
        return e / (1.0 + e)
    if code == 3:
        return math.tanh(x)
    return x


def act_grad(y: float, code: int) -> float:
    """Derivative of `act` by code, from its output."""
    if code == 1:
        return 1.0 if y > 0 else 0.0
    if code == 2:
        return y * (1.0 - y)
    if code == 3:
        return 1.0 - y * y
    return 1.0


def adam_param(
    m: float, v: float, g: float, alpha: float, beta1: float, eps: float, nesterov: bool
) -> float:
    """The Adam step for one element, from the updated moments."""
    num = beta1 * m + (1.0 - beta1) * g if nesterov else m
    return alpha * num / (math.sqrt(v) + eps)
