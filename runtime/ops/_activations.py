"""Activation functions beyond the kernel-backed ones, composed from differentiable ops.

`gelu`, `elu`, `softplus`, `relu6`, `hardsigmoid`, `hardswish`, `softsign` and the
per-element sigmoid cross-entropy: each is a short formula over `_functional`,
`_elementwise` and `_nn`, so its gradient comes from theirs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from . import _elementwise as e, _functional as f, _nn as n

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = [
    "elu",
    "gelu",
    "hardsigmoid",
    "hardswish",
    "relu6",
    "sigmoid_cross_entropy_with_logits",
    "softplus",
    "softsign",
]


def relu6(input: Any) -> Tensor:
    """min(max(x, 0), 6)."""
    return f.clip(input, 0.0, 6.0)


def gelu(input: Any, approximate: str = "none") -> Tensor:
    """X * P(X <= x) for a standard normal X: exact (`'none'`) or the tanh approximation (`'tanh'`)."""
    x = f.as_tensor(input)
    if approximate == "tanh":
        inner = f.mul(math.sqrt(2 / math.pi), f.add(x, f.mul(0.044715, f.pow(x, 3))))
        return f.mul(f.mul(0.5, x), f.add(1.0, n.tanh(inner)))
    if approximate != "none":
        raise ValueError(
            f"For 'gelu', the argument 'approximate' must be 'none' or 'tanh', but got {approximate!r}."
        )
    return f.mul(f.mul(0.5, x), f.add(1.0, e.erf(f.div(x, math.sqrt(2)))))


def elu(input_x: Any, alpha: float = 1.0) -> Tensor:
    """X for x > 0, alpha * (exp(x) - 1) otherwise."""
    x = f.as_tensor(input_x)
    negative = f.mul(
        alpha, e.expm1(f.minimum(x, 0.0))
    )  # minimum: no overflow on the unused side
    return e.select(f.greater(x, 0), x, negative)


def softplus(input: Any, beta: float = 1, threshold: float = 20) -> Tensor:
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""
    x = f.as_tensor(input)
    scaled = f.mul(x, beta)
    smooth = f.div(e.log1p(f.exp(f.minimum(scaled, threshold))), beta)
    return e.select(f.greater(scaled, threshold), x, smooth)


def hardsigmoid(input: Any) -> Tensor:
    """relu6(x + 3) / 6."""
    return f.div(relu6(f.add(input, 3.0)), 6.0)


def hardswish(input: Any) -> Tensor:
    """X * relu6(x + 3) / 6."""
    return f.mul(input, hardsigmoid(input))


def softsign(input: Any) -> Tensor:
    """X / (1 + |x|)."""
    return f.div(input, f.add(1.0, f.abs(input)))


def sigmoid_cross_entropy_with_logits(logits: Any, label: Any) -> Tensor:
    """Per-element binary cross-entropy of sigmoid(logits) and `label`, computed stably."""
    x = f.as_tensor(logits)
    stable = e.log1p(f.exp(f.neg(f.abs(x))))
    return f.add(f.sub(n.relu(x), f.mul(x, label)), stable)
