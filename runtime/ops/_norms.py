"""`ops.norm` (`Tensor.norm`): vector and matrix norms with MindSpore 2.x's `ord`/`dim` rules, differentiable; `ops.L2Normalize`.

Vector norms (an int `dim`, or a 1-D input) and the elementwise matrix norm
('fro') compose the differentiable reductions; the norms of singular values
('nuc', 2, -2) use `singular_values`, whose gradient is U diag(g) V^T.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..validation import check_bool
from . import _functional as f

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["l2_normalize", "norm", "singular_values"]

_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def singular_values(input: Any) -> Tensor:
    """Singular values of each matrix of `input` (..., M, N), descending; differentiable where they are distinct."""
    t = f.as_tensor(input)
    u, s, vt = np.linalg.svd(np.asarray(t._data), full_matrices=False)
    k = s.shape[-1]

    def grad_fn() -> f.GradFn:
        def backward(g: Any) -> tuple[Any]:
            gs = np.asarray(g)[..., None, :]
            return ((u[..., :, :k] * gs) @ vt[..., :k, :],)

        return backward

    return f.record(s.astype(t._data.dtype), (t,), grad_fn)


def _vector_norm(x: Tensor, p: float, dim: Any, keepdim: bool) -> Tensor:
    a = f.abs(x)
    if p == math.inf:
        return f.amax(a, dim, keepdim)
    if p == -math.inf:
        return f.amin(a, dim, keepdim)
    if p == 0:
        return f.sum(f.cast(f.not_equal(x, 0), x.dtype), dim, keepdim)
    if p == 1:
        return f.sum(a, dim, keepdim)
    if p == 2:
        return f.sqrt(f.sum(f.square(x), dim, keepdim))
    return f.pow(f.sum(f.pow(a, p), dim, keepdim), 1.0 / p)


def _matrix_norm(x: Tensor, ord: Any, dim: tuple[int, int], keepdim: bool) -> Tensor:
    rows, cols = (d % x.ndim for d in dim)
    if ord == "fro":
        return f.sqrt(f.sum(f.square(x), (rows, cols), keepdim))
    if ord in (1, -1, math.inf, -math.inf):
        # Column sums (1) or row sums (inf) of |x|, then their maximum or minimum.
        summed, over = (rows, cols) if abs(ord) == 1 else (cols, rows)
        sums = f.sum(f.abs(x), summed, True)
        pick = f.amax if ord > 0 else f.amin
        out = pick(sums, over, True)
        return out if keepdim else f.squeeze(out, (rows, cols))
    rest = [d for d in range(x.ndim) if d not in (rows, cols)]
    s = singular_values(f.transpose(x, (*rest, rows, cols)))
    out = f.sum(s, -1) if ord == "nuc" else (f.amax if ord == 2 else f.amin)(s, -1)
    if keepdim:
        out = f.expand_dims(f.expand_dims(out, min(rows, cols)), max(rows, cols))
    return out


def _dims(dim: Any, ndim: int) -> tuple[int, ...] | None:
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) and not isinstance(dim, bool) else dim
    if (
        not isinstance(dims, tuple | list)
        or not all(
            isinstance(d, int) and not isinstance(d, bool) and -ndim <= d < max(ndim, 1)
            for d in dims
        )
        or len(dims) not in (1, 2)
    ):
        raise ValueError(
            f"For 'norm', the argument 'dim' must be None, an axis or a pair of axes of the "
            f"{ndim}-D input, but got {dim!r}."
        )
    return tuple(dims)


def norm(
    A: Any,  # noqa: N803 (MindSpore's name)
    ord: Any = None,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """The norm of `A`: over all elements (2-norm) when `ord` and `dim` are None, else as MindSpore's `ops.norm`.

    An int `dim` (or a 1-D input) takes a vector norm of order `ord` (any number,
    inf, -inf, 0 counts non-zeros); a pair of axes (or a 2-D input with `ord`
    given) takes a matrix norm: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf.
    """
    x = f.as_tensor(A)
    check_bool(keepdim, "keepdim", "norm")
    if dtype is not None:
        x = f.cast(x, dtype)
    if x._data.dtype.kind != "f":
        raise TypeError(
            f"For 'norm', the input must be a float tensor, but got dtype {x.dtype!r}."
        )
    dims = _dims(dim, x.ndim)
    if ord is None:
        return f.sqrt(f.sum(f.square(x), dims, keepdim))
    if dims is None and x.ndim not in (1, 2):
        raise ValueError(
            f"For 'norm', an 'ord' needs a 1-D or 2-D input or a 'dim', but got ord={ord!r} "
            f"with a {x.ndim}-D input."
        )
    if dims is None:
        dims = tuple(range(x.ndim))
    if len(dims) == 2:
        if ord not in _MATRIX_ORDS:
            raise ValueError(
                f"For 'norm', a matrix norm's 'ord' must be one of {_MATRIX_ORDS}, but got {ord!r}."
            )
        return _matrix_norm(x, ord, (dims[0], dims[1]), keepdim)
    if isinstance(ord, bool) or not isinstance(ord, int | float):
        raise ValueError(
            f"For 'norm', a vector norm's 'ord' must be a number, but got {ord!r}."
        )
    return _vector_norm(x, float(ord), dims, keepdim)


def l2_normalize(x: Any, *, axis: Any = 0, epsilon: Any = 1e-4) -> Tensor:
    """`ops.L2Normalize(axis, epsilon)(x)`: x / sqrt(max(sum(x**2 over axis), epsilon))."""
    t = f.as_tensor(x)
    dims = (axis,) if isinstance(axis, int) and not isinstance(axis, bool) else axis
    if not isinstance(dims, tuple | list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and -t.ndim <= d < t.ndim
        for d in dims
    ):
        raise ValueError(
            f"For 'L2Normalize', the argument 'axis' must be an int or a tuple/list of ints in "
            f"[{-t.ndim}, {t.ndim}), but got {axis!r}."
        )
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, int | float)
        or not epsilon > 0
    ):
        raise ValueError(
            f"For 'L2Normalize', the argument 'epsilon' must be a number > 0, but got {epsilon!r}."
        )
    squares = f.sum(f.square(t), tuple(d % t.ndim for d in dims), True)
    return f.div(t, f.sqrt(f.maximum(squares, epsilon)))
