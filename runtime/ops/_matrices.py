"""Matrix ops: `tril`, `triu`, `trace`, pairwise distances `cdist` and `tensor_dot`.

`tensor_dot` is a transpose, a reshape and one matrix product, so it shares
`matmul`'s kernels and gradient.

`tril`/`triu` select with a constant mask (so inf above the diagonal becomes 0,
not NaN), and pass the gradient where they kept the input. `cdist` has its own
backward: the p-norm's gradient at a zero distance is taken as 0, as MindSpore's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_number, check_type
from . import _functional as f
from ._elementwise import select

__all__ = ["cdist", "tensor_dot", "trace", "tril", "triu"]


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


# Above this many rows on a side, the 2-norm comes from matrix products (BLAS, no
# (P, R, M) differences): |a|^2 + |b|^2 - 2 a.b, as PyTorch does past 25 rows. It
# loses digits for near points, so small inputs keep the exact differences.
_EUCLID_BY_PRODUCTS = 25


def _euclidean(a: Tensor, b: Tensor) -> Tensor:
    """The 2-norm distances of `cdist` by matrix products, and their gradient by products too."""
    x, y = a._data, b._data
    norms = (x * x).sum(-1)[..., :, None] + (y * y).sum(-1)[..., None, :]
    squares = norms - 2 * f.matmul_arrays(x, y, False, True)
    # What rounding leaves of an exact zero (the same point twice) is a zero distance,
    # or its gradient would divide by that remainder.
    noise = 8 * np.finfo(x.dtype).eps * norms
    dist = np.sqrt(np.where(squares > noise, squares, 0))

    def grad_fn() -> f.GradFn:
        def backward(g: Any) -> tuple[Any, Any]:
            # d dist_ij / d x_i = (x_i - y_j) / dist_ij, taken as 0 at a zero distance.
            w = np.where(dist > 0, g / np.where(dist > 0, dist, 1), 0).astype(x.dtype)
            gx = x * w.sum(-1)[..., None] - w @ y
            gy = y * w.sum(-2)[..., None] - f.matmul_arrays(w, x, True, False)
            return gx, gy

        return backward

    return f.record(dist.astype(x.dtype), (a, b), grad_fn)


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
    if order == 2 and max(a.shape[-2], b.shape[-2]) > _EUCLID_BY_PRODUCTS:
        return _euclidean(a, b)
    diff = a._data[..., :, None, :] - b._data[..., None, :, :]
    dist = _pnorm(diff, order).astype(a._data.dtype)

    def grad_fn() -> f.GradFn:
        def backward(g: Any) -> tuple[Any, Any]:
            gd = g[..., None] * _pnorm_grad(diff, dist, order)
            return gd.sum(-2), -gd.sum(-3)

        return backward

    return f.record(dist, (a, b), grad_fn)


def _contracted(axes: Any, n1: int, n2: int) -> tuple[list[int], list[int]]:
    """`tensor_dot`'s `axes` as two lists of axes: an int k (the last k of x1, the first k of x2) or a pair."""
    owner = "tensor_dot"
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(n1, n2):
            raise ValueError(
                f"For '{owner}', the argument 'axes' must be in [0, {min(n1, n2)}], but got {axes}."
            )
        return list(range(n1 - axes, n1)), list(range(axes))
    if not isinstance(axes, tuple | list) or len(axes) != 2:
        raise TypeError(
            f"For '{owner}', the argument 'axes' must be an int or a pair of ints or of sequences, "
            f"but got {axes!r}."
        )
    first, second = (list(a) if isinstance(a, tuple | list) else [a] for a in axes)
    if len(first) != len(second):
        raise ValueError(
            f"For '{owner}', the two entries of 'axes' must have one length, but got {axes!r}."
        )
    named = [(a, n1) for a in first] + [(b, n2) for b in second]
    if not all(
        isinstance(i, int) and not isinstance(i, bool) and -n <= i < n for i, n in named
    ):
        raise ValueError(
            f"For '{owner}', the argument 'axes' must name axes of the inputs (ranks {n1} and "
            f"{n2}), but got {axes!r}."
        )
    return [a % n1 for a in first], [b % n2 for b in second]


def tensor_dot(x1: Any, x2: Any, axes: Any) -> Tensor:
    """Sum of products over the axes `axes` pairs up; the free axes of `x1`, then of `x2`, remain."""
    owner = "tensor_dot"
    a, b = check_type(x1, "x1", Tensor, owner), check_type(x2, "x2", Tensor, owner)
    if a.dtype != b.dtype:
        raise TypeError(
            f"For '{owner}', 'x1' and 'x2' must have one dtype, but got {a.dtype!r} and {b.dtype!r}."
        )
    on_a, on_b = _contracted(axes, a.ndim, b.ndim)
    if [a.shape[i] for i in on_a] != [b.shape[j] for j in on_b]:
        raise ValueError(
            f"For '{owner}', the contracted axes must have equal sizes, but got {a.shape} and "
            f"{b.shape} contracted over {on_a} and {on_b}."
        )
    free_a = [i for i in range(a.ndim) if i not in on_a]
    free_b = [j for j in range(b.ndim) if j not in on_b]
    sizes_a, sizes_b = [a.shape[i] for i in free_a], [b.shape[j] for j in free_b]
    k = math.prod(a.shape[i] for i in on_a)
    left = f.reshape(f.transpose(a, tuple(free_a + on_a)), (math.prod(sizes_a), k))
    right = f.reshape(f.transpose(b, tuple(on_b + free_b)), (k, math.prod(sizes_b)))
    shape = tuple(sizes_a + sizes_b)
    return f.reshape(f.matmul(left, right), shape)
