"""MindSpore's `mindspore.common.parameter` path (`from mindspore.common.parameter import Parameter`)."""

from __future__ import annotations

from ..compute._tensor import Parameter, ParameterTuple

__all__ = ["Parameter", "ParameterTuple"]
