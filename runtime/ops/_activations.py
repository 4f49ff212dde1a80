"""Activation functions beyond the kernel-backed ones, composed from differentiable ops.

`elu`, `softplus`, `relu6`, `hardsigmoid`, `hardswish`, `softsign` and the
per-element sigmoid cross-entropy: each is a short formula over `_functional`,
`_elementwise` and `_nn`, so its gradient comes from theirs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _elementwise as e, _functional as f, _nn as n

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = [
    "elu",
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
