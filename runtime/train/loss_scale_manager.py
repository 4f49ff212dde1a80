"""MindSpore's `mindspore.train.loss_scale_manager` path: the loss-scale managers (as `cadence.amp`)."""

from __future__ import annotations

from ..amp import DynamicLossScaleManager, FixedLossScaleManager, LossScaleManager

__all__ = ["DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager"]
