"""MindSpore's `mindspore.common` namespace: parameter initializers (`cadence.common.initializer`).

Layer rule: builds on the compute package only.
"""

from __future__ import annotations

from . import initializer

__all__ = ["initializer"]
