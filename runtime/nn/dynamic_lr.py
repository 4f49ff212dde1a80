"""MindSpore's `mindspore.nn.dynamic_lr`: learning rates as one list entry per step."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..validation import check_bool
from ._lr import (
    check_decay,
    check_polynomial,
    check_steps,
    exponential,
    inverse,
    natural_exp,
    polynomial,
    pos_float,
    pos_int,
)

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "cosine_decay_lr",
    "exponential_decay_lr",
    "inverse_decay_lr",
    "natural_exp_decay_lr",
    "piecewise_constant_lr",
    "polynomial_decay_lr",
    "warmup_lr",
]


def _epoch_decay(
    name: str,
    rule: Callable[[float, int, int, bool], float],
    args: tuple[float, float, int, int, int, bool],
) -> list[float]:
    """learning_rate * rule(decay_rate, epoch, decay_epoch, is_stair) at each step, the arguments checked."""
    learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair = args
    lr, rate, span, stair = check_decay(
        name, learning_rate, decay_rate, ("decay_epoch", decay_epoch), is_stair
    )
    check_steps(name, total_step, step_per_epoch, ("decay_epoch", span))
    return [
        lr * rule(rate, i // step_per_epoch, span, stair) for i in range(total_step)
    ]


# The three decays differ only in their rule (see _lr.py); one line states each signature.
def exponential_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int, decay_epoch: int, is_stair: bool = False) -> list[float]:  # fmt: skip
    """Return per-step rates learning_rate * decay_rate ** (epoch / decay_epoch) (floored when `is_stair`)."""
    return _epoch_decay("exponential_decay_lr", exponential, (learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair))  # fmt: skip


def natural_exp_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int, decay_epoch: int, is_stair: bool = False) -> list[float]:  # fmt: skip
    """Return per-step rates learning_rate * e ** (-decay_rate * epoch).

    As in MindSpore, the exponent counts whole epochs (not epochs / `decay_epoch`);
    with `is_stair` the epoch is rounded down to a multiple of `decay_epoch`.
    """
    return _epoch_decay("natural_exp_decay_lr", natural_exp, (learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair))  # fmt: skip


def inverse_decay_lr(learning_rate: float, decay_rate: float, total_step: int, step_per_epoch: int, decay_epoch: int, is_stair: bool = False) -> list[float]:  # fmt: skip
    """Return per-step rates learning_rate / (1 + decay_rate * epoch / decay_epoch) (floored when `is_stair`)."""
    return _epoch_decay("inverse_decay_lr", inverse, (learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair))  # fmt: skip


def polynomial_decay_lr(
    learning_rate: float,
    end_learning_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    power: float,
    update_decay_epoch: bool = False,
) -> list[float]:
    """Return per-step rates (learning_rate - end) * (1 - epoch / decay_epoch) ** power + end.

    The epoch stops at `decay_epoch`; with `update_decay_epoch` it goes on and
    the span grows instead, to the next multiple of `decay_epoch` (at least one).
    """
    owner = "polynomial_decay_lr"
    check_polynomial(owner, learning_rate, end_learning_rate, power)
    check_steps(owner, total_step, step_per_epoch, ("decay_epoch", decay_epoch))
    check_bool(update_decay_epoch, "update_decay_epoch", owner)
    delta = learning_rate - end_learning_rate
    out = []
    for i in range(total_step):
        epoch = i // step_per_epoch
        span = decay_epoch
        if update_decay_epoch:
            span = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            epoch = min(epoch, decay_epoch)
        out.append(polynomial(delta, end_learning_rate, power, epoch, span))
    return out


def cosine_decay_lr(
    min_lr: float, max_lr: float, total_step: int, step_per_epoch: int, decay_epoch: int
) -> list[float]:
    """Return per-step rates following half a cosine from `max_lr` to `min_lr` over `decay_epoch` epochs."""
    owner = "cosine_decay_lr"
    if not isinstance(min_lr, (int, float)) or min_lr < 0:  # type: ignore[redundant-expr]
        raise ValueError(
            f"For '{owner}', the argument 'min_lr' must be a float >= 0, but got {min_lr!r}."
        )
    pos_float(owner, "max_lr", max_lr)
    if min_lr >= max_lr:
        raise ValueError(
            f"For '{owner}', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr!r}, min_lr={min_lr!r}."
        )
    check_steps(owner, total_step, step_per_epoch, ("decay_epoch", decay_epoch))
    delta = 0.5 * (max_lr - min_lr)
    return [
        min_lr
        + delta
        * (1 + math.cos(math.pi * min(i // step_per_epoch, decay_epoch) / decay_epoch))
        for i in range(total_step)
    ]


def piecewise_constant_lr(
    milestone: list[int], learning_rates: list[float]
) -> list[float]:
    """Return rates holding `learning_rates[i]` until step `milestone[i]` (milestones increasing)."""
    owner = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)) or not isinstance(  # type: ignore[redundant-expr]
        learning_rates, (list, tuple)
    ):
        raise TypeError(
            f"For '{owner}', 'milestone' and 'learning_rates' must be lists, but got {milestone!r} and {learning_rates!r}."
        )
    if len(milestone) != len(learning_rates):
        raise ValueError(
            f"For '{owner}', 'milestone' and 'learning_rates' must have the same length, but got {len(milestone)} and {len(learning_rates)}."
        )
    out: list[float] = []
    last = 0
    for m, lr in zip(milestone, learning_rates, strict=True):
        pos_int(owner, "milestone", m)
        if m <= last:
            raise ValueError(
                f"For '{owner}', 'milestone' must be strictly increasing, but got {milestone!r}."
            )
        out.extend([float(lr)] * (m - last))
        last = m
    return out


def warmup_lr(
    learning_rate: float, total_step: int, step_per_epoch: int, warmup_epoch: int
) -> list[float]:
    """Return rates rising linearly to `learning_rate` over `warmup_epoch` epochs."""
    owner = "warmup_lr"
    pos_float(owner, "learning_rate", learning_rate)
    check_steps(owner, total_step, step_per_epoch, ("warmup_epoch", warmup_epoch))
    return [
        learning_rate * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch
        for i in range(total_step)
    ]
