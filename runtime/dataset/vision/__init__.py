"""Image operations with MindSpore's names (`cadence.dataset.vision`).

They work on numpy arrays: eagerly on one image (`vision.HWC2CHW()(image)`) or
inside `Dataset.map`, where cadence applies them to many images at once. The
older spellings `vision.c_transforms` and `vision.py_transforms` hold the same
operations.

Layer rule: as `cadence.dataset`, of which it is a part.
"""

from __future__ import annotations

from ..._util import fixup_module_metadata
from ._crop import (
    Border,
    CenterCrop,
    CutOut,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomVerticalFlip,
)
from ._decode import Decode, ToPIL
from ._ops import HWC2CHW, Normalize, Rescale, ToTensor
from ._resize import Inter, Resize
from ._resized_crop import RandomCropDecodeResize, RandomResizedCrop

__all__ = [
    "HWC2CHW",
    "Border",
    "CenterCrop",
    "CutOut",
    "Decode",
    "Inter",
    "Normalize",
    "Pad",
    "RandomCrop",
    "RandomCropDecodeResize",
    "RandomHorizontalFlip",
    "RandomResizedCrop",
    "RandomVerticalFlip",
    "Rescale",
    "Resize",
    "ToPIL",
    "ToTensor",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
