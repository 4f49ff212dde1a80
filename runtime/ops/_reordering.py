"""Ops that reorder elements along axes: `flip` (`ops.ReverseV2`), `roll` (`ops.Roll`), `pixel_shuffle`.

`flip` and `roll` are gathers with constant host indices (a reversed slice, a rotated range),
so their gradients put each element's gradient back where it came from, and
they run on device arrays. `pixel_shuffle` is a reshape, a transpose and a reshape.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_int, check_type
from . import _functional as f
from ._composed import gather

__all__ = ["flip", "pixel_shuffle", "reverse_v2", "roll"]


def _dims(dims: Any, ndim: int, name: str, op: str) -> tuple[int, ...]:
    items = (dims,) if isinstance(dims, int) and not isinstance(dims, bool) else dims
    if not isinstance(items, tuple | list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and -ndim <= d < ndim
        for d in items
    ):
        raise ValueError(
            f"For '{op}', the argument '{name}' must be an int or a tuple/list of ints in "
            f"[{-ndim}, {ndim}), but got {dims!r}."
        )
    axes = tuple(d % ndim for d in items)
    if len(set(axes)) != len(axes):
        raise ValueError(
            f"For '{op}', the argument '{name}' must not name an axis twice, but got {dims!r}."
        )
    return axes


def flip(input: Any, dims: Any) -> Tensor:
    """`input` with the order of the elements along each axis of `dims` reversed."""
    t = f.as_tensor(input)
    index = [slice(None)] * t.ndim
    for d in _dims(dims, t.ndim, "dims", "flip"):
        index[d] = slice(None, None, -1)
    return f.getitem(t, tuple(index))


def reverse_v2(x: Any, *, axis: Any) -> Tensor:
    """`ops.ReverseV2(axis)(x)`: `flip` along `axis`."""
    t = f.as_tensor(x)
    _dims(axis, t.ndim, "axis", "ReverseV2")
    return flip(t, axis)


def roll(input: Any, shifts: Any, dims: Any = None) -> Tensor:
    """Rotate the elements by `shifts[i]` along `dims[i]` (of the flattened input when `dims` is None)."""
    t = f.as_tensor(input)
    steps = (
        (shifts,)
        if isinstance(shifts, int) and not isinstance(shifts, bool)
        else shifts
    )
    if not isinstance(steps, tuple | list) or not all(
        isinstance(s, int) and not isinstance(s, bool) for s in steps
    ):
        raise TypeError(
            f"For 'roll', the argument 'shifts' must be an int or a tuple/list of ints, but got {shifts!r}."
        )
    if dims is None:
        if len(steps) != 1:
            raise ValueError(
                f"For 'roll', 'shifts' must be one int when 'dims' is None, but got {shifts!r}."
            )
        return f.reshape(roll(f.reshape(t, (-1,)), steps, 0), t.shape)
    axes = _dims(dims, t.ndim, "dims", "roll")
    if len(axes) != len(steps):
        raise ValueError(
            f"For 'roll', 'shifts' and 'dims' must have the same length, but got {shifts!r} and {dims!r}."
        )
    for axis, step in zip(axes, steps, strict=True):
        n = t.shape[axis]
        if n:
            source = (np.arange(n) - step) % n  # output i takes input i - shift
            t = gather(t, Tensor._wrap(source.astype(np.int64)), axis)
    return t


def pixel_shuffle(input: Any, upscale_factor: int) -> Tensor:
    """(..., C * r * r, H, W) to (..., C, H * r, W * r): each channel group of r * r becomes an r x r block."""
    owner = "pixel_shuffle"
    t = check_type(input, "input", Tensor, owner)
    r = check_int(upscale_factor, "upscale_factor", owner, minimum=1)
    if t.ndim < 3 or t.shape[-3] % (r * r):
        raise ValueError(
            f"For '{owner}', the input must have at least 3 axes and a channel axis (third from "
            f"last) divisible by upscale_factor**2 = {r * r}, but got shape {t.shape}."
        )
    *lead, c, h, w = t.shape
    blocks = f.reshape(t, (*lead, c // (r * r), r, r, h, w))
    n = len(lead)
    order = (*range(n), n, n + 3, n + 1, n + 4, n + 2)  # (..., C, H, r, W, r)
    return f.reshape(f.transpose(blocks, order), (*lead, c // (r * r), h * r, w * r))
