"""Crops, padding, flips and cut-outs: `RandomCrop`, `CenterCrop`, `Pad`, `CutOut`, `RandomHorizontalFlip`, `RandomVerticalFlip`.

Inside `Dataset.map` they run on a block of same-sized images at once: every
image draws its own crop offset or flip, drawn for the whole block in one call. Random draws come from the dataset random source (`augmentation_rng`),
so `set_seed` makes them reproducible.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_bool, check_number
from .._checks import check_int
from .._random import augmentation_rng
from .._transform import UnaryOperation
from ._ops import check_size, sample_ndim

if TYPE_CHECKING:
    from .._block import Array

__all__ = [
    "Border",
    "CenterCrop",
    "CutOut",
    "Pad",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "check_hw",
    "fill_values",
]

_LAYOUTS = "<H, W> or <H, W, C>"


class Border(enum.Enum):
    """How `RandomCrop` fills its padding, with MindSpore's names."""

    CONSTANT = "constant"  # the fill value
    EDGE = "edge"  # the last pixel, repeated
    REFLECT = "reflect"  # mirrored without the edge pixel: 3 2 | 1 2 3 | 2 1
    SYMMETRIC = "symmetric"  # mirrored with the edge pixel: 2 1 | 1 2 3 | 3 2


def check_hw(size: Any, owner: str) -> tuple[int, int]:
    """Return a crop or output `size` (one int for a square, or (height, width)) as (height, width)."""
    values = check_size(size, owner)
    return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])


def _ints(value: Any, lengths: tuple[int, ...]) -> list[int] | None:
    """`value` (an int, or a list or tuple of ints) as a list; None unless it holds one of `lengths` ints."""
    values = (
        [value] if isinstance(value, int) and not isinstance(value, bool) else value
    )
    if (
        not isinstance(values, list | tuple)
        or len(values) not in lengths
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    ):
        return None
    return list(values)


def _padding(padding: Any, owner: str) -> tuple[int, int, int, int]:
    """Return (top, bottom, left, right) from MindSpore's padding forms.

    As MindSpore: a TypeError for what is not ints, a ValueError for a wrong count or value.
    """
    if padding is None:
        return (0, 0, 0, 0)
    values = _ints(padding, (1, 2, 4))
    if values is None:
        wrong_count = (
            _ints(padding, tuple(range(len(padding) + 1)))
            if isinstance(padding, list | tuple)
            else None
        )
        raise (ValueError if wrong_count is not None else TypeError)(
            f"For '{owner}', the argument 'padding' must be an int or a sequence of 2 or 4 ints "
            f"(left, top, right, bottom), but got {padding!r}."
        )
    if any(v < 0 for v in values):
        raise ValueError(
            f"For '{owner}', every value of 'padding' must be >= 0, but got {padding!r}."
        )
    if len(values) == 1:
        return (values[0],) * 4
    if len(values) == 2:  # (left and right, top and bottom)
        return (values[1], values[1], values[0], values[0])
    left, top, right, bottom = values
    return (top, bottom, left, right)


def fill_values(fill_value: Any, owner: str) -> tuple[int, ...]:
    """Return a `fill_value` argument (an int in [0, 255], or 3 of them) as a tuple."""
    values = _ints(fill_value, (1, 3))
    in_range = values is not None and all(0 <= v <= 255 for v in values)
    if not in_range:
        raise (TypeError if values is None else ValueError)(
            f"For '{owner}', the argument 'fill_value' must be an int in [0, 255] or a tuple of 3 of them, but got {fill_value!r}."
        )
    assert values is not None
    return tuple(values)


def _check_border(padding_mode: Any, owner: str) -> Border:
    if not isinstance(padding_mode, Border):
        raise TypeError(
            f"For '{owner}', the argument 'padding_mode' must be a Border, but got {padding_mode!r}."
        )
    return padding_mode


def pad_images(
    x: Array,
    h_axis: int,
    pads: tuple[int, int, int, int],
    mode: Border = Border.CONSTANT,
    fill: tuple[int, ...] = (0,),
) -> Array:
    """Pad the height and width axes (`h_axis`, `h_axis + 1`) by (top, bottom, left, right)."""
    if not any(pads):
        return x
    top, bottom, left, right = pads
    width = [(0, 0)] * x.ndim
    width[h_axis], width[h_axis + 1] = (top, bottom), (left, right)
    if mode is not Border.CONSTANT:
        padded: Array = np.pad(x, width, mode=mode.value)
        return padded
    shape = list(x.shape)
    shape[h_axis] += top + bottom
    shape[h_axis + 1] += left + right
    out = np.empty(shape, dtype=x.dtype)
    has_channels = x.ndim - h_axis == 3
    if len(fill) == 3 and not (has_channels and x.shape[-1] == 3):
        raise RuntimeError(
            f"RandomCrop: a 3-value 'fill_value' {fill} needs 3-channel <H, W, C> images, but got shape {x.shape[h_axis:]}."
        )
    out[...] = np.asarray(fill if len(fill) == 3 else fill[0], dtype=x.dtype)
    inner = [slice(None)] * x.ndim
    inner[h_axis] = slice(top, top + x.shape[h_axis])
    inner[h_axis + 1] = slice(left, left + x.shape[h_axis + 1])
    out[tuple(inner)] = x
    return out


def crop_at(x: Array, batched: bool, top: Array, left: Array, h: int, w: int) -> Array:
    """Crop an `h` x `w` window at (`top`, `left`) out of each image (one offset per image when batched)."""
    if not batched:
        t, c = int(top[0]), int(left[0])
        return np.ascontiguousarray(x[t : t + h, c : c + w])
    # One slice copy per image: 60x faster than a fancy-index gather of every pixel.
    out = np.empty((len(x), h, w, *x.shape[3:]), dtype=x.dtype)
    for i, (t, c) in enumerate(zip(top.tolist(), left.tolist(), strict=True)):
        out[i] = x[i, t : t + h, c : c + w]
    return out


class RandomCrop(UnaryOperation):
    """Crop a random window of `size` out of each image, after optional padding.

    The CIFAR recipe `RandomCrop((32, 32), (4, 4, 4, 4))` pads 4 pixels on
    every side and crops 32x32 back at a random offset.

    Args:
        size: (height, width) of the crop, or one int for a square.
        padding: Pixels to pad first: one int for every side, (left and
            right, top and bottom), or (left, top, right, bottom). None: no padding.
        pad_if_needed: Pad an image smaller than `size` up to it.
        fill_value: The value of constant padding, one int or one per RGB channel.
        padding_mode: A `Border` (default `Border.CONSTANT`).

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: When applied, if an image (after padding) is smaller than
            `size` and `pad_if_needed` is False, or is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> from cadence.dataset import vision
        >>> ds.config.set_seed(0)
        >>> vision.RandomCrop((32, 32), (4, 4, 4, 4))(np.zeros((32, 32, 3), np.uint8)).shape
        (32, 32, 3)
    """

    def __init__(
        self,
        size: int | tuple[int, int],
        padding: int | tuple[int, ...] | None = None,
        pad_if_needed: bool = False,
        fill_value: int | tuple[int, int, int] = 0,
        padding_mode: Border = Border.CONSTANT,
    ) -> None:
        owner = "RandomCrop"
        self.size = check_hw(size, owner)
        self.padding = padding
        self._pads = _padding(padding, owner)
        self.pad_if_needed = check_bool(pad_if_needed, "pad_if_needed", owner)
        self.fill_value = fill_value
        self._fill = fill_values(fill_value, owner)
        self.padding_mode = _check_border(padding_mode, owner)

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, "RandomCrop", _LAYOUTS)
        h_axis = x.ndim - ndim
        x = pad_images(x, h_axis, self._pads, self.padding_mode, self._fill)
        h, w = self.size
        height, width = x.shape[h_axis], x.shape[h_axis + 1]
        if self.pad_if_needed and (height < h or width < w):
            grow_h, grow_w = max(0, h - height), max(0, w - width)
            extra = (grow_h, grow_h, grow_w, grow_w)  # both sides, as MindSpore
            x = pad_images(x, h_axis, extra, self.padding_mode, self._fill)
            height, width = x.shape[h_axis], x.shape[h_axis + 1]
        if height < h or width < w:
            raise RuntimeError(
                f"RandomCrop: the crop size {self.size} is bigger than the image ({height}, {width}) after padding; "
                "pass pad_if_needed=True or a smaller size."
            )
        count = len(x) if batched else 1
        rng = augmentation_rng()
        top = rng.integers(0, height - h + 1, size=count)
        left = rng.integers(0, width - w + 1, size=count)
        return crop_at(x, batched, top, left, h, w)


class Pad(UnaryOperation):
    """Pad each image on its four sides.

    Args:
        padding: One int for every side, (left and right, top and bottom), or
            (left, top, right, bottom).
        fill_value: The value of constant padding, one int or one per RGB channel.
        padding_mode: A `Border` (default `Border.CONSTANT`).

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: When applied, if an image is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.Pad([1, 2])(np.ones((2, 2, 3), np.uint8)).shape
        (6, 4, 3)
    """

    def __init__(
        self,
        padding: int | tuple[int, ...] | list[int],
        fill_value: int | tuple[int, int, int] = 0,
        padding_mode: Border = Border.CONSTANT,
    ) -> None:
        self.padding = padding
        self._pads = _padding(padding, "Pad")
        self.fill_value = fill_value
        self._fill = fill_values(fill_value, "Pad")
        self.padding_mode = _check_border(padding_mode, "Pad")

    def _apply(self, x: Array, batched: bool) -> Array:
        h_axis = x.ndim - sample_ndim(x, batched, "Pad", _LAYOUTS)
        return pad_images(x, h_axis, self._pads, self.padding_mode, self._fill)


class CutOut(UnaryOperation):
    """Set `num_patches` random `length` x `length` squares of each image to 0.

    Each square lies wholly inside the image; squares may overlap.

    Args:
        length: The side of a square, >= 1.
        num_patches: How many squares per image, >= 1.
        is_hwc: Whether 3-D images are <H, W, C> (True) or <C, H, W>.

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: When applied, if an image is smaller than `length` or not 2-D or 3-D.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> out = vision.CutOut(2)(np.ones((4, 4, 3), np.uint8))
        >>> int((out == 0).all(axis=2).sum())
        4
    """

    def __init__(self, length: int, num_patches: int = 1, is_hwc: bool = True) -> None:
        self.length = check_int(length, "length", "CutOut", minimum=1)
        self.num_patches = check_int(num_patches, "num_patches", "CutOut", minimum=1)
        self.is_hwc = check_bool(is_hwc, "is_hwc", "CutOut")

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, "CutOut", "<H, W>, <H, W, C> or <C, H, W>")
        h_axis = x.ndim - ndim + (1 if ndim == 3 and not self.is_hwc else 0)
        height, width, n = x.shape[h_axis], x.shape[h_axis + 1], self.length
        if height < n or width < n:
            raise RuntimeError(
                f"CutOut: a {n}x{n} patch does not fit in an image of {height}x{width}."
            )
        images = x.reshape(-1, *x.shape[x.ndim - ndim :]) if batched else x[np.newaxis]
        out = images.copy()
        rng = augmentation_rng()
        tops = rng.integers(0, height - n + 1, size=(len(out), self.num_patches))
        lefts = rng.integers(0, width - n + 1, size=(len(out), self.num_patches))
        window = [slice(None)] * ndim
        for i in range(len(out)):
            for top, left in zip(tops[i].tolist(), lefts[i].tolist(), strict=True):
                window[h_axis - (x.ndim - ndim)] = slice(top, top + n)
                window[h_axis - (x.ndim - ndim) + 1] = slice(left, left + n)
                out[i][tuple(window)] = 0
        return out if batched else out[0]


class CenterCrop(UnaryOperation):
    """Crop the central window of `size`; an image smaller than `size` is padded with zeros first.

    Args:
        size: (height, width) of the crop, or one int for a square.

    Raises:
        TypeError, ValueError: If `size` is not one or two positive ints.
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.CenterCrop(2)(np.arange(16).reshape(4, 4)).tolist()
        [[5, 6], [9, 10]]
    """

    def __init__(self, size: int | tuple[int, int]) -> None:
        self.size = check_hw(size, "CenterCrop")

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, "CenterCrop", _LAYOUTS)
        h_axis = x.ndim - ndim
        h, w = self.size
        grow_h = max(0, h - x.shape[h_axis])
        grow_w = max(0, w - x.shape[h_axis + 1])
        x = pad_images(
            x,
            h_axis,
            # the odd pixel goes on top / on the left, as in MindSpore
            (grow_h - grow_h // 2, grow_h // 2, grow_w - grow_w // 2, grow_w // 2),
        )
        top = (x.shape[h_axis] - h) // 2
        left = (x.shape[h_axis + 1] - w) // 2
        window = [slice(None)] * x.ndim
        window[h_axis] = slice(top, top + h)
        window[h_axis + 1] = slice(left, left + w)
        return np.ascontiguousarray(x[tuple(window)])


class _RandomFlip(UnaryOperation):
    """Flip each image along `_axis` (0: rows, 1: columns) with probability `prob`."""

    _axis = 1

    def __init__(self, prob: float = 0.5) -> None:
        self.prob = check_number(
            prob, "prob", type(self).__name__, minimum=0.0, maximum=1.0
        )

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, type(self).__name__, _LAYOUTS)
        axis = x.ndim - ndim + self._axis
        count = len(x) if batched else 1
        flip = augmentation_rng().random(count) < self.prob
        if not batched:
            return np.flip(x, axis).copy() if flip[0] else x
        out = x.copy()
        out[flip] = np.flip(x[flip], axis)
        return out


class RandomHorizontalFlip(_RandomFlip):
    """Mirror each image left-right with probability `prob` (default 0.5).

    Raises:
        TypeError, ValueError: If `prob` is not a number in [0, 1].

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.RandomHorizontalFlip(prob=1.0)(np.array([[1, 2, 3]])).tolist()
        [[3, 2, 1]]
    """

    _axis = 1


class RandomVerticalFlip(_RandomFlip):
    """Mirror each image top-bottom with probability `prob` (default 0.5).

    Raises:
        TypeError, ValueError: If `prob` is not a number in [0, 1].
    """

    _axis = 0
