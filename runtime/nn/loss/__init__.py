"""MindSpore's `mindspore.nn.loss` path: the loss cells (`SoftmaxCrossEntropyWithLogits`, `LossBase`, ...) of `cadence.nn`.

`mindspore.nn.loss.loss`, where model-zoo code imports `LossBase` from, is the
submodule `loss` here.

Layer rule: part of `cadence.nn` (imports only `cadence.nn`'s own modules).
"""

from __future__ import annotations

from .._loss import *  # noqa: F403 (the same objects as `cadence.nn`, under MindSpore's submodule name)
from .._loss import __all__ as _cells
from .._loss_functional import *  # noqa: F403
from .._loss_functional import __all__ as _functional

__all__ = [*_cells, *_functional]
