"""MindSpore's `mindspore.nn.learning_rate_schedule` path: the schedule cells of `cadence.nn`."""

from __future__ import annotations

from ._lr import CosineDecayLR, ExponentialDecayLR, LearningRateSchedule

__all__ = ["CosineDecayLR", "ExponentialDecayLR", "LearningRateSchedule"]
