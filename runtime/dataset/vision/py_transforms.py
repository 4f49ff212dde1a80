"""`mindspore.dataset.vision.py_transforms`, the pre-2.0 Python operations, over cadence's.

MindSpore's Python operations pass PIL images between `Decode` and `ToTensor`;
cadence's operations all take numpy arrays, so the same chains run on arrays.
One operation differs from `cadence.dataset.vision`: `Normalize` here takes
<C, H, W> images, as it follows `ToTensor` in these chains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import (
    HWC2CHW,
    Border,
    CenterCrop,
    Decode,
    Inter,
    Normalize as _Normalize,
    RandomCrop,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomVerticalFlip,
    Resize,
    ToPIL,
    ToTensor,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "HWC2CHW",
    "Border",
    "CenterCrop",
    "Decode",
    "Inter",
    "Normalize",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomResizedCrop",
    "RandomVerticalFlip",
    "Resize",
    "ToPIL",
    "ToTensor",
]


class Normalize(_Normalize):
    """`(image - mean) / std` per channel of a <C, H, W> image (what `ToTensor` returns).

    Args:
        mean: One mean per channel (or one for all).
        std: One standard deviation per channel (or one for all).

    Raises:
        TypeError, ValueError: As `cadence.dataset.vision.Normalize`.
    """

    def __init__(self, mean: Sequence[float], std: Sequence[float]) -> None:
        super().__init__(mean, std, is_hwc=False)
