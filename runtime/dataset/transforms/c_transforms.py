"""`mindspore.dataset.transforms.c_transforms`, the pre-2.0 spelling: the operations of `cadence.dataset.transforms`."""

from __future__ import annotations

from . import *  # noqa: F403
from . import __all__ as _names

__all__ = [name for name in _names if name != "TensorOperation"]
