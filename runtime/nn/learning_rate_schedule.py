"""MindSpore's `mindspore.nn.learning_rate_schedule`: cells giving the learning rate of a step."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_bool
from . import _lr
from ._cell import Cell

__all__ = [
    "CosineDecayLR",
    "ExponentialDecayLR",
    "InverseDecayLR",
    "LearningRateSchedule",
    "NaturalExpDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
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


class _StepDecayLR(LearningRateSchedule):
    """learning_rate * rule(decay_rate, step, decay_steps, is_stair), for the rule of the subclass.

    Args:
        learning_rate: Initial rate.
        decay_rate: Decay factor.
        decay_steps: Steps per decay.
        is_stair: Decay in steps instead of continuously.
    """

    rule: ClassVar[staticmethod[[float, int, int, bool], float]]

    def __init__(
        self,
        learning_rate: float,
        decay_rate: float,
        decay_steps: int,
        is_stair: bool = False,
    ) -> None:
        super().__init__()
        self.learning_rate, self.decay_rate, self.decay_steps, self.is_stair = (
            _lr.check_decay(
                type(self).__name__,
                learning_rate,
                decay_rate,
                ("decay_steps", decay_steps),
                is_stair,
            )
        )

    def _rate(self, step: int) -> float:
        factor = type(self).rule(self.decay_rate, step, self.decay_steps, self.is_stair)
        return self.learning_rate * factor


class ExponentialDecayLR(_StepDecayLR):
    """learning_rate * decay_rate ** (step / decay_steps), floored exponent when `is_stair`."""

    rule = staticmethod(_lr.exponential)


class NaturalExpDecayLR(_StepDecayLR):
    """learning_rate * e ** (-decay_rate * step); with `is_stair` the step rounds down to a multiple of `decay_steps`.

    As in MindSpore, the exponent counts steps, not steps / `decay_steps`.
    """

    rule = staticmethod(_lr.natural_exp)


class InverseDecayLR(_StepDecayLR):
    """learning_rate / (1 + decay_rate * step / decay_steps), the quotient floored when `is_stair`."""

    rule = staticmethod(_lr.inverse)


class PolynomialDecayLR(LearningRateSchedule):
    """(learning_rate - end_learning_rate) * (1 - step / decay_steps) ** power + end_learning_rate.

    Args:
        learning_rate: Initial rate.
        end_learning_rate: Final rate.
        decay_steps: Steps of the decay; the step stops there.
        power: Exponent of the polynomial.
        update_decay_steps: Let the step go on and grow the span to the next
            multiple of `decay_steps` instead.
    """

    def __init__(
        self,
        learning_rate: float,
        end_learning_rate: float,
        decay_steps: int,
        power: float,
        update_decay_steps: bool = False,
    ) -> None:
        super().__init__()
        owner = "PolynomialDecayLR"
        _lr.check_polynomial(owner, learning_rate, end_learning_rate, power)
        self.decay_steps = _lr.pos_int(owner, "decay_steps", decay_steps)
        self.update_decay_steps = check_bool(
            update_decay_steps, "update_decay_steps", owner
        )
        self.start_learning_rate = float(learning_rate)
        self.end_learning_rate = float(end_learning_rate)
        self.power = float(power)

    def _rate(self, step: int) -> float:
        span = self.decay_steps
        if self.update_decay_steps:
            span *= max(math.ceil(step / span), 1)
        else:
            step = min(step, span)
        delta = self.start_learning_rate - self.end_learning_rate
        return _lr.polynomial(delta, self.end_learning_rate, self.power, step, span)


class WarmUpLR(LearningRateSchedule):
    """learning_rate * min(step, warmup_steps) / warmup_steps.

    Args:
        learning_rate: The rate reached at the end of the warm-up.
        warmup_steps: Steps of the warm-up.
    """

    def __init__(self, learning_rate: float, warmup_steps: int) -> None:
        super().__init__()
        if (
            not isinstance(learning_rate, (int, float))  # type: ignore[redundant-expr]
            or isinstance(learning_rate, bool)
            or learning_rate < 0
        ):
            raise ValueError(
                f"For 'WarmUpLR', the argument 'learning_rate' must be a float >= 0, but got {learning_rate!r}."
            )
        self.learning_rate = float(learning_rate)
        self.warmup_steps = _lr.pos_int("WarmUpLR", "warmup_steps", warmup_steps)

    def _rate(self, step: int) -> float:
        return self.learning_rate * min(step, self.warmup_steps) / self.warmup_steps


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
        self.max_lr = _lr.pos_float("CosineDecayLR", "max_lr", max_lr)
        self.decay_steps = _lr.pos_int("CosineDecayLR", "decay_steps", decay_steps)

    def _rate(self, step: int) -> float:
        p = min(step, self.decay_steps) / self.decay_steps
        return self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (
            1 + math.cos(math.pi * p)
        )
