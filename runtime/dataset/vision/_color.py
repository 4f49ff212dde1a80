"""Color operations: `Invert`, `Grayscale`, `ConvertColor`, `Equalize`, `AutoContrast`, `RandomColorAdjust`, `RandomSolarize`.

The arithmetic follows what MindSpore 2.10 runs underneath (OpenCV for numpy
images, Pillow for `Grayscale`): gray is OpenCV's fixed-point
`(9798 R + 19235 G + 3735 B + 2**14) >> 15` (Pillow's for `Grayscale`),
`Equalize` is OpenCV's `equalizeHist` per channel and `AutoContrast` Pillow's
`autocontrast` per channel; results are recorded on MindSpore in
tests/dataset/mindspore_vision.json.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ...validation import check_int, check_number
from .._random import augmentation_rng
from .._transform import UnaryOperation
from ._hsv import shift_hue
from ._ops import sample_ndim
from ._params import (
    check_range,
    each_channel,
    each_image,
    rgb_images,
    to_dtype_of,
    uint8_images,
)

if TYPE_CHECKING:
    from .._block import Array

__all__ = [
    "AutoContrast",
    "ConvertColor",
    "ConvertMode",
    "Equalize",
    "Grayscale",
    "Invert",
    "RandomColorAdjust",
    "RandomSolarize",
    "opencv_gray",
]


def opencv_gray(rgb: Array) -> Array:
    """Gray of <..., 3> RGB values as OpenCV computes it: fixed point for uint8, else float32."""
    if rgb.dtype == np.uint8:
        r, g, b = (rgb[..., i].astype(np.int32) for i in range(3))
        return ((9798 * r + 19235 * g + 3735 * b + (1 << 14)) >> 15).astype(np.uint8)
    weights = np.array([0.299, 0.587, 0.114], dtype=np.float32)
    gray: Array = (rgb.astype(np.float32) * weights).sum(axis=-1, dtype=np.float32)
    return gray


class Invert(UnaryOperation):
    """Invert each pixel: `255 - value` (in the image's dtype), for <H, W> and <H, W, C> images.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> pixel = np.array([[[0, 100, 255]]], np.uint8)
        >>> vision.Invert()(pixel).tolist()
        [[[255, 155, 0]]]
    """

    def _apply(self, x: Array, batched: bool) -> Array:
        sample_ndim(x, batched, "Invert", "<H, W> or <H, W, C>")
        out: Array = np.subtract(x.dtype.type(255), x, dtype=x.dtype)
        return out

    def __repr__(self) -> str:
        return "Invert()"


class Grayscale(UnaryOperation):
    """Turn RGB <H, W, 3> uint8 images gray, with Pillow's weights (MindSpore converts a PIL image).

    Args:
        num_output_channels: 1 (<H, W> output) or 3 (the gray value in every channel).

    Raises:
        TypeError, ValueError: If `num_output_channels` is not 1 or 3.
        RuntimeError: When applied to an image that is not uint8 <H, W, 3>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.Grayscale()(np.array([[[255, 0, 0], [0, 255, 0]]], np.uint8)).tolist()
        [[76, 150]]
    """

    def __init__(self, num_output_channels: int = 1) -> None:
        channels = check_int(num_output_channels, "num_output_channels", "Grayscale")
        if channels not in (1, 3):
            raise ValueError(
                f"For 'Grayscale', the argument 'num_output_channels' must be 1 or 3, but got {channels}."
            )
        self.num_output_channels = channels

    def _apply(self, x: Array, batched: bool) -> Array:
        rgb_images(x, batched, "Grayscale")
        if x.dtype != np.uint8:
            raise RuntimeError(
                f"Grayscale: the image must be uint8, but got {x.dtype}."
            )
        r, g, b = (x[..., i].astype(np.int32) for i in range(3))
        gray = ((19595 * r + 38470 * g + 7471 * b + 0x8000) >> 16).astype(np.uint8)
        if self.num_output_channels == 1:
            return gray
        return np.repeat(gray[..., np.newaxis], 3, axis=-1)


class ConvertMode(enum.IntEnum):
    """The color conversions of `ConvertColor`, with MindSpore's names and values."""

    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


# Per mode: the input channel count, the input channels taken (in order), whether
# they are turned gray (read as R, G, B), and whether an opaque alpha is appended.
_CONVERSIONS: dict[ConvertMode, tuple[int, tuple[int, ...], bool, bool]] = {
    ConvertMode.COLOR_BGR2BGRA: (3, (0, 1, 2), False, True),
    ConvertMode.COLOR_BGRA2BGR: (4, (0, 1, 2), False, False),
    ConvertMode.COLOR_BGR2RGBA: (3, (2, 1, 0), False, True),
    ConvertMode.COLOR_RGBA2BGR: (4, (2, 1, 0), False, False),
    ConvertMode.COLOR_BGR2RGB: (3, (2, 1, 0), False, False),
    ConvertMode.COLOR_BGRA2RGBA: (4, (2, 1, 0, 3), False, False),
    ConvertMode.COLOR_BGR2GRAY: (3, (2, 1, 0), True, False),
    ConvertMode.COLOR_RGB2GRAY: (3, (0, 1, 2), True, False),
    ConvertMode.COLOR_GRAY2BGR: (1, (0, 0, 0), False, False),
    ConvertMode.COLOR_GRAY2BGRA: (1, (0, 0, 0), False, True),
    ConvertMode.COLOR_BGRA2GRAY: (4, (2, 1, 0), True, False),
    ConvertMode.COLOR_RGBA2GRAY: (4, (0, 1, 2), True, False),
}


class ConvertColor(UnaryOperation):
    """Convert images between RGB, BGR, their alpha forms and gray, as OpenCV's `cvtColor`.

    Gray input is <H, W> (or <H, W, 1>); gray output is <H, W>. An appended alpha
    channel is opaque: 255 for uint8, 1.0 for float images.

    Args:
        convert_mode: A `ConvertMode`.

    Raises:
        TypeError: If `convert_mode` is not a `ConvertMode`.
        RuntimeError: When applied, if the image's channel count does not fit the mode.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.ConvertColor(vision.ConvertMode.COLOR_RGB2BGR)(np.array([[[1, 2, 3]]], np.uint8)).tolist()
        [[[3, 2, 1]]]
    """

    def __init__(self, convert_mode: ConvertMode) -> None:
        if not isinstance(convert_mode, ConvertMode):
            raise TypeError(
                f"For 'ConvertColor', the argument 'convert_mode' must be a ConvertMode, but got {convert_mode!r}."
            )
        self.convert_mode = convert_mode

    def _apply(self, x: Array, batched: bool) -> Array:
        channels, take, to_gray, alpha = _CONVERSIONS[self.convert_mode]
        ndim = sample_ndim(x, batched, "ConvertColor", "<H, W> or <H, W, C>")
        have = 1 if ndim == 2 else x.shape[-1]
        if have != channels:
            raise RuntimeError(
                f"ConvertColor: {self.convert_mode.name} needs images of {channels} channel(s), but got "
                f"shape {tuple(x.shape[int(batched) :])}."
            )
        pixels = x[..., np.newaxis] if ndim == 2 else x
        out = pixels[..., list(take)]
        if to_gray:
            return opencv_gray(out)
        if alpha:
            opaque = np.full(
                (*out.shape[:-1], 1), 255 if x.dtype == np.uint8 else 1, x.dtype
            )
            out = np.concatenate([out, opaque], axis=-1)
        return np.ascontiguousarray(out)


def _equalize_channel(values: Array) -> Array:
    """OpenCV's `equalizeHist` on one uint8 channel."""
    hist = np.bincount(values.ravel(), minlength=256)
    first = int(np.flatnonzero(hist)[0])
    if hist[first] == values.size:  # one value: OpenCV leaves it as it is
        return values.copy()
    scale = np.float32(255.0) / np.float32(values.size - hist[first])
    lut = np.rint(np.cumsum(hist).astype(np.float32) * scale - hist[first] * scale)
    lut[:first] = 0
    equalized: Array = np.clip(lut, 0, 255).astype(np.uint8)[values]
    return equalized


class Equalize(UnaryOperation):
    """Equalize the histogram of each channel of uint8 <H, W> or <H, W, C> images (OpenCV's `equalizeHist`).

    Other arrays are a `RuntimeError` when the operation is applied.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> flat = np.array([[10, 20], [20, 30]], np.uint8)
        >>> vision.Equalize()(flat).tolist()
        [[0, 170], [170, 255]]
    """

    def _apply(self, x: Array, batched: bool) -> Array:
        uint8_images(x, batched, "Equalize")
        return each_channel(x, batched, _equalize_channel)

    def __repr__(self) -> str:
        return "Equalize()"


def _autocontrast_channel(values: Array, cutoff: float, ignore: list[int]) -> Array:
    """Pillow's `autocontrast` on one uint8 channel: stretch [lo, hi] to [0, 255]."""
    hist = np.bincount(values.ravel(), minlength=256).astype(np.int64)
    hist[ignore] = 0
    if cutoff:
        hist = _cut_tails(hist, int(hist.sum() * cutoff // 100))
    present = np.flatnonzero(hist)
    if len(present) == 0 or present[-1] <= present[0]:
        return values.copy()
    lo, hi = int(present[0]), int(present[-1])
    # float32, as MindSpore computes it: in float64, 58 * (255 / 58) falls just short of 255
    scale = np.float32(255) / np.float32(hi - lo)
    offset = -np.float32(lo) * scale
    lut = np.clip(
        (np.arange(256, dtype=np.float32) * scale + offset).astype(np.int64), 0, 255
    )
    lut[ignore] = np.asarray(ignore, dtype=np.int64)
    return lut.astype(np.uint8)[values]


def _cut_tails(hist: Array, cut: int) -> Array:
    """Remove `cut` pixels from each end of a histogram (the darkest and the brightest)."""
    out = hist.copy()
    for order in (range(256), range(255, -1, -1)):
        left = cut
        for i in order:
            if left <= 0:
                break
            taken = min(left, int(out[i]))
            out[i] -= taken
            left -= taken
    return out


class AutoContrast(UnaryOperation):
    """Stretch each channel of uint8 images so its darkest pixel becomes 0 and its brightest 255.

    Args:
        cutoff: The percent of pixels to ignore at each end of the histogram, in [0, 50).
        ignore: A pixel value (or list of them) left out of the histogram and left unchanged.

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: When applied to an array that is not uint8 <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.AutoContrast()(np.array([[100, 150], [150, 200]], np.uint8)).tolist()
        [[0, 127], [127, 255]]
    """

    def __init__(
        self, cutoff: float = 0.0, ignore: int | list[int] | None = None
    ) -> None:
        owner = "AutoContrast"
        self.cutoff = check_number(cutoff, "cutoff", owner, minimum=0.0)
        if self.cutoff >= 50:
            raise ValueError(
                f"For '{owner}', the argument 'cutoff' must be in [0, 50), but got {cutoff!r}."
            )
        values = (
            [] if ignore is None else [ignore] if isinstance(ignore, int) else ignore
        )
        if not isinstance(values, list | tuple):
            raise TypeError(
                f"For '{owner}', the argument 'ignore' must be an int or a list of ints, but got {ignore!r}."
            )
        self.ignore = [
            check_int(v, "ignore", owner, minimum=0, maximum=255) for v in values
        ]

    def _apply(self, x: Array, batched: bool) -> Array:
        uint8_images(x, batched, "AutoContrast")
        return each_channel(
            x, batched, lambda c: _autocontrast_channel(c, self.cutoff, self.ignore)
        )


def _blend(image: Array, other: Array | float, factor: float) -> Array:
    """`other + factor * (image - other)` in float32 (a factor above 1 moves away from `other`)."""
    return np.float32(factor) * image.astype(np.float32) + np.float32(
        1 - factor
    ) * np.asarray(other, np.float32)


def _brightness(image: Array, factor: float) -> Array:
    return _blend(image, 0.0, factor)


def _contrast(image: Array, factor: float) -> Array:
    gray = opencv_gray(image) if image.ndim == 3 else image
    mean = float(gray.mean())
    # MindSpore blends with the mean rounded to a whole level (for uint8 images)
    return _blend(
        image, float(np.rint(mean)) if image.dtype == np.uint8 else mean, factor
    )


def _saturation(image: Array, factor: float) -> Array:
    return _blend(image, opencv_gray(image)[..., np.newaxis], factor)


_ADJUSTMENTS: Final = (_brightness, _contrast, _saturation, shift_hue)
_NEUTRAL: Final = ((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.0, 0.0))


class RandomColorAdjust(UnaryOperation):
    """Change brightness, contrast, saturation and hue of RGB images by random factors.

    Each image applies the four changes in a random order (as MindSpore), each
    with a factor drawn from its range: brightness scales the pixels; contrast blends with the mean of the gray image;
    saturation blends with the gray image; hue shifts the hue by a fraction of
    the color circle. A property whose range is (1, 1) (hue: (0, 0)) is left out.

    Args:
        brightness: A number `v` (the range [max(0, 1 - v), 1 + v]) or a (min, max) pair, min >= 0.
        contrast: As `brightness`.
        saturation: As `brightness`.
        hue: A number `v` in [0, 0.5] (the range [-v, v]) or a (min, max) pair in [-0.5, 0.5].

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: When applied to an image that is not <H, W, 3> (gray images
            take only brightness and contrast).

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.RandomColorAdjust(brightness=(0.5, 0.5))(np.full((1, 1, 3), 200, np.uint8)).tolist()
        [[[100, 100, 100]]]
    """

    def __init__(
        self,
        brightness: float | tuple[float, float] = (1, 1),
        contrast: float | tuple[float, float] = (1, 1),
        saturation: float | tuple[float, float] = (1, 1),
        hue: float | tuple[float, float] = (0, 0),
    ) -> None:
        owner = "RandomColorAdjust"
        unbounded = (0.0, float("inf"))
        self.brightness = check_range(
            brightness, "brightness", owner, unbounded, around=1.0
        )
        self.contrast = check_range(contrast, "contrast", owner, unbounded, around=1.0)
        self.saturation = check_range(
            saturation, "saturation", owner, unbounded, around=1.0
        )
        if isinstance(hue, int | float) and not isinstance(hue, bool):
            check_number(hue, "hue", owner, minimum=0.0, maximum=0.5)
        self.hue = check_range(hue, "hue", owner, (-0.5, 0.5), around=0.0)

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, "RandomColorAdjust", "<H, W> or <H, W, 3>")
        colored = self.saturation != (1.0, 1.0) or self.hue != (0.0, 0.0)
        if colored and (ndim != 3 or x.shape[-1] != 3):
            raise RuntimeError(
                f"RandomColorAdjust: saturation and hue need RGB <H, W, 3> images, but got shape "
                f"{tuple(x.shape[int(batched) :])}."
            )
        return each_image(x, batched, self._adjust, augmentation_rng())

    def _adjust(self, image: Array, rng: np.random.Generator) -> Array:
        # As MindSpore: the four adjustments in a random order, each with its own factor.
        out = image
        for step in rng.permutation(4).tolist():
            low, high = self._ranges[step]
            if (low, high) != _NEUTRAL[step]:
                factor = float(
                    np.float32(rng.uniform(low, high))
                )  # MindSpore's are float32
                out = to_dtype_of(_ADJUSTMENTS[step](out, factor), image)
        return out

    @property
    def _ranges(self) -> tuple[tuple[float, float], ...]:
        return (self.brightness, self.contrast, self.saturation, self.hue)


class RandomSolarize(UnaryOperation):
    """Invert (`255 - value`) the pixels inside a random sub-range of `threshold`.

    Each image draws two values in [min, max]; the pixels between them are
    inverted. When the two are equal (always, for min == max) every pixel at or
    above that value is inverted, as in MindSpore.

    Args:
        threshold: A (min, max) pair of ints in [0, 255], min <= max.

    Raises:
        TypeError, ValueError: If `threshold` is not such a pair.
        RuntimeError: When applied to an array that is not uint8 <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.RandomSolarize((100, 100))(np.array([[50, 100, 200]], np.uint8)).tolist()
        [[50, 155, 55]]
    """

    def __init__(self, threshold: tuple[int, int] = (0, 255)) -> None:
        owner = "RandomSolarize"
        given: Any = threshold  # checked as any value, whatever the annotation says
        if not isinstance(given, list | tuple) or len(given) != 2:
            raise TypeError(
                f"For '{owner}', the argument 'threshold' must be a (min, max) pair of ints, but got {threshold!r}."
            )
        lo, hi = (
            check_int(v, "threshold", owner, minimum=0, maximum=255) for v in threshold
        )
        if lo > hi:
            raise ValueError(
                f"For '{owner}', the argument 'threshold' must be (min, max) with min <= max, but got {threshold!r}."
            )
        self.threshold = (lo, hi)

    def _apply(self, x: Array, batched: bool) -> Array:
        uint8_images(x, batched, "RandomSolarize")
        return each_image(x, batched, self._solarize, augmentation_rng())

    def _solarize(self, image: Array, rng: np.random.Generator) -> Array:
        lo, hi = sorted(
            rng.integers(self.threshold[0], self.threshold[1] + 1, size=2).tolist()
        )
        inside = image >= lo if lo == hi else (image >= lo) & (image <= hi)
        return np.where(inside, 255 - image, image).astype(np.uint8)
