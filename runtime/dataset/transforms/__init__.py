"""General dataset operations with MindSpore's names (`cadence.dataset.transforms`).

Layer rule: as `cadence.dataset`, of which it is a part.
"""

from __future__ import annotations

from ..._util import fixup_module_metadata
from .._transform import TensorOperation
from ._ops import Compose, Concatenate, Duplicate, OneHot, PadEnd, Slice, TypeCast

__all__ = [
    "Compose",
    "Concatenate",
    "Duplicate",
    "OneHot",
    "PadEnd",
    "Slice",
    "TensorOperation",
    "TypeCast",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
