"""Image operations with MindSpore's names (`cadence.dataset.vision`).

They work on numpy arrays: eagerly on one image (`vision.HWC2CHW()(image)`) or
inside `Dataset.map`, where cadence applies them to many images at once. The
older spellings `vision.c_transforms` and `vision.py_transforms` hold the same
operations.

Layer rule: as `cadence.dataset`, of which it is a part.
"""

from __future__ import annotations

from ..._util import fixup_module_metadata
from ._color import (
    AutoContrast,
    ConvertColor,
    ConvertMode,
    Equalize,
    Grayscale,
    Invert,
    RandomColorAdjust,
    RandomSolarize,
)
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
from ._erase import RandomErasing
from ._filters import GaussianBlur, RandomSharpness
from ._geometry import RandomAffine, RandomRotation
from ._ops import HWC2CHW, Normalize, Rescale, ToTensor, ToType
from ._resize import Inter, RandomResize, Resize
from ._resized_crop import RandomCropDecodeResize, RandomResizedCrop

__all__ = [
    "HWC2CHW",
    "AutoContrast",
    "Border",
    "CenterCrop",
    "ConvertColor",
    "ConvertMode",
    "CutOut",
    "Decode",
    "Equalize",
    "GaussianBlur",
    "Grayscale",
    "Inter",
    "Invert",
    "Normalize",
    "Pad",
    "RandomAffine",
    "RandomColorAdjust",
    "RandomCrop",
    "RandomCropDecodeResize",
    "RandomErasing",
    "RandomHorizontalFlip",
    "RandomResize",
    "RandomResizedCrop",
    "RandomRotation",
    "RandomSharpness",
    "RandomSolarize",
    "RandomVerticalFlip",
    "Rescale",
    "Resize",
    "ToPIL",
    "ToTensor",
    "ToType",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata
