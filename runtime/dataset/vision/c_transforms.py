"""`mindspore.dataset.vision.c_transforms`, the pre-2.0 spelling: the same operations as `cadence.dataset.vision`."""

from __future__ import annotations

from . import (
    HWC2CHW,
    Border,
    CenterCrop,
    Decode,
    Inter,
    Normalize,
    RandomCrop,
    RandomCropDecodeResize,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomVerticalFlip,
    Rescale,
    Resize,
)

__all__ = [
    "HWC2CHW",
    "Border",
    "CenterCrop",
    "Decode",
    "Inter",
    "Normalize",
    "RandomCrop",
    "RandomCropDecodeResize",
    "RandomHorizontalFlip",
    "RandomResizedCrop",
    "RandomVerticalFlip",
    "Rescale",
    "Resize",
]
