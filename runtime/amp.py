"""MindSpore's `mindspore.amp` path: the loss-scale managers `Model(..., loss_scale_manager=...)` takes.

`FixedLossScaleManager`, `DynamicLossScaleManager` and their base
`LossScaleManager` (defined in `cadence.nn._loss_scale`, beside the cells they
build), and for functional training steps `all_finite` with the loss scalers
`StaticLossScaler`, `DynamicLossScaler` and their base `LossScaler`
(`cadence.nn._loss_scalers`). Mixed precision itself (`amp_level` "O1"-"O3") is not here: cadence
trains in float32 (see docs/mindspore-differences.md).

Layer rule: a facade for MindSpore's import path (imports `cadence.nn` only).
"""

from __future__ import annotations

from .nn._loss_scale import (
    DynamicLossScaleManager,
    FixedLossScaleManager,
    LossScaleManager,
)
from .nn._loss_scalers import (
    DynamicLossScaler,
    LossScaler,
    StaticLossScaler,
    all_finite,
)

__all__ = [
    "DynamicLossScaleManager",
    "DynamicLossScaler",
    "FixedLossScaleManager",
    "LossScaleManager",
    "LossScaler",
    "StaticLossScaler",
    "all_finite",
]
