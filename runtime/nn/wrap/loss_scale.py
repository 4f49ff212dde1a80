"""MindSpore's `mindspore.nn.wrap.loss_scale` path (`TrainOneStepWithLossScaleCell`, the update cells)."""

from __future__ import annotations

from .._loss_scale import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepWithLossScaleCell,
)

__all__ = [
    "DynamicLossScaleUpdateCell",
    "FixedLossScaleUpdateCell",
    "TrainOneStepWithLossScaleCell",
]
