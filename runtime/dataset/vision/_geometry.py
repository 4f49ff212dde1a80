"""Rotations and affine warps: `RandomRotation`, `RandomAffine`.

Both sample the input at the point an output pixel maps back to (OpenCV's
`warpAffine`, which MindSpore runs): NEAREST rounds the point to the closest
pixel, BILINEAR blends the four around it (on a 1/32-pixel grid, as OpenCV);
points outside the image take `fill_value`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_bool, check_number
from .._random import augmentation_rng
from .._transform import UnaryOperation
from ._crop import fill_values
from ._ops import sample_ndim
from ._params import check_range, each_image, to_dtype_of
from ._resize import Inter, check_interpolation

if TYPE_CHECKING:
    from .._block import Array

__all__ = ["RandomAffine", "RandomRotation", "Warp", "warp_affine"]

_LAYOUTS = "<H, W> or <H, W, C>"


def _check_resample(resample: Any, owner: str) -> Inter:
    mode = check_interpolation(resample, owner)
    if mode not in (Inter.NEAREST, Inter.BILINEAR):
        raise NotImplementedError(
            f"For '{owner}', only Inter.NEAREST and Inter.BILINEAR are supported by cadence yet, but got {mode!r}."
        )
    return mode


def warp_affine(
    image: Array, inverse: Array, out_hw: tuple[int, int], op: Warp
) -> Array:
    """Sample `image` (<H, W> or <H, W, C>) at `inverse @ (x, y, 1)` for every output pixel (x, y).

    `op` gives the interpolation (`resample`) and the value of points outside (`fill`).
    """
    mode, fill = op.resample, op.fill
    h, w = image.shape[:2]
    channels = image.shape[2:]
    per_channel = len(fill) == 3 and channels == (3,)
    # uint8 sums are exact in float32 (weights are multiples of 1/1024); floats keep float64
    dtype = np.float32 if image.dtype == np.uint8 else np.float64
    background = np.asarray(fill if per_channel else fill[0], dtype)
    # One pixel of background around the image: samples at the edge blend into it.
    framed = np.empty((h + 2, w + 2, *channels), dtype)
    framed[...] = background
    framed[1:-1, 1:-1] = image
    flat = framed.reshape((h + 2) * (w + 2), *channels)
    # OpenCV's fixed point: each term of the source position in 1/1024 pixel, rounded,
    # then truncated to whole pixels (NEAREST, after adding one half) or to 1/32 (BILINEAR).
    nearest = mode is Inter.NEAREST
    xs = np.arange(out_hw[1], dtype=np.float64)
    ys = np.arange(out_hw[0], dtype=np.float64)[:, np.newaxis]
    fixed = []
    for r in (0, 1):
        along_x = np.rint(inverse[r, 0] * xs * 1024).astype(np.int64)
        along_y = np.rint((inverse[r, 1] * ys + inverse[r, 2]) * 1024).astype(np.int64)
        fixed.append(along_x + along_y + (512 if nearest else 16))
    if nearest:
        col, row = (f >> 10 for f in fixed)
        inside = (col >= 0) & (col < w) & (row >= 0) & (row < h)
        index = np.where(inside, (row + 1) * (w + 2) + col + 1, 0)
        return to_dtype_of(np.take(flat, index, axis=0), image)
    col32, row32 = (f >> 5 for f in fixed)
    fx, fy = (col32 & 31).astype(dtype) / 32, (row32 & 31).astype(dtype) / 32
    col, row = col32 >> 5, row32 >> 5
    far = (col < -1) | (col > w - 1) | (row < -1) | (row > h - 1)
    x0 = np.where(far, 0, np.clip(col + 1, 0, w + 1))
    x1 = np.where(far, 0, np.clip(col + 2, 0, w + 1))
    y0 = np.clip(row + 1, 0, h + 1) * (w + 2)
    y1 = np.clip(row + 2, 0, h + 1) * (w + 2)
    if channels:
        fx, fy = fx[..., np.newaxis], fy[..., np.newaxis]
    out = (
        np.take(flat, y0 + x0, axis=0) * (1 - fx) + np.take(flat, y0 + x1, axis=0) * fx
    ) * (1 - fy) + (
        np.take(flat, y1 + x0, axis=0) * (1 - fx) + np.take(flat, y1 + x1, axis=0) * fx
    ) * fy
    if image.dtype == np.uint8:  # OpenCV's integer weights round halves up
        out = np.floor(out + 0.5)
    return to_dtype_of(out, image)


def _forward(angle: float, center: tuple[float, float], scale: float = 1.0) -> Array:
    """OpenCV's `getRotationMatrix2D`: rotate by `angle` degrees counter-clockwise about `center`."""
    a = scale * math.cos(math.radians(angle))
    b = scale * math.sin(math.radians(angle))
    cx, cy = center
    return np.array(
        [[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy], [0, 0, 1]]
    )


class Warp(UnaryOperation):
    """Base of the warping operations: how they sample (`resample`) and fill (`fill_value`)."""

    def __init__(self, resample: Any, fill_value: Any) -> None:
        owner = type(self).__name__
        self.resample = _check_resample(resample, owner)
        self.fill_value = fill_value
        self.fill = fill_values(fill_value, owner)

    def _apply(self, x: Array, batched: bool) -> Array:
        sample_ndim(x, batched, type(self).__name__, _LAYOUTS)
        return each_image(x, batched, self._warp, augmentation_rng())

    def _warp(self, image: Array, rng: np.random.Generator) -> Array:
        """Warp one image, drawing its parameters from `rng`."""
        raise NotImplementedError


class RandomRotation(Warp):
    """Rotate each image by a random angle, counter-clockwise for a positive one.

    Args:
        degrees: A number `d` (the range [-d, d]) or a (min, max) pair.
        resample: `Inter.NEAREST` (default) or `Inter.BILINEAR`.
        expand: Grow the output to hold the whole rotated image (its size
            depends on the angle, so a batch of images comes out as a list).
        center: The (x, y) pixel to rotate about; None: the image's centre.
        fill_value: The value of pixels from outside the image: an int, or one per RGB channel.

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        NotImplementedError: For other interpolation modes.
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.RandomRotation((90, 90))(np.array([[1, 2], [3, 4]], np.uint8)).tolist()
        [[2, 4], [1, 3]]
    """

    def __init__(
        self,
        degrees: float | tuple[float, float],
        resample: Inter = Inter.NEAREST,
        expand: bool = False,
        center: tuple[float, float] | None = None,
        fill_value: int | tuple[int, int, int] = 0,
    ) -> None:
        owner = "RandomRotation"
        super().__init__(resample, fill_value)
        self.degrees = check_range(
            degrees, "degrees", owner, (-math.inf, math.inf), around=0.0
        )
        self.expand = check_bool(expand, "expand", owner)
        given: Any = center  # checked as any value, whatever the annotation says
        if given is not None and (
            not isinstance(given, list | tuple) or len(given) != 2
        ):
            raise TypeError(
                f"For '{owner}', the argument 'center' must be None or an (x, y) pair of numbers, but got {center!r}."
            )
        self.center = (
            None
            if center is None
            else (
                check_number(center[0], "center", owner),
                check_number(center[1], "center", owner),
            )
        )

    def _block_capable(self) -> bool:
        return not self.expand  # expanded outputs differ in size per angle

    def _warp(self, image: Array, rng: np.random.Generator) -> Array:
        angle = float(rng.uniform(*self.degrees))
        h, w = image.shape[:2]
        center = self.center or ((w - 1) / 2, (h - 1) / 2)
        forward = _forward(angle, center)
        out_hw = (h, w)
        if self.expand:
            # the bounding box of the rotated image, whose centre moves to the output's centre
            cos, sin = abs(forward[0, 0]), abs(forward[0, 1])
            box_w, box_h = w * cos + h * sin, w * sin + h * cos
            forward[0, 2] += box_w / 2 - w / 2
            forward[1, 2] += box_h / 2 - h / 2
            out_hw = (int(np.rint(box_h)), int(np.rint(box_w)))
        return warp_affine(image, np.linalg.inv(forward), out_hw, self)


class RandomAffine(Warp):
    """Rotate, translate, scale and shear each image by random amounts about its centre.

    Args:
        degrees: Rotation: a number `d` (the range [-d, d]) or a (min, max) pair, counter-clockwise positive.
        translate: None, or (max_x, max_y) (or (min_x, max_x, min_y, max_y)):
            shifts as fractions of the width and height, each in [-1, 1].
        scale: None (1), or a (min, max) range of scale factors, min > 0.
        shear: None, a number `s` (x shear in [-s, s]), a (min, max) x-shear pair,
            or (min_x, max_x, min_y, max_y), in degrees.
        resample: As in `RandomRotation`.
        fill_value: As in `RandomRotation`.

    Raises:
        As `RandomRotation`.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.RandomAffine(degrees=0, scale=(2.0, 2.0))(np.arange(9, dtype=np.uint8).reshape(3, 3)).tolist()
        [[4, 4, 5], [4, 4, 5], [7, 7, 8]]
    """

    def __init__(
        self,
        degrees: float | tuple[float, float],
        translate: tuple[float, ...] | None = None,
        scale: tuple[float, float] | None = None,
        shear: float | tuple[float, ...] | None = None,
        resample: Inter = Inter.NEAREST,
        fill_value: int | tuple[int, int, int] = 0,
    ) -> None:
        owner = "RandomAffine"
        super().__init__(resample, fill_value)
        self.degrees = check_range(
            degrees, "degrees", owner, (-180.0, 180.0), around=0.0
        )
        self.translate = _ranges(
            translate, "translate", owner, (-1.0, 1.0), symmetric=True
        )
        self.scale = (
            (1.0, 1.0)
            if scale is None
            else check_range(scale, "scale", owner, (0.0, math.inf))
        )
        if self.scale[0] <= 0:
            raise ValueError(
                f"For '{owner}', the values of 'scale' must be > 0, but got {scale!r}."
            )
        self.shear = _ranges(shear, "shear", owner, (-180.0, 180.0), symmetric=False)

    def _warp(self, image: Array, rng: np.random.Generator) -> Array:
        h, w = image.shape[:2]
        angle = rng.uniform(*self.degrees)
        tx = rng.uniform(*self.translate[0]) * w
        ty = rng.uniform(*self.translate[1]) * h
        scale = rng.uniform(*self.scale)
        shear_x, shear_y = (math.radians(rng.uniform(*r)) for r in self.shear)
        inverse = _inverse_affine(
            ((w - 1) / 2, (h - 1) / 2), angle, (tx, ty), scale, (shear_x, shear_y)
        )
        return warp_affine(image, inverse, (h, w), self)


def _ranges(
    value: Any, name: str, owner: str, bounds: tuple[float, float], symmetric: bool
) -> tuple[tuple[float, float], tuple[float, float]]:
    """(x range, y range) from None, a number, a pair or four numbers."""
    if value is None:
        return (0.0, 0.0), (0.0, 0.0)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return check_range(value, name, owner, bounds, around=0.0), (0.0, 0.0)
    if not isinstance(value, list | tuple) or len(value) not in (2, 4):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be None, a number, or a sequence of 2 or 4 numbers, but got {value!r}."
        )
    numbers = [
        check_number(v, name, owner, minimum=bounds[0], maximum=bounds[1])
        for v in value
    ]
    if len(numbers) == 4:
        return (numbers[0], numbers[1]), (numbers[2], numbers[3])
    if symmetric:  # translate (max_x, max_y): each shift in [-max, max]
        return (-abs(numbers[0]), abs(numbers[0])), (-abs(numbers[1]), abs(numbers[1]))
    return check_range(tuple(numbers), name, owner, bounds), (0.0, 0.0)


def _inverse_affine(
    center: tuple[float, float],
    angle: float,
    translate: tuple[float, float],
    scale: float,
    shear: tuple[float, float],
) -> Array:
    """The matrix taking an output pixel back to the input pixel it samples.

    Centre, then the inverse of translation, rotation with shear, and scale: the
    parameterization torchvision and MindSpore share.
    """
    rot = math.radians(angle)
    sx, sy = shear
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m: Array = np.array([[d, -b, 0.0], [-c, a, 0.0], [0.0, 0.0, 1.0]])
    m[:2] /= scale
    m[0, 2] = m[0, 0] * (-cx - tx) + m[0, 1] * (-cy - ty) + cx
    m[1, 2] = m[1, 0] * (-cx - tx) + m[1, 1] * (-cy - ty) + cy
    return m
