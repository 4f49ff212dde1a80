"""Learning-rate schedules: list builders (`exponential_decay_lr`, ...) and schedule cells."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ._cell import Cell

__all__ = [
    "CosineDecayLR",
    "ExponentialDecayLR",
    "LearningRateSchedule",
    "cosine_decay_lr",
    "exponential_decay_lr",
    "piecewise_constant_lr",
    "warmup_lr",
]


def _pos_int(owner: str, name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be a positive int, but got {value!r}."
        )
    return value


def _check_steps(
    owner: str, total_step: Any, step_per_epoch: Any, epochs: tuple[str, Any]
) -> None:
    # The step counts every schedule takes, and its own count of epochs (named).
    _pos_int(owner, "total_step", total_step)
    _pos_int(owner, "step_per_epoch", step_per_epoch)
    _pos_int(owner, *epochs)


def _pos_float(owner: str, name: str, value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be a float > 0, but got {value!r}."
        )
    return float(value)


def exponential_decay_lr(
    learning_rate: float,
    decay_rate: float,
    total_step: int,
    step_per_epoch: int,
    decay_epoch: int,
    is_stair: bool = False,
) -> list[float]:
    """Return per-step rates learning_rate * decay_rate ** (epoch / decay_epoch) (floored when `is_stair`)."""
    owner = "exponential_decay_lr"
    _pos_float(owner, "learning_rate", learning_rate)
    _pos_float(owner, "decay_rate", decay_rate)
    _check_steps(owner, total_step, step_per_epoch, ("decay_epoch", decay_epoch))
    out = []
    for i in range(total_step):
        p = math.floor(i / step_per_epoch) / decay_epoch
        out.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
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
    _pos_float(owner, "max_lr", max_lr)
    if min_lr >= max_lr:
        raise ValueError(
            f"For '{owner}', 'max_lr' must be greater than 'min_lr', but got max_lr={max_lr!r}, min_lr={min_lr!r}."
        )
    _check_steps(owner, total_step, step_per_epoch, ("decay_epoch", decay_epoch))
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
        _pos_int(owner, "milestone", m)
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
    _pos_float(owner, "learning_rate", learning_rate)
    _check_steps(owner, total_step, step_per_epoch, ("warmup_epoch", warmup_epoch))
    return [
        learning_rate * min(math.floor(i / step_per_epoch), warmup_epoch) / warmup_epoch
        for i in range(total_step)
    ]


class LearningRateSchedule(Cell):
    """Base of schedule cells: `construct(global_step) -> Tensor` learning rate."""

    def _rate(self, step: int) -> float:
        raise NotImplementedError

    def construct(self, global_step: Any) -> Tensor:
        """Return the rate at `global_step`."""
        step = int(
            np.asarray(
                global_step.asnumpy()
                if isinstance(global_step, Tensor)
                else global_step
            ).reshape(-1)[0]
        )
        return Tensor(np.asarray(self._rate(step), np.float32))


class ExponentialDecayLR(LearningRateSchedule):
    """learning_rate * decay_rate ** (step / decay_steps), floored exponent when `is_stair`.

    Args:
        learning_rate: Initial rate.
        decay_rate: Decay factor.
        decay_steps: Steps per decay.
        is_stair: Decay in steps instead of continuously.
    """

    def __init__(
        self,
        learning_rate: float,
        decay_rate: float,
        decay_steps: int,
        is_stair: bool = False,
    ) -> None:
        super().__init__()
        self.learning_rate = _pos_float(
            "ExponentialDecayLR", "learning_rate", learning_rate
        )
        self.decay_rate = _pos_float("ExponentialDecayLR", "decay_rate", decay_rate)
        self.decay_steps = _pos_int("ExponentialDecayLR", "decay_steps", decay_steps)
        self.is_stair = is_stair

    def _rate(self, step: int) -> float:
        p = step / self.decay_steps
        return self.learning_rate * self.decay_rate ** (
            math.floor(p) if self.is_stair else p
        )


class CosineDecayLR(LearningRateSchedule):
    """min_lr + 0.5 * (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps)).

    Args:
        min_lr: Final rate.
        max_lr: Initial rate.
        decay_steps: Steps of the decay.
    """

    def __init__(self, min_lr: float, max_lr: float, decay_steps: int) -> None:
        super().__init__()
        if not isinstance(min_lr, (int, float)) or min_lr < 0:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For 'CosineDecayLR', the argument 'min_lr' must be a float >= 0, but got {min_lr!r}."
            )
        self.min_lr = float(min_lr)
        self.max_lr = _pos_float("CosineDecayLR", "max_lr", max_lr)
        self.decay_steps = _pos_int("CosineDecayLR", "decay_steps", decay_steps)

    def _rate(self, step: int) -> float:
        p = min(step, self.decay_steps) / self.decay_steps
        return self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (
            1 + math.cos(math.pi * p)
        )
