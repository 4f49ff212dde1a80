"""Spread of a tensor's elements: `var` and `std` (`Tensor.var`, `Tensor.std`), differentiable.

Both compose the differentiable `mean`, `sub`, `square` and `sum`, so their
gradients need no backward of their own; `ddof` (delta degrees of freedom)
divides by n - ddof, NaN when that is not positive, as MindSpore's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import _functional as f

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["reduce_std", "std", "var"]


def _axes(axis: Any, ndim: int, op: str) -> tuple[int, ...]:
    dims = (axis,) if isinstance(axis, int) else () if axis is None else axis
    if not isinstance(dims, tuple) or not all(
        isinstance(d, int)
        and not isinstance(d, bool)
        and -max(ndim, 1) <= d < max(ndim, 1)
        for d in dims
    ):
        raise TypeError(
            f"For '{op}', the argument 'axis' must be None, an int or a tuple of ints in "
            f"[{-max(ndim, 1)}, {max(ndim, 1)}), but got {axis!r}."
        )
    return tuple(d % max(ndim, 1) for d in dims) or tuple(range(ndim))


def _variance(input: Any, axis: Any, ddof: Any, keepdims: Any, op: str) -> Tensor:
    t = f.as_tensor(input)
    if t._data.dtype.kind != "f":
        raise TypeError(
            f"For '{op}', the input must be a float tensor, but got dtype {t.dtype!r}."
        )
    if not isinstance(ddof, int):
        raise TypeError(
            f"For '{op}', the argument 'ddof' must be an int or a bool, but got {ddof!r}."
        )
    if not isinstance(keepdims, bool):
        raise TypeError(
            f"For '{op}', the argument 'keepdims' must be a bool, but got {keepdims!r}."
        )
    dims = _axes(axis, t.ndim, op)
    count = int(np.prod([t.shape[d] for d in dims])) - int(ddof)
    centered = f.sub(t, f.mean(t, dims, keep_dims=True))
    total = f.sum(f.square(centered), dims, keepdims)
    return f.mul(total, np.asarray(1.0 / count if count > 0 else np.nan, t._data.dtype))


def var(
    input: Any, axis: Any = None, ddof: int | bool = 0, keepdims: bool = False
) -> Tensor:
    """The variance over `axis` (all axes when None): sum((x - mean)**2) / (n - ddof)."""
    return _variance(input, axis, ddof, keepdims, "var")


def std(
    input: Any, axis: Any = None, ddof: int | bool = 0, keepdims: bool = False
) -> Tensor:
    """The standard deviation over `axis`: the square root of `var`."""
    return f.sqrt(_variance(input, axis, ddof, keepdims, "std"))


def reduce_std(
    input_x: Any, *, axis: Any = (), unbiased: bool = True, keep_dims: bool = False
) -> tuple[Tensor, Tensor]:
    """`ops.ReduceStd(axis, unbiased, keep_dims)(x)`: (standard deviation, mean) over `axis` (all when empty)."""
    t = f.as_tensor(input_x)
    dims = tuple(axis) if isinstance(axis, list) else axis
    dims = None if dims == () else dims
    deviation = f.sqrt(_variance(t, dims, int(unbiased), keep_dims, "ReduceStd"))
    return deviation, f.mean(t, _axes(dims, t.ndim, "ReduceStd"), keep_dims)
