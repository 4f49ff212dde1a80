"""MindSpore's `mindspore.nn.optim.optimizer` path (`from mindspore.nn.optim.optimizer import Optimizer`)."""

from __future__ import annotations

from .._optim import Optimizer

__all__ = ["Optimizer"]
