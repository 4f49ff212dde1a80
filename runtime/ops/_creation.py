"""Tensors made from their arguments (`arange`, `linspace`, `eye`, `full`) and the triangles of matrices (`tril`, `triu`).

MindSpore 2.x code builds position indices, masks and schedules with these; the
created tensors are constants, and `tril`/`triu` pass the gradient through the
kept triangle only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._tensor import Tensor
from ..validation import check_non_negative_int, check_positive_int
from . import _functional as f

__all__ = ["arange", "eye", "full", "linspace", "tril", "triu"]


def _scalar(value: Any, name: str, owner: str) -> int | float:
    """A Python number, or the value of a 0-d Tensor."""
    if isinstance(value, Tensor) and value.ndim == 0:
        value = value.asnumpy().item()
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be an int, a float or a 0-d Tensor, but got {value!r}."
        )
    return value


def _dtype_or(dtype: Any, default: Any) -> np.dtype[Any]:
    return _dtype.to_numpy(default if dtype is None else dtype)


def arange(
    start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None
) -> Tensor:
    """`start, start + step, ...` up to `end` (excluded); `arange(n)` counts from 0 to n - 1.

    int64 when every bound is an int, else float32, unless `dtype` says otherwise.
    """
    if end is None:
        start, end = 0, start
    lo, hi, by = (
        _scalar(v, n, "arange")
        for v, n in ((start, "start"), (end, "end"), (step, "step"))
    )
    if by == 0:
        raise ValueError("For 'arange', the argument 'step' must not be 0, but got 0.")
    if (hi - lo) * by < 0:
        raise ValueError(
            f"For 'arange', 'step' ({by!r}) must lead from 'start' ({lo!r}) towards 'end' ({hi!r})."
        )
    integral = all(isinstance(v, int) for v in (lo, hi, by))
    values = np.arange(lo, hi, by)
    return Tensor._wrap(
        values.astype(_dtype_or(dtype, _dtype.int64 if integral else _dtype.float32))
    )


def linspace(start: Any, end: Any, steps: int) -> Tensor:
    """`steps` evenly spaced float32 values from `start` to `end`, both included."""
    lo, hi = _scalar(start, "start", "linspace"), _scalar(end, "end", "linspace")
    count = check_positive_int(steps, "steps", "linspace")
    return Tensor._wrap(np.linspace(lo, hi, count, dtype=np.float32))


def eye(n: int, m: int | None = None, dtype: Any = None) -> Tensor:
    """An n x m matrix (m = n by default) with ones on the diagonal, float32 by default."""
    rows = check_positive_int(n, "n", "eye")
    cols = rows if m is None else check_positive_int(m, "m", "eye")
    return Tensor._wrap(np.eye(rows, cols, dtype=_dtype_or(dtype, _dtype.float32)))


def full(size: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """A tensor of shape `size` filled with `fill_value`.

    Without `dtype`: bool for a bool, int64 for an int, float32 for a float (MindSpore
    2.10 makes all three int64).
    """
    dims = (size,) if isinstance(size, int) else size
    if not isinstance(dims, tuple | list):
        raise TypeError(
            f"For 'full', the argument 'size' must be an int or a tuple or list of ints, but got {size!r}."
        )
    shape = tuple(check_non_negative_int(d, "size", "full") for d in dims)
    value = (
        fill_value.asnumpy().item()
        if isinstance(fill_value, Tensor) and fill_value.ndim == 0
        else fill_value
    )
    if not isinstance(value, bool | int | float):
        raise TypeError(
            f"For 'full', the argument 'fill_value' must be a bool, an int, a float or a 0-d Tensor, but got {fill_value!r}."
        )
    inferred = (
        _dtype.bool_
        if isinstance(value, bool)
        else _dtype.int64
        if isinstance(value, int)
        else _dtype.float32
    )
    return Tensor._wrap(np.full(shape, value, dtype=_dtype_or(dtype, inferred)))


def _triangle(input: Any, diagonal: int, owner: str, keep: Any) -> Tensor:
    t = f.as_tensor(input)
    if t.ndim < 2:
        raise ValueError(
            f"For '{owner}', the input must have rank 2 or more, but got shape {t.shape}."
        )
    given: Any = diagonal  # checked here, whatever the caller's types said
    if not isinstance(given, int) or isinstance(given, bool):
        raise TypeError(
            f"For '{owner}', the argument 'diagonal' must be an int, but got {diagonal!r}."
        )
    rows, cols = t.shape[-2:]
    mask = keep(np.ones((rows, cols), dtype=bool), diagonal)
    data = np.where(mask, t._data, np.zeros((), t._data.dtype))
    return f.record(data, (t,), lambda: lambda g: (np.where(mask, g, 0),))


def tril(input: Any, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two axes (on and below diagonal `diagonal`); zeros elsewhere."""
    return _triangle(input, diagonal, "tril", np.tril)


def triu(input: Any, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two axes (on and above diagonal `diagonal`); zeros elsewhere."""
    return _triangle(input, diagonal, "triu", np.triu)
