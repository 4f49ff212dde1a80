"""`RandomResizedCrop` and `RandomCropDecodeResize`: the ImageNet training crop.

A window of random area (a share of the image drawn from `scale`) and random
aspect ratio (drawn log-uniformly from `ratio`) is cut at a random place and
resized to `size`. After `max_attempts` windows that do not fit, the central
window of the largest allowed aspect ratio is used, as in MindSpore.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_number
from .._checks import check_int
from .._random import augmentation_rng
from .._transform import UnaryOperation
from ._crop import check_hw
from ._decode import decode_image
from ._ops import sample_ndim
from ._resize import Inter, check_interpolation, resize_images

if TYPE_CHECKING:
    from .._block import Array

__all__ = ["RandomCropDecodeResize", "RandomResizedCrop"]


def _bounds(value: Any, name: str, owner: str, positive: bool) -> tuple[float, float]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a (min, max) pair of numbers, but got {value!r}."
        )
    low, high = (
        check_number(v, name, owner, minimum=0.0, inclusive=not positive) for v in value
    )
    if low > high:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be (min, max) with min <= max, but got {value!r}."
        )
    return low, high


class RandomResizedCrop(UnaryOperation):
    """Crop a window of random size and aspect ratio, then resize it to `size`.

    Args:
        size: (height, width) of the output, or one int for a square.
        scale: (min, max) share of the image's area the window covers.
        ratio: (min, max) aspect ratio (width / height) of the window.
        interpolation: `Inter.LINEAR` (= `BILINEAR`, the default) or `Inter.NEAREST`.
        max_attempts: Windows drawn before falling back to a central one.

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        NotImplementedError: For interpolation modes cadence does not implement.
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.RandomResizedCrop(24)(np.zeros((40, 50, 3), np.uint8)).shape
        (24, 24, 3)
    """

    _owner = "RandomResizedCrop"

    def __init__(
        self,
        size: int | tuple[int, int],
        scale: tuple[float, float] = (0.08, 1.0),
        ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: Inter = Inter.BILINEAR,
        max_attempts: int = 10,
    ) -> None:
        owner = self._owner
        self.size = check_hw(size, owner)
        self.scale = _bounds(scale, "scale", owner, positive=False)
        self.ratio = _bounds(ratio, "ratio", owner, positive=True)
        self.interpolation = check_interpolation(interpolation, owner)
        self.max_attempts = check_int(max_attempts, "max_attempts", owner, minimum=1)

    def _box(
        self, rng: np.random.Generator, height: int, width: int
    ) -> tuple[int, int, int, int]:
        """Return (top, left, crop height, crop width) for one image."""
        log_low, log_high = math.log(self.ratio[0]), math.log(self.ratio[1])
        for _ in range(self.max_attempts):
            area = height * width * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(log_low, log_high))
            w = max(1, round(math.sqrt(area * aspect)))
            h = max(1, round(w / aspect))
            if w <= width and h <= height:
                top = int(rng.integers(0, height - h + 1))
                left = int(rng.integers(0, width - w + 1))
                return top, left, h, w
        # No window fitted: the central one, clamped to the allowed aspect ratios.
        aspect = width / height
        if aspect < self.ratio[0]:
            w, h = width, min(height, round(width / self.ratio[0]))
        elif aspect > self.ratio[1]:
            h, w = height, min(width, round(height * self.ratio[1]))
        else:
            h, w = height, width
        return (height - h) // 2, (width - w) // 2, h, w

    def _crop_resize(self, image: Array, rng: np.random.Generator) -> Array:
        top, left, h, w = self._box(rng, image.shape[0], image.shape[1])
        window = image[top : top + h, left : left + w]
        return resize_images(window, 0, *self.size, self.interpolation)

    def _apply(self, x: Array, batched: bool) -> Array:
        sample_ndim(x, batched, self._owner, "<H, W> or <H, W, C>")
        rng = augmentation_rng()
        if not batched:
            return self._crop_resize(x, rng)
        # Each image gets its own window, so each is resized on its own.
        return np.stack([self._crop_resize(image, rng) for image in x])


class RandomCropDecodeResize(RandomResizedCrop):
    """`Decode` then `RandomResizedCrop` in one operation, as the ImageNet pipelines chain them.

    It takes image file bytes (as `ImageFolderDataset` yields them without
    `decode=True`); the arguments are `RandomResizedCrop`'s.

    Raises:
        TypeError: When applied to an array that is not 1-d uint8 bytes.
        RuntimeError: When applied, if the bytes are not an image file.
    """

    _owner = "RandomCropDecodeResize"

    def _block_capable(self) -> bool:
        return False  # encoded images differ in length: one at a time

    def _apply(self, x: Array, batched: bool) -> Array:
        return self._crop_resize(decode_image(x, self._owner), augmentation_rng())
