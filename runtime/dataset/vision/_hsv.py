"""Hue shifts (`RandomColorAdjust`'s hue), through HSV as MindSpore computes them.

For uint8 images MindSpore goes through OpenCV's 8-bit "full range" HSV: the
hue in 256 steps (forward with 256 to the circle, backward with 255, an
asymmetry OpenCV has), shifted by `int(hue * 255)` with uint8 wrap-around. The
integer arithmetic here is OpenCV's (12-bit fixed-point divisions) and the
way back truncates or rounds where MindSpore's OpenCV does, so the pixels agree
(of 300,000 random ones, two differ by one level: float32 rounding inside
OpenCV's vector code). Float images go through float HSV.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np

if TYPE_CHECKING:
    from .._block import Array

__all__ = ["shift_hue"]

_SHIFT: Final = 12  # OpenCV's fixed-point bits for the HSV divisions
_VECTOR: Final = 32  # pixels per vector in OpenCV's HSV-to-RGB conversion
_STEPS: Final = np.arange(1, 256, dtype=np.float64)
# OpenCV's division tables: 255 / v for the saturation, 256 / (6 diff) for the hue.
_SDIV: Final = np.concatenate([[0], np.rint((255 << _SHIFT) / _STEPS)]).astype(np.int32)
_HDIV: Final = np.concatenate([[0], np.rint((256 << _SHIFT) / (6 * _STEPS))]).astype(
    np.int32
)
# Which of (v, p, t, q) is blue, green and red in each sixth of the circle.
_SECTORS: Final = np.array(
    [[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]]
)


def _hue_sat_value(rgb: Array) -> tuple[Array, Array, Array]:
    """Hue (a fraction of the circle), saturation and value of float RGB in [0, 1]."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(axis=-1)
    diff = v - rgb.min(axis=-1)
    safe = np.where(diff > 0, diff, 1)
    h = np.where(
        v == r, (g - b) / safe, np.where(v == g, 2 + (b - r) / safe, 4 + (r - g) / safe)
    )
    s = np.where(v > 0, diff / np.where(v > 0, v, 1), 0)
    return np.where(diff > 0, (h / 6) % 1.0, 0), s, v


def _to_rgb(sixths: Array, s: Array, v: Array) -> Array:
    """RGB from the hue in sixths of the circle [0, 6), saturation and value (OpenCV's formulas).

    Gray pixels (s == 0) need no case of their own: all four candidates are then `v`.
    """
    sector = np.floor(sixths)
    f = sixths - sector
    candidates = (v, v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f)))
    which = sector.astype(np.intp) % 6
    channels = [
        np.choose(which, [candidates[k] for k in _SECTORS[:, c]]) for c in (2, 1, 0)
    ]
    out: Array = np.stack(channels, axis=-1)
    return out


def _shift_uint8(image: Array, shift: float) -> Array:
    r, g, b = (image[..., i].astype(np.int32) for i in range(3))
    v = np.maximum(np.maximum(r, g), b)
    diff = v - np.minimum(np.minimum(r, g), b)
    half = 1 << (_SHIFT - 1)
    s = (diff * _SDIV[v] + half) >> _SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * _HDIV[diff] + half) >> _SHIFT
    h = np.minimum(np.where(h < 0, h + 256, h), 255)
    h = (h + int(shift * 255)) % 256  # MindSpore adds to the uint8 hue, wrapping around
    # OpenCV goes back in float32, with the hue in 255 steps (not the 256 it came in)
    scale = np.float32(1 / 255)
    rgb = _to_rgb(
        h.astype(np.float32) * np.float32(6 / 255),
        s.astype(np.float32) * scale,
        v.astype(np.float32) * scale,
    )
    rgb *= np.float32(255)
    # MindSpore's OpenCV converts back to uint8 in vectors of 32 pixels per row, which
    # truncate, and the pixels after the last whole vector one by one, which round.
    width = image.shape[-2]
    vectorized = np.arange(width) < width - width % _VECTOR
    out: Array = np.where(vectorized[:, np.newaxis], np.trunc(rgb), np.rint(rgb))
    return out


def shift_hue(image: Array, shift: float) -> Array:
    """Return RGB `image` with its hue turned by `shift` (a fraction of the circle), as float values."""
    if image.dtype == np.uint8:
        return _shift_uint8(image, shift)
    h, s, v = _hue_sat_value(image.astype(np.float64))
    return _to_rgb(((h + shift) % 1.0) * 6, s, v)
