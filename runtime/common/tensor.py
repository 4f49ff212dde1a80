"""MindSpore's `mindspore.common.tensor` path (`from mindspore.common.tensor import Tensor`)."""

from __future__ import annotations

from ..compute._tensor import Tensor

__all__ = ["Tensor"]
