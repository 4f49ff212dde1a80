"""MindSpore's `mindspore.nn.optim.momentum` path (`from mindspore.nn.optim.momentum import Momentum`)."""

from __future__ import annotations

from .._optim import Momentum

__all__ = ["Momentum"]
