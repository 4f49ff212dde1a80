"""`mindspore.dataset.vision.c_transforms`, the pre-2.0 spelling: the same operations as `cadence.dataset.vision`."""

from __future__ import annotations

from . import *  # noqa: F403
from . import __all__ as _vision_names

# The PIL conversions came with the Python operations (`py_transforms`), not these.
__all__ = [name for name in _vision_names if name not in ("ToPIL", "ToTensor")]
