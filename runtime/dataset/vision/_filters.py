"""Neighbourhood filters: `GaussianBlur` and `RandomSharpness`.

Borders are handled as OpenCV's default (`BORDER_REFLECT_101`: `c b | a b c | b a`),
which MindSpore uses for both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import ndimage

from ...validation import check_number
from .._random import augmentation_rng
from .._transform import UnaryOperation
from ._ops import sample_ndim
from ._params import check_range, each_image, to_dtype_of

if TYPE_CHECKING:
    from .._block import Array

__all__ = ["GaussianBlur", "RandomSharpness"]

_LAYOUTS = "<H, W> or <H, W, C>"


def _pair(value: Any, name: str, owner: str, check: Any) -> tuple[Any, Any]:
    """One value for both directions, or a (width, height) pair."""
    values = value if isinstance(value, list | tuple) else (value, value)
    if len(values) != 2:
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a number or a sequence of 2, but got {value!r}."
        )
    first, second = (check(v) for v in values)
    return first, second


def _odd_size(value: Any, owner: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"For '{owner}', 'kernel_size' must hold ints, but got {value!r} of type {type(value).__name__!r}."
        )
    if value < 1 or value % 2 == 0:
        raise ValueError(
            f"For '{owner}', 'kernel_size' must hold positive odd ints, but got {value}."
        )
    return value


def gaussian_kernel(size: int, sigma: float) -> Array:
    """OpenCV's 1-D Gaussian kernel: `exp(-x**2 / (2 sigma**2))` over `size` taps, summing to 1."""
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2
    k = np.exp(-(x**2) / (2 * sigma**2))
    kernel: Array = k / k.sum()
    return kernel


def fixed_point_kernel(kernel: Array) -> Array:
    """The kernel in OpenCV's 8-bit fixed point: steps of 1/256, summing to exactly 1.

    The half up to the centre is rounded cumulatively (each running sum to the
    nearest step), which spreads the rounding over the taps; the centre takes
    the rest. OpenCV blurs uint8 images with these weights and rounds the
    result half up, so the pixels equal MindSpore's.
    """
    half = len(kernel) // 2
    running = np.rint(np.cumsum(kernel[:half] * 256))
    side = np.diff(running, prepend=0.0)
    steps = np.concatenate([side, [256 - 2 * side.sum()], side[::-1]])
    fixed: Array = steps / 256
    return fixed


def correlate_axis(x: Array, kernel: Array, axis: int) -> Array:
    """Correlate float `x` with a 1-D kernel along `axis`, reflecting the border without the edge pixel."""
    out: Array = ndimage.correlate1d(x, kernel, axis=axis, mode="mirror")
    return out


class GaussianBlur(UnaryOperation):
    """Blur images with a Gaussian kernel.

    Args:
        kernel_size: The kernel's width and height: one positive odd int, or a
            (width, height) pair of them.
        sigma: The standard deviation: one positive number or a (horizontal,
            vertical) pair; None computes it from the size as OpenCV does,
            `0.3 * ((size - 1) * 0.5 - 1) + 0.8`.

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> vision.GaussianBlur(3, 1.0)(np.array([[0, 0, 90, 0, 0]], np.uint8)).tolist()
        [[0, 25, 41, 25, 0]]
    """

    def __init__(
        self,
        kernel_size: int | tuple[int, int],
        sigma: float | tuple[float, float] | None = None,
    ) -> None:
        owner = "GaussianBlur"
        self.kernel_size = _pair(
            kernel_size, "kernel_size", owner, lambda v: _odd_size(v, owner)
        )
        self.sigma = (
            None
            if sigma is None
            else _pair(
                sigma,
                "sigma",
                owner,
                lambda v: check_number(v, "sigma", owner, minimum=0.0, inclusive=False),
            )
        )
        sigmas = self.sigma or tuple(
            0.3 * ((k - 1) * 0.5 - 1) + 0.8 for k in self.kernel_size
        )
        self._kernels = [
            gaussian_kernel(k, s) for k, s in zip(self.kernel_size, sigmas, strict=True)
        ]
        self._fixed = [fixed_point_kernel(k) for k in self._kernels]

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = sample_ndim(x, batched, "GaussianBlur", _LAYOUTS)
        h_axis = x.ndim - ndim
        if x.dtype != np.uint8:
            rows = correlate_axis(x.astype(np.float64), self._kernels[0], h_axis + 1)
            return to_dtype_of(correlate_axis(rows, self._kernels[1], h_axis), x)
        # Fixed-point weights (multiples of 1/256) keep every sum a multiple of 1/65536
        # below 256: exact in float32. OpenCV rounds the halves up.
        rows = correlate_axis(x.astype(np.float32), self._fixed[0], h_axis + 1)
        blurred = correlate_axis(rows, self._fixed[1], h_axis)
        blurred += np.float32(0.5)
        return np.floor(blurred).astype(np.uint8)


# Pillow's SMOOTH kernel, which its (and MindSpore's) sharpness blends against.
_SMOOTH = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]], dtype=np.float64) / 13


class RandomSharpness(UnaryOperation):
    """Sharpen or soften images by a random factor: 0 gives the smoothed image, 1 the original.

    The smoothed image is the 3x3 `SMOOTH` filter of Pillow on the interior
    pixels (the border pixels stay); the output blends the two by the factor.

    Args:
        degrees: The (min, max) range the factor is drawn from, min >= 0.

    Raises:
        TypeError, ValueError: If `degrees` is not such a range.
        RuntimeError: When applied to an array that is not <H, W> or <H, W, C>.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import vision
        >>> image = np.zeros((3, 3), np.uint8)
        >>> image[1, 1] = 130
        >>> vision.RandomSharpness((0.0, 0.0))(image)[1, 1].item()
        50
    """

    def __init__(self, degrees: tuple[float, float] = (0.1, 1.9)) -> None:
        self.degrees = check_range(
            degrees, "degrees", "RandomSharpness", (0.0, float("inf"))
        )

    def _apply(self, x: Array, batched: bool) -> Array:
        sample_ndim(x, batched, "RandomSharpness", _LAYOUTS)
        return each_image(x, batched, self._sharpen, augmentation_rng())

    def _sharpen(self, image: Array, rng: np.random.Generator) -> Array:
        factor = rng.uniform(*self.degrees)
        pixels = image.astype(np.float64)
        smooth = pixels.copy()
        h, w = image.shape[:2]
        if h > 2 and w > 2:
            # nine shifted views: faster here than scipy.ndimage.correlate (measured)
            inner = np.zeros_like(pixels[1:-1, 1:-1])
            for dy in range(3):
                for dx in range(3):
                    inner += _SMOOTH[dy, dx] * pixels[dy : dy + h - 2, dx : dx + w - 2]
            smooth[1:-1, 1:-1] = np.rint(inner) if image.dtype == np.uint8 else inner
        return to_dtype_of(smooth + factor * (pixels - smooth), image)
