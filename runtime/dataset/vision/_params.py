"""Argument checks and per-image application shared by the color, filter and geometry operations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_number
from ._ops import sample_ndim

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._block import Array

__all__ = [
    "check_range",
    "each_channel",
    "each_image",
    "rgb_images",
    "to_dtype_of",
    "uint8_images",
]


def check_range(
    value: Any,
    name: str,
    owner: str,
    bounds: tuple[float, float],
    around: float | None = None,
) -> tuple[float, float]:
    """Return a (min, max) range argument within `bounds`.

    A single number `v` means `(around - v, around + v)` (clipped to `bounds`)
    when `around` is given; otherwise only a (min, max) pair is accepted.
    """
    if (
        around is not None
        and isinstance(value, int | float)
        and not isinstance(value, bool)
    ):
        v = check_number(value, name, owner, minimum=0.0)
        return (max(bounds[0], around - v), min(bounds[1], around + v))
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be "
            f"{'a number or ' if around is not None else ''}a (min, max) pair of numbers, but got {value!r}."
        )
    lo, hi = (
        check_number(v, name, owner, minimum=bounds[0], maximum=bounds[1])
        for v in value
    )
    if lo > hi:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be (min, max) with min <= max, but got {value!r}."
        )
    return lo, hi


def each_image(
    x: Array, batched: bool, fn: Callable[[Array, Any], Array], rng: Any = None
) -> Array:
    """Apply `fn(image, rng)` to one image, or to each image of a batch (their outputs must agree in shape).

    A random operation passes its generator for the call as `rng`; the images of
    a batch draw from it one after the other.
    """
    if not batched:
        return fn(x, rng)
    return np.stack([fn(image, rng) for image in x])


def uint8_images(x: Array, batched: bool, op: str) -> int:
    """Check `x` holds uint8 <H, W> or <H, W, C> images; return the rank of one."""
    ndim = sample_ndim(x, batched, op, "<H, W> or <H, W, C>")
    if x.dtype != np.uint8:
        raise RuntimeError(f"{op}: the image must be uint8, but got {x.dtype}.")
    return ndim


def rgb_images(
    x: Array, batched: bool, op: str, channels: tuple[int, ...] = (3,)
) -> None:
    """Check `x` holds <H, W, C> images with a channel count in `channels`."""
    ndim = sample_ndim(x, batched, op, "<H, W, C>")
    if ndim != 3 or x.shape[-1] not in channels:
        shape = x.shape[1:] if batched else x.shape
        raise RuntimeError(
            f"{op}: the image must be <H, W, C> with C in {list(channels)}, but got shape {tuple(shape)}."
        )


def to_dtype_of(values: Array, like: Array) -> Array:
    """Return float `values` in `like`'s dtype: rounded and clipped to [0, 255] for uint8."""
    if like.dtype == np.uint8:
        return np.clip(np.rint(values), 0, 255).astype(np.uint8)
    return values.astype(like.dtype, copy=False)


def each_channel(x: Array, batched: bool, fn: Callable[[Array], Array]) -> Array:
    """Apply `fn` to each channel of each uint8 <H, W> or <H, W, C> image (`Equalize`, `AutoContrast`)."""

    def per_image(image: Array, _: Any) -> Array:
        if image.ndim == 2:
            return fn(image)
        return np.stack([fn(image[..., c]) for c in range(image.shape[-1])], axis=-1)

    return each_image(x, batched, per_image)
