"""MindSpore's `mindspore.common` namespace: parameter initializers (`cadence.common.initializer`)."""

from __future__ import annotations

from . import initializer

__all__ = ["initializer"]
