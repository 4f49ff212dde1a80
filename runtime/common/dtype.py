"""MindSpore's `mindspore.common.dtype` path (`import mindspore.common.dtype as mstype`): `cadence.dtype` under that name."""

from __future__ import annotations

from ..dtype import *  # noqa: F403 (one list of dtypes, in cadence.dtype)
from ..dtype import __all__ as __all__
