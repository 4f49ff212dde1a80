"""MindSpore's `mindspore.nn.wrap.grad_reducer` path (`from ... import DistributedGradReducer`)."""

from __future__ import annotations

from .._distributed import DistributedGradReducer

__all__ = ["DistributedGradReducer"]
