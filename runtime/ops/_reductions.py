"""`ops.sum` with MindSpore 2.x's signature: `sum(input, dim=None, keepdim=False, *, dtype=None)`; `ops.addn`.

The internal reduction (`_functional.sum`) keeps numpy's `axis`/`keepdims` names, which
MindSpore 1.x scripts and `Tensor.sum` also pass; this function accepts both spellings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..validation import check_bool
from . import _functional as f

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["addn", "sum"]


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """`dim` as a tuple of axes in [0, ndim); every axis when None or ()."""
    dims = (dim,) if isinstance(dim, int | np.integer) else () if dim is None else dim
    bound = max(ndim, 1)
    if not isinstance(dims, tuple) or not all(
        isinstance(d, int | np.integer)
        and not isinstance(d, bool)
        and -bound <= d < bound
        for d in dims
    ):
        raise TypeError(
            f"For 'sum', the argument 'dim' must be None, an int or a tuple of ints in "
            f"[{-bound}, {bound}), but got {dim!r}."
        )
    return tuple(int(d) % bound for d in dims) if ndim else ()


def sum(
    input: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
    axis: Any = None, keepdims: bool | None = None,
) -> Tensor:  # fmt: skip
    """The sum over `dim` (an int, a tuple of ints, or None for all axes), in `dtype` when given.

    As in MindSpore, `dtype` converts the input before summing (so int inputs summed as
    float do not overflow); bool and int inputs sum to Int64 without it.
    """
    t = f.as_tensor(input)
    dims = axis if dim is None else dim
    dims = tuple(dims) if isinstance(dims, list) else dims
    keep = keepdim if keepdims is None else keepdims
    check_bool(keep, "keepdim", "sum")
    axes = _dims(dims, t.ndim)
    if dtype is not None:
        t = f.cast(t, dtype)
    return f.sum(t, axes, keep)


def addn(x: Any) -> Tensor:
    """The elementwise sum of a tuple or list of tensors of one shape and dtype (`ops.addn`, `ops.AddN`).

    Summed left to right with `add`, so each input gets the output's gradient.
    """
    from ..compute._tensor import Tensor

    owner = "AddN"
    if not isinstance(x, tuple | list) or not all(isinstance(t, Tensor) for t in x):
        raise TypeError(
            f"For '{owner}', the argument 'x' must be a tuple or list of Tensors, but got {x!r}."
        )
    if not x:  # MindSpore's error is a ValueError too
        raise ValueError(
            f"For '{owner}', the argument 'x' must hold at least one Tensor, but got {x!r}."
        )
    first = x[0]
    for t in x[1:]:
        if t.shape != first.shape or t.dtype != first.dtype:
            raise ValueError(
                f"For '{owner}', every tensor of 'x' must have the first one's shape {first.shape} and "
                f"dtype {first.dtype}, but got shape {t.shape} and dtype {t.dtype}."
            )
    total = first
    for t in x[1:]:
        total = f.add(total, t)
    return total if len(x) > 1 else f.add(first, f.zeros_like(first))
