"""MindSpore's `mindspore.amp` path: the loss-scale managers `Model(..., loss_scale_manager=...)` takes.

`FixedLossScaleManager`, `DynamicLossScaleManager` and their base
`LossScaleManager` (defined in `cadence.nn._loss_scale`, beside the cells they
build). Mixed precision itself (`amp_level` "O1"-"O3") is not here: cadence
trains in float32 (see docs/mindspore-differences.md).

Layer rule: a facade for MindSpore's import path (imports `cadence.nn` only).
"""

from __future__ import annotations

from .nn._loss_scale import (
    DynamicLossScaleManager,
    FixedLossScaleManager,
    LossScaleManager,
)

__all__ = ["DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager"]
