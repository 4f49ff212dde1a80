"""General dataset operations with MindSpore's names (`cadence.dataset.transforms`).

Layer rule: as `cadence.dataset`, of which it is a part.
"""

from __future__ import annotations

from ..._util import fixup_module_metadata
from .._transform import TensorOperation
from ._choice import RandomApply, RandomChoice, RandomOrder
from ._ops import Compose, Concatenate, Duplicate, OneHot, PadEnd, Slice, TypeCast
from ._values import Fill, Mask, Relational, Unique

__all__ = [
    "Compose",
    "Concatenate",
    "Duplicate",
    "Fill",
    "Mask",
    "OneHot",
    "PadEnd",
    "RandomApply",
    "RandomChoice",
    "RandomOrder",
    "Relational",
    "Slice",
    "TensorOperation",
    "TypeCast",
    "Unique",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
