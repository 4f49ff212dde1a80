"""MindSpore's `mindspore.nn.wrap.cell_wrapper` path (`TrainOneStepCell`, `WithLossCell`, `WithEvalCell`)."""

from __future__ import annotations

from .._wrap import *  # noqa: F403 (the same objects as `cadence.nn`)
from .._wrap import __all__ as __all__
