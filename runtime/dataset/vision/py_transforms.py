"""`mindspore.dataset.vision.py_transforms`, the pre-2.0 Python operations, over cadence's.

MindSpore's Python operations pass PIL images between `Decode` and `ToTensor`;
cadence's operations all take numpy arrays, so the same chains run on arrays.
One operation differs from `cadence.dataset.vision`: `Normalize` here takes
<C, H, W> images, as it follows `ToTensor` in these chains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import (
    HWC2CHW as HWC2CHW,
    Border as Border,
    CenterCrop as CenterCrop,
    Decode as Decode,
    Inter as Inter,
    Normalize as _Normalize,
    RandomCrop as RandomCrop,
    RandomHorizontalFlip as RandomHorizontalFlip,
    RandomResizedCrop as RandomResizedCrop,
    RandomVerticalFlip as RandomVerticalFlip,
    Resize as Resize,
    ToPIL as ToPIL,
    ToTensor as ToTensor,
    __all__ as _vision_names,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

# MindSpore's Python operations had no `Rescale` and no `RandomCropDecodeResize`.
__all__ = [
    name for name in _vision_names if name not in ("Rescale", "RandomCropDecodeResize")
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
