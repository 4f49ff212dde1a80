"""MindSpore's `mindspore.amp` path: loss-scale managers and the mixed-precision builders.

`FixedLossScaleManager`, `DynamicLossScaleManager` and their base
`LossScaleManager` (defined in `cadence.nn._loss_scale`, beside the cells they
build); `build_train_network`, `auto_mixed_precision` and `all_finite` (in
`cadence.nn._amp`); for functional training steps the loss scalers `StaticLossScaler`,
`DynamicLossScaler` and their base `LossScaler` (`cadence.nn._loss_scalers`). Mixed
precision itself (`amp_level` "O1"-"O3") casts nothing: cadence trains in float32 (see
docs/mindspore-differences.md).

Layer rule: a facade for MindSpore's import path (imports `cadence.nn` only).
"""

from __future__ import annotations

from .nn._amp import all_finite, auto_mixed_precision, build_train_network
from .nn._loss_scale import (
    DynamicLossScaleManager,
    FixedLossScaleManager,
    LossScaleManager,
)
from .nn._loss_scalers import DynamicLossScaler, LossScaler, StaticLossScaler

__all__ = [
    "DynamicLossScaleManager",
    "DynamicLossScaler",
    "FixedLossScaleManager",
    "LossScaleManager",
    "LossScaler",
    "StaticLossScaler",
    "all_finite",
    "auto_mixed_precision",
    "build_train_network",
]
