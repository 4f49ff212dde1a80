"""Ops that make new tensors from numbers: `arange` (`ops.range`, `ops.Range`), `linspace` (`ops.LinSpace`), `eye` (`ops.Eye`).

None has a gradient: their inputs are numbers, not tracked tensors. Integers
give Int64 and floats Float32, as MindSpore's do; `dtype` converts.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._tensor import Tensor
from ..validation import check_non_negative_int, check_positive_int

__all__ = ["arange", "eye", "eye_op", "full", "full_like", "linspace", "range_op"]


def _scalar(value: Any, name: str, op: str) -> int | float:
    """A Python number from an int, a float or a one-element Tensor (bool is not a number here)."""
    if isinstance(value, Tensor) and value.size == 1:
        value = value.asnumpy().reshape(()).item()
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(
            f"For '{op}', the argument '{name}' must be an int, a float or a one-element Tensor, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
    return value


def _count(bounds: tuple[int | float, ...], op: str) -> int:
    start, end, step = bounds
    if step == 0:
        raise ValueError(
            f"For '{op}', the argument 'step' must not be 0, but got {step!r}."
        )
    if (end - start) * step < 0:
        direction = "positive" if end > start else "negative"
        raise ValueError(
            f"For '{op}', the argument 'step' must be {direction} to go from start={start!r} "
            f"to end={end!r}, but got {step!r}."
        )
    return max(math.ceil((end - start) / step), 0)


def arange(
    start: Any = 0, end: Any = None, step: Any = 1, *, dtype: Any = None
) -> Tensor:
    """`start`, `start + step`, ... up to but excluding `end` (`arange(n)` counts from 0).

    Int64 when all three are integers, Float32 when one is a float; `dtype` converts.
    """
    if end is None:
        start, end = 0, start
    bounds = tuple(
        _scalar(v, n, "arange")
        for v, n in ((start, "start"), (end, "end"), (step, "step"))
    )
    count = _count(bounds, "arange")
    floating = any(isinstance(v, float) for v in bounds)
    out = bounds[0] + np.arange(count) * bounds[2]
    kind = _dtype.float32 if floating else _dtype.int64
    return Tensor._wrap(out.astype(_dtype.to_numpy(dtype or kind)))


def range_op(start: Any, end: Any, step: Any, maxlen: int = 1000000) -> Tensor:
    """`ops.range` / `ops.Range(maxlen)(start, end, step)`: `arange` with three scalars of one kind.

    As MindSpore on the CPU, `maxlen` (a bound for static-shape backends) is
    checked but does not cut the result.
    """
    check_positive_int(maxlen, "maxlen", "Range")
    bounds = [
        _scalar(v, n, "Range")
        for v, n in ((start, "start"), (end, "end"), (step, "step"))
    ]
    if len({isinstance(v, float) for v in bounds}) > 1:
        raise TypeError(
            f"For 'Range', the arguments 'start', 'end' and 'step' must be all integers or all "
            f"floats, but got {tuple(bounds)!r}."
        )
    return arange(*bounds)


def eye(n: Any, m: Any = None, dtype: Any = None) -> Tensor:
    """An (n, m) matrix (m defaults to n) with ones on the diagonal, Float32 unless `dtype` says."""
    rows = check_non_negative_int(n, "n", "eye")
    cols = rows if m is None else check_non_negative_int(m, "m", "eye")
    return Tensor._wrap(
        np.eye(rows, cols, dtype=_dtype.to_numpy(dtype or _dtype.float32))
    )


def eye_op(n: Any, m: Any, dtype: Any) -> Tensor:
    """`ops.Eye()(n, m, dtype)`: all three are required, as in MindSpore."""
    if not isinstance(dtype, _dtype.Type):
        raise TypeError(
            f"For 'Eye', the argument 'dtype' must be a cadence type such as cadence.float32, "
            f"but got {dtype!r}."
        )
    return eye(n, m, dtype)


def linspace(start: Any, end: Any, steps: Any) -> Tensor:
    """`steps` evenly spaced Float32 values from `start` to `end`, both included (`ops.LinSpace()` too)."""
    first, last = _scalar(start, "start", "linspace"), _scalar(end, "end", "linspace")
    count = check_positive_int(
        int(steps.asnumpy()) if isinstance(steps, Tensor) else steps,
        "steps",
        "linspace",
    )
    return Tensor._wrap(np.linspace(first, last, count).astype(np.float32))


def full(size: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """A tensor of shape `size` filled with `fill_value`.

    Without `dtype`: Bool for a bool, Int64 for an int, Float32 for a float (MindSpore
    2.10 makes all three Int64: see docs/mindspore-differences.md).
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
            f"For 'full', the argument 'fill_value' must be a bool, an int, a float or a 0-d Tensor, "
            f"but got {fill_value!r}."
        )
    inferred = (
        _dtype.bool_
        if isinstance(value, bool)
        else _dtype.int64
        if isinstance(value, int)
        else _dtype.float32
    )
    return Tensor._wrap(np.full(shape, value, dtype=_dtype.to_numpy(dtype or inferred)))


def full_like(input: Any, fill_value: Any, *, dtype: Any = None) -> Tensor:
    """A tensor of `input`'s shape filled with `fill_value`, in `dtype` (`input`'s dtype by default)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"For 'full_like', the argument 'input' must be a Tensor, but got {type(input).__name__!r}."
        )
    return full(input.shape, fill_value, dtype=dtype or input.dtype)
