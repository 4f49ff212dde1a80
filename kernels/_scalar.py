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
    "adam_step",
    "momentum_step",
    "relu",
    "relu_grad",
    "sgd_step",
    "sigmoid",
    "sigmoid_grad",
    "tanh",
    "tanh_grad",
]


def relu(x: float) -> float:
    """max(x, 0): +0.0 for every x <= 0 (also -0.0 and -inf), NaN for NaN (as cadence's max/min)."""
    return x if x > 0 or x != x else 0.0


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
        return x if x > 0 or x != x else 0.0
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


def sgd_step(
    p: float,
    g: float,
    accum: float,
    stat: float,
    lr: float,
    momentum: float,
    dampening: float,
    wd: float,
    nesterov: bool,
) -> tuple[float, float, float]:
    """MindSpore's SGD for one element: the new (param, accum, stat).

    Weight decay, then momentum (the first step, stat > 0, seeds accum), then the step.
    """
    gi = g + wd * p if wd != 0 else g
    if momentum > 0:
        accum = gi if stat > 0 else momentum * accum + (1 - dampening) * gi
        stat = 0.0
        gi = gi + momentum * accum if nesterov else accum
    return p - lr * gi, accum, stat


def momentum_step(
    p: float,
    g: float,
    moment: float,
    lr: float,
    momentum: float,
    wd: float,
    nesterov: bool,
) -> tuple[float, float]:
    """MindSpore's ApplyMomentum for one element: the new (param, moment)."""
    gi = g + wd * p if wd != 0 else g
    mo = momentum * moment + gi
    return p - (lr * gi + lr * momentum * mo if nesterov else lr * mo), mo


def adam_step(
    p: float,
    g: float,
    m: float,
    v: float,
    alpha: float,
    beta1: float,
    beta2: float,
    eps: float,
    wd: float,
    nesterov: bool,
) -> tuple[float, float, float]:
    """Adam for one element, bias correction folded into `alpha`: the new (param, m, v)."""
    gi = g + wd * p if wd != 0 else g
    mi = beta1 * m + (1 - beta1) * gi
    vi = beta2 * v + (1 - beta2) * gi * gi
    num = beta1 * mi + (1 - beta1) * gi if nesterov else mi
    return p - alpha * num / (math.sqrt(vi) + eps), mi, vi
