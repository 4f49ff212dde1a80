"""Ops on the last two axes as matrices: `tril`, `triu`, `trace` and pairwise distances `cdist`.

`tril`/`triu` select with a constant mask (so inf above the diagonal becomes 0,
not NaN), and pass the gradient where they kept the input. `cdist` has its own
backward: the p-norm's gradient at a zero distance is taken as 0, as MindSpore's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_number
from . import _functional as f
from ._elementwise import select

__all__ = ["cdist", "trace", "tril", "triu"]


def _triangle(input: Any, diagonal: Any, op: str, lower: bool) -> Tensor:
    t = f.as_tensor(input)
    if isinstance(diagonal, bool) or not isinstance(diagonal, int):
        raise TypeError(
            f"For '{op}', the argument 'diagonal' must be an int, but got {diagonal!r}."
        )
    if t.ndim < 2:
        raise ValueError(
            f"For '{op}', the input must have at least 2 dimensions, but got shape {t.shape}."
        )
    rows, cols = t.shape[-2:]
    keep = np.tri(rows, cols, diagonal, dtype=bool)
    if not lower:
        keep = ~np.tri(rows, cols, diagonal - 1, dtype=bool)
    return select(Tensor._wrap(keep), t, f.zeros_like(t))


def tril(input: Any, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two axes: elements with column - row <= `diagonal`, zeros elsewhere."""
    return _triangle(input, diagonal, "tril", lower=True)


def triu(input: Any, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two axes: elements with column - row >= `diagonal`, zeros elsewhere."""
    return _triangle(input, diagonal, "triu", lower=False)


def trace(input: Any) -> Tensor:
    """The sum of the diagonal of a 2-D tensor."""
    t = f.as_tensor(input)
    if t.ndim != 2:
        raise ValueError(
            f"For 'trace', the input must be 2-D, but got shape {t.shape}."
        )
    n = min(t.shape)
    diagonal = Tensor._wrap(np.arange(n, dtype=np.int64))
    return f.sum(f.getitem(t, (diagonal, diagonal)))


def _pnorm(d: Any, p: float) -> Any:
    """The p-norm over the last axis of the (..., P, R, M) differences."""
    a = np.abs(d)
    if p == 0:
        return (a != 0).sum(-1).astype(d.dtype)
    if p == math.inf:
        return a.max(-1)
    return (a**p).sum(-1) ** (1.0 / p)


def _pnorm_grad(d: Any, dist: Any, p: float) -> Any:
    """d(dist)/d(d), 0 where the distance is 0 (and everywhere for p = 0)."""
    # The sign as two comparisons: elementwise calls device arrays have kernels for.
    a, dk = np.abs(d), dist[..., None]
    sign = (d > 0).astype(d.dtype) - (d < 0).astype(d.dtype)
    if p == 0:
        return np.zeros_like(d)
    if p == math.inf:
        top = a == dk
        return sign * top / np.maximum(top.sum(-1, keepdims=True), 1)
    safe = np.where(dk > 0, dk, 1)
    return np.where(dk > 0, sign * (a / safe) ** (p - 1), 0)


def cdist(x1: Any, x2: Any, p: float = 2.0) -> Tensor:
    """The p-norm distances between the rows of `x1` (B, P, M) and of `x2` (B, R, M): shape (B, P, R).

    The batch axis B is optional (2-D inputs); `p` >= 0, inf takes the largest
    difference, 0 counts the differing coordinates.
    """
    a, b = f.as_tensor(x1), f.as_tensor(x2)
    order = check_number(p, "p", "cdist", minimum=0)
    for name, t in (("x1", a), ("x2", b)):
        if t.ndim not in (2, 3) or t._data.dtype.kind != "f":
            raise TypeError(
                f"For 'cdist', the argument '{name}' must be a 2-D or 3-D float tensor, but got "
                f"dtype {t.dtype!r} and shape {t.shape}."
            )
    if a.ndim != b.ndim or a.shape[-1] != b.shape[-1] or a.shape[:-2] != b.shape[:-2]:
        raise ValueError(
            f"For 'cdist', 'x1' and 'x2' must have the same rank, batch size and number of "
            f"columns, but got shapes {a.shape} and {b.shape}."
        )
    diff = a._data[..., :, None, :] - b._data[..., None, :, :]
    dist = _pnorm(diff, order).astype(a._data.dtype)

    def grad_fn() -> f.GradFn:
        def backward(g: Any) -> tuple[Any, Any]:
            gd = g[..., None] * _pnorm_grad(diff, dist, order)
            return gd.sum(-2), -gd.sum(-3)

        return backward

    return f.record(dist, (a, b), grad_fn)
