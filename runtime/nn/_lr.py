"""What MindSpore's learning-rate lists (`dynamic_lr`) and schedule cells (`learning_rate_schedule`) share.

The argument checks, and the decay rules written once for both: a rule maps
(decay_rate, count, span, is_stair) to the factor of the initial rate, where
the lists count epochs and the cells count steps.
"""

from __future__ import annotations

import math
from typing import Any

from ..validation import check_bool

__all__: list[str] = []


def pos_int(owner: str, name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be a positive int, but got {value!r}."
        )
    return value


def check_steps(
    owner: str, total_step: Any, step_per_epoch: Any, epochs: tuple[str, Any]
) -> None:
    # The step counts every schedule takes, and its own count of epochs (named).
    pos_int(owner, "total_step", total_step)
    pos_int(owner, "step_per_epoch", step_per_epoch)
    pos_int(owner, *epochs)


def pos_float(owner: str, name: str, value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be a float > 0, but got {value!r}."
        )
    return float(value)


def check_decay(
    owner: str,
    learning_rate: Any,
    decay_rate: Any,
    span: tuple[str, Any],
    is_stair: Any,
) -> tuple[float, float, int, bool]:
    """Check the arguments of the exponential, natural-exponential and inverse decays."""
    return (
        pos_float(owner, "learning_rate", learning_rate),
        pos_float(owner, "decay_rate", decay_rate),
        pos_int(owner, *span),
        check_bool(is_stair, "is_stair", owner),
    )


def exponential(rate: float, count: int, span: int, stair: bool) -> float:
    """decay_rate ** (count / span), the exponent floored when `stair`."""
    return rate ** (count // span if stair else count / span)


def natural_exp(rate: float, count: int, span: int, stair: bool) -> float:
    """E ** (-decay_rate * count): MindSpore divides by no span here; `stair` rounds count down to one."""
    return math.exp(-rate * (count // span * span if stair else count))


def inverse(rate: float, count: int, span: int, stair: bool) -> float:
    """1 / (1 + decay_rate * count / span), the quotient floored when `stair`."""
    return 1 / (1 + rate * (count // span if stair else count / span))


def polynomial(
    delta: float, end: float, power: float, done: float, span: float
) -> float:
    return float(delta * (1 - done / span) ** power + end)


def check_polynomial(
    owner: str, learning_rate: Any, end_learning_rate: Any, power: Any
) -> None:
    pos_float(owner, "learning_rate", learning_rate)
    pos_float(owner, "power", power)
    if (
        not isinstance(end_learning_rate, (int, float))
        or isinstance(end_learning_rate, bool)
        or end_learning_rate < 0
    ):
        raise ValueError(
            f"For '{owner}', the argument 'end_learning_rate' must be a float >= 0, but got {end_learning_rate!r}."
        )
