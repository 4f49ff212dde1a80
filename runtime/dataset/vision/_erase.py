"""`RandomErasing`: overwrite a random rectangle of <C, H, W> images (after `ToTensor`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_bool, check_int, check_number
from .._random import augmentation_rng
from .._transform import UnaryOperation
from ._params import check_range, each_image

if TYPE_CHECKING:
    from .._block import Array

__all__ = ["RandomErasing"]


def _erase_value(value: Any, owner: str) -> float | tuple[float, ...] | str:
    if value == "random":
        return "random"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, list | tuple) and len(value) == 3:
        return tuple(check_number(v, "value", owner) for v in value)
    raise ValueError(
        f"For '{owner}', the argument 'value' must be a number, the string 'random', or 3 numbers "
        f"(one per channel), but got {value!r}."
    )


class RandomErasing(UnaryOperation):
    """With probability `prob`, overwrite one random rectangle of each <C, H, W> image.

    The rectangle covers a random share (`scale`) of the image, with a random
    aspect ratio (`ratio`, drawn on a log scale); up to `max_attempts` draws
    are tried until one fits, else the image stays as it is.

    Args:
        prob: The probability of erasing, in [0, 1].
        scale: The (min, max) share of the image area erased, in [0, 1].
        ratio: The (min, max) aspect ratio (height / width) of the rectangle, > 0.
        value: The value written: a number, one per channel (3), or "random"
            (standard normal noise).
        inplace: Accepted for compatibility (cadence never writes into its input).
        max_attempts: Draws tried per image, >= 1.

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: When applied to an array that is not <C, H, W>.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> from cadence.dataset import vision
        >>> ds.config.set_seed(0)
        >>> out = vision.RandomErasing(prob=1.0, value=0)(np.ones((3, 16, 16), np.float32))
        >>> bool((out == 0).any()), out.shape
        (True, (3, 16, 16))
    """

    def __init__(
        self,
        prob: float = 0.5,
        scale: tuple[float, float] = (0.02, 0.33),
        ratio: tuple[float, float] = (0.3, 3.3),
        value: float | tuple[float, float, float] | str = 0,
        inplace: bool = False,
        max_attempts: int = 10,
    ) -> None:
        owner = "RandomErasing"
        self.prob = check_number(prob, "prob", owner, minimum=0.0, maximum=1.0)
        self.scale = check_range(scale, "scale", owner, (0.0, 1.0))
        self.ratio = check_range(ratio, "ratio", owner, (0.0, math.inf))
        if self.ratio[0] <= 0:
            raise ValueError(
                f"For '{owner}', the values of 'ratio' must be > 0, but got {ratio!r}."
            )
        self.value = _erase_value(value, owner)
        self.inplace = check_bool(inplace, "inplace", owner)
        self.max_attempts = check_int(max_attempts, "max_attempts", owner, minimum=1)

    def _apply(self, x: Array, batched: bool) -> Array:
        if x.ndim - int(batched) != 3:
            raise RuntimeError(
                f"RandomErasing: the image must be <C, H, W> (after ToTensor), but got shape "
                f"{tuple(x.shape[int(batched) :])}."
            )
        return each_image(x, batched, self._erase, augmentation_rng())

    def _erase(self, image: Array, rng: np.random.Generator) -> Array:
        if rng.random() >= self.prob:
            return image
        channels, height, width = image.shape
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_ratio))
            h = round(math.sqrt(target * aspect))
            w = round(math.sqrt(target / aspect))
            if 0 < h < height and 0 < w < width:
                top = int(rng.integers(0, height - h + 1))
                left = int(rng.integers(0, width - w + 1))
                out = image.copy()
                if self.value == "random":
                    patch = rng.standard_normal((channels, h, w))
                else:
                    patch = np.asarray(self.value, np.float64).reshape(-1, 1, 1)
                out[:, top : top + h, left : left + w] = patch
                return out
        return image
