"""Image operations on numpy arrays: `Rescale`, `Normalize`, `HWC2CHW`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_bool, check_number
from .._dtypes import to_numpy_dtype
from .._transform import UnaryOperation
from ..transforms._ops import TypeCast

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._block import Array

__all__ = [
    "HWC2CHW",
    "Normalize",
    "Rescale",
    "ToTensor",
    "ToType",
    "check_size",
    "sample_ndim",
]


def sample_ndim(x: Array, batched: bool, op: str, layouts: str) -> int:
    """Return the rank of one image, checking it is 2 or 3."""
    ndim = x.ndim - int(batched)
    if ndim not in (2, 3):
        shape = x.shape[1:] if batched else x.shape
        raise RuntimeError(
            f"{op}: the image must have shape {layouts}, but got shape {tuple(shape)}."
        )
    return ndim


def check_size(size: Any, owner: str) -> tuple[int, ...]:
    """Return a `size` argument (an int or a sequence of 1 or 2 positive ints) as a tuple."""
    values = [size] if isinstance(size, int) and not isinstance(size, bool) else size
    if (
        not isinstance(values, list | tuple)
        or len(values) not in (1, 2)
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    ):
        raise TypeError(
            f"For '{owner}', the argument 'size' must be an int or a sequence of 1 or 2 ints, but got {size!r}."
        )
    if any(v <= 0 for v in values):
        raise ValueError(
            f"For '{owner}', every value of 'size' must be positive, but got {size!r}."
        )
    return tuple(values)


class Rescale(UnaryOperation):
    """Compute `image * rescale + shift` as float32.

    Args:
        rescale: The scale factor.
        shift: The offset added after scaling.

    Raises:
        TypeError: If `rescale` or `shift` is not a number.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.Rescale(1.0 / 255.0, 0)(np.array([[0, 255]], dtype=np.uint8))
        array([[0., 1.]], dtype=float32)
    """

    def __init__(self, rescale: float, shift: float) -> None:
        self.rescale = check_number(rescale, "rescale", "Rescale")
        self.shift = check_number(shift, "shift", "Rescale")

    def _apply(self, x: Array, batched: bool) -> Array:
        out = x.astype(np.float32)  # always a fresh array, so scaling in place is safe
        out *= np.float32(self.rescale)
        if self.shift:
            out += np.float32(self.shift)
        return out


class Normalize(UnaryOperation):
    """Compute `(image - mean) / std` per channel, as float32.

    Args:
        mean: One mean per channel (or one for all), each in [0, 255].
        std: One standard deviation per channel (or one for all), each in (0, 255].
        is_hwc: Whether images are <H, W, C> (True) or <C, H, W> (False).
            <H, W> images count as one channel.

    Raises:
        TypeError: If `mean` or `std` is not a list/tuple of numbers, or `is_hwc` not a bool.
        ValueError: If their lengths differ or a value is out of range.
        RuntimeError: When applied, if the image's channel count matches neither
            the number of means nor 1.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.Normalize(mean=(0.5,), std=(0.25,))(np.ones((1, 2, 1), np.float32))
        array([[[2.],
                [2.]]], dtype=float32)
    """

    def __init__(
        self, mean: Sequence[float], std: Sequence[float], is_hwc: bool = True
    ) -> None:
        owner = "Normalize"
        self.mean = _channel_values(mean, "mean", owner)
        self.std = _channel_values(std, "std", owner)
        if len(self.mean) != len(self.std):
            raise ValueError(
                f"For '{owner}', 'mean' and 'std' must have the same length, but got {len(self.mean)} and {len(self.std)}."
            )
        if any(not 0.0 <= m <= 255.0 for m in self.mean):
            raise ValueError(
                f"For '{owner}', every value of 'mean' must be in [0, 255], but got {self.mean!r}."
            )
        if any(not 0.0 < s <= 255.0 for s in self.std):
            raise ValueError(
                f"For '{owner}', every value of 'std' must be in (0, 255], but got {self.std!r}."
            )
        self.is_hwc = check_bool(is_hwc, "is_hwc", owner)
        # Broadcastable forms for <H, W, C> (or <H, W>) and <C, H, W> images, built once.
        shape = (-1,) if is_hwc else (-1, 1, 1)
        self._mean = np.asarray(self.mean, dtype=np.float32).reshape(shape)
        self._std = np.asarray(self.std, dtype=np.float32).reshape(shape)

    def _apply(self, x: Array, batched: bool) -> Array:
        layouts = "<H, W> or <H, W, C>" if self.is_hwc else "<H, W> or <C, H, W>"
        ndim = sample_ndim(x, batched, "Normalize", layouts)
        channels = 1 if ndim == 2 else x.shape[-1 if self.is_hwc else -3]
        count = len(self.mean)
        if count not in (1, channels):
            raise RuntimeError(
                f"Normalize: the image has {channels} channels, but 'mean' and 'std' have {count} values."
            )
        mean, std = (
            (self._mean.ravel()[0], self._std.ravel()[0])
            if ndim == 2
            else (self._mean, self._std)
        )
        out = np.subtract(x, mean, dtype=np.float32)
        out /= std
        return out


def _channel_values(value: Any, name: str, owner: str) -> list[float]:
    if not isinstance(value, list | tuple) or not value:
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a non-empty list or tuple of numbers, but got {value!r}."
        )
    return [check_number(v, name, owner) for v in value]


class HWC2CHW(UnaryOperation):
    """Transpose an image from <H, W, C> to <C, H, W>; <H, W> images pass unchanged.

    Raises:
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.HWC2CHW()(np.zeros((28, 28, 1), np.uint8)).shape
        (1, 28, 28)
    """

    def _apply(self, x: Array, batched: bool) -> Array:
        if sample_ndim(x, batched, "HWC2CHW", "<H, W> or <H, W, C>") == 2:
            return x
        return np.ascontiguousarray(x.transpose((0, 3, 1, 2) if batched else (2, 0, 1)))

    def __repr__(self) -> str:
        return "HWC2CHW()"


class ToTensor(UnaryOperation):
    """Turn an <H, W, C> image with values in [0, 255] into <C, H, W> in [0.0, 1.0].

    As MindSpore's `ToTensor`: the image is divided by 255 and transposed; an
    <H, W> image becomes <1, H, W>.

    Args:
        output_type: The output dtype (a numpy or cadence float type), float32
            by default.

    Raises:
        TypeError: If `output_type` is not a numeric dtype.
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> out = vision.ToTensor()(np.full((2, 3, 3), 255, np.uint8))
        >>> out.shape, out.dtype, float(out.max())
        ((3, 2, 3), dtype('float32'), 1.0)
    """

    def __init__(self, output_type: Any = np.float32) -> None:
        self.output_type = to_numpy_dtype(output_type, "output_type", "ToTensor")

    def _apply(self, x: Array, batched: bool) -> Array:
        if sample_ndim(x, batched, "ToTensor", "<H, W> or <H, W, C>") == 2:
            x = x[..., np.newaxis]
        scaled = np.divide(
            x, 255.0, dtype=np.float64 if self.output_type.itemsize > 4 else np.float32
        )
        moved = np.moveaxis(scaled, -1, 1 if batched else 0)
        return np.ascontiguousarray(moved, dtype=self.output_type)


class ToType(TypeCast):
    """`transforms.TypeCast` under MindSpore's `vision` name: cast images to `data_type`.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.ToType(np.float32)(np.array([[1, 2]], np.uint8)).dtype
        dtype('float32')
    """

    def __init__(self, data_type: Any) -> None:
        self.data_type = to_numpy_dtype(data_type, "data_type", "ToType")
