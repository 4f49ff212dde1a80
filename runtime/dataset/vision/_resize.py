"""`Resize` and the interpolation modes `Inter`, in numpy.

Coordinates follow OpenCV's `cv2.resize` (which MindSpore uses): output pixel
`i` samples input position `(i + 0.5) * in / out - 0.5` for LINEAR and BICUBIC
(cubic convolution with a = -0.75, edges replicated) and `floor(i * in / out)`
for NEAREST.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_type
from .._random import augmentation_rng
from .._transform import UnaryOperation
from ._ops import check_size, sample_ndim

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .._block import Array

__all__ = [
    "Inter",
    "RandomResize",
    "Resize",
    "check_interpolation",
    "resize_images",
]


class Inter(enum.IntEnum):
    """Interpolation modes, with MindSpore's names and values."""

    NEAREST = 0
    ANTIALIAS = 1
    LINEAR = 2
    BILINEAR = 2
    CUBIC = 3
    BICUBIC = 3
    AREA = 4
    PILCUBIC = 5


_SUPPORTED = (Inter.NEAREST, Inter.LINEAR, Inter.BICUBIC)


class Resize(UnaryOperation):
    """Resize <H, W> or <H, W, C> images.

    Args:
        size: (height, width), or one int: the shorter side becomes `size` and
            the other keeps the aspect ratio (rounded down).
        interpolation: `Inter.LINEAR` (= `Inter.BILINEAR`), `Inter.NEAREST` or
            `Inter.BICUBIC` (= `Inter.CUBIC`).
            The output keeps the input's dtype (integer images are rounded and clipped).

    Raises:
        TypeError: If `size` is not an int or a sequence of one or two ints, or
            `interpolation` is not an `Inter`.
        ValueError: If a size is not positive.
        NotImplementedError: For interpolation modes cadence does not implement.
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.Resize((14, 14))(np.zeros((28, 28, 1), np.uint8)).shape
        (14, 14, 1)
    """

    def __init__(
        self, size: int | Sequence[int], interpolation: Inter = Inter.LINEAR
    ) -> None:
        self.size = check_size(size, "Resize")
        self.interpolation = check_interpolation(interpolation, "Resize")

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, "Resize", "<H, W> or <H, W, C>")
        h_axis = x.ndim - ndim
        out_h, out_w = self._target(x.shape[h_axis], x.shape[h_axis + 1])
        return resize_images(x, h_axis, out_h, out_w, self.interpolation)

    def _target(self, h: int, w: int) -> tuple[int, int]:
        if len(self.size) == 2:
            return self.size[0], self.size[1]
        s = self.size[0]
        if h <= w:
            return s, max(1, int(w * s / h))
        return max(1, int(h * s / w)), s


def check_interpolation(interpolation: Any, owner: str) -> Inter:
    """Return `interpolation` if it is an `Inter` mode cadence implements."""
    mode: Inter = check_type(interpolation, "interpolation", Inter, owner)
    if mode not in _SUPPORTED:
        raise NotImplementedError(
            f"For '{owner}', the interpolation {mode!r} is not supported by cadence yet; use one of {[m.name for m in _SUPPORTED]}."
        )
    return mode


def resize_images(x: Array, h_axis: int, out_h: int, out_w: int, mode: Inter) -> Array:
    """Resize the height and width axes (`h_axis`, `h_axis + 1`) of `x`, keeping its dtype."""
    # Integer images are interpolated in float32, converting only the rows and columns taken.
    work = x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)
    out = _resize_axis(x, h_axis, out_h, mode, work)
    out = _resize_axis(out, h_axis + 1, out_w, mode, work)
    if out.dtype == x.dtype:  # float images, or NEAREST / unchanged sizes
        return out
    info = np.iinfo(x.dtype) if x.dtype.kind in "iu" else None
    if info is not None:
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(x.dtype)


def _resize_axis(
    x: Array, axis: int, out_len: int, mode: Inter, work: np.dtype[Any]
) -> Array:
    in_len = x.shape[axis]
    if in_len == out_len:
        return x
    scale = in_len / out_len
    if mode == Inter.NEAREST:
        idx = np.minimum(
            np.floor(np.arange(out_len) * scale).astype(np.intp), in_len - 1
        )
        picked: Array = np.take(x, idx, axis=axis)
        return picked
    if mode == Inter.BICUBIC:
        return _cubic_axis(x, axis, out_len, scale, work)
    src = np.clip((np.arange(out_len) + 0.5) * scale - 0.5, 0.0, in_len - 1)
    lo = np.floor(src).astype(np.intp)
    hi = np.minimum(lo + 1, in_len - 1)
    shape = [1] * x.ndim
    shape[axis] = out_len
    weight = (src - lo).astype(work).reshape(shape)
    low = np.take(x, lo, axis=axis).astype(work, copy=False)
    # low + (high - low) * weight, in place: no temporaries of the image's size
    mixed: Array = np.take(x, hi, axis=axis).astype(work, copy=False)
    mixed -= low
    mixed *= weight
    mixed += low
    return mixed


_CUBIC_A = -0.75  # OpenCV's cubic convolution coefficient


def _cubic_axis(
    x: Array, axis: int, out_len: int, scale: float, work: np.dtype[Any]
) -> Array:
    """Cubic convolution along `axis`: 4 taps around each sample, edges replicated (as OpenCV)."""
    in_len = x.shape[axis]
    src = (np.arange(out_len) + 0.5) * scale - 0.5
    base = np.floor(src)
    t = src - base
    a = _CUBIC_A
    weights = [
        ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
        ((a + 2) * t - (a + 3)) * t * t + 1,
        ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
    ]
    weights.append(1.0 - weights[0] - weights[1] - weights[2])
    shape = [1] * x.ndim
    shape[axis] = out_len
    out = np.zeros((*x.shape[:axis], out_len, *x.shape[axis + 1 :]), dtype=work)
    for k, weight in enumerate(weights):
        taps = np.clip(base.astype(np.intp) + k - 1, 0, in_len - 1)
        out += np.take(x, taps, axis=axis).astype(work, copy=False) * weight.astype(
            work
        ).reshape(shape)
    return out


class RandomResize(Resize):
    """Resize as `Resize` does, each image with an interpolation mode drawn at random.

    The modes drawn from are the ones cadence implements: NEAREST, LINEAR and
    BICUBIC (MindSpore also draws AREA and PILCUBIC). `size` and the errors are
    as in `Resize`.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.RandomResize(4)(np.zeros((8, 6, 3), np.uint8)).shape
        (5, 4, 3)
    """

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = check_size(size, "RandomResize")

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, "RandomResize", "<H, W> or <H, W, C>")
        out_h, out_w = self._target(x.shape[x.ndim - ndim], x.shape[x.ndim - ndim + 1])
        rng = augmentation_rng()
        images = x if batched else x[np.newaxis]
        modes = rng.integers(0, len(_SUPPORTED), size=len(images)).tolist()
        out = np.stack(
            [
                resize_images(image, 0, out_h, out_w, _SUPPORTED[m])
                for image, m in zip(images, modes, strict=True)
            ]
        )
        return out if batched else out[0]
