"""MindSpore's `mindspore.nn.loss.loss` path (`from mindspore.nn.loss.loss import LossBase`)."""

from __future__ import annotations

from .._loss import *  # noqa: F403 (the same objects as `cadence.nn`)
from .._loss import __all__ as __all__
