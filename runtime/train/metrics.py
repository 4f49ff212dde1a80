"""MindSpore 2.x's `mindspore.train.metrics` import path: the metrics (`Accuracy`, `Loss`, `Metric`, ...) of `cadence.nn`."""

from __future__ import annotations

from ..nn._metrics import *  # noqa: F403 (the same objects as `cadence.nn`, under MindSpore's submodule name)
from ..nn._metrics import __all__ as __all__
