"""More elementwise ops: trigonometry, rounding, `log1p`/`expm1`, logic and `select`.

Differentiable ones attach their backward through `_functional`'s helpers;
rounding and logic return constants, as in MindSpore.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_bool, check_number, check_type
from ._functional import GradFn, _operand, _unary, as_tensor, record, unbroadcast

__all__ = [
    "ceil",
    "cos",
    "expm1",
    "floor",
    "isclose",
    "isfinite",
    "isinf",
    "isnan",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "select",
    "sin",
]


def sin(input: Any) -> Tensor:
    """Elementwise sine."""
    return _unary(input, np.sin, lambda g, x, y: g * np.cos(x))


def cos(input: Any) -> Tensor:
    """Elementwise cosine."""
    return _unary(input, np.cos, lambda g, x, y: -g * np.sin(x))


def log1p(input: Any) -> Tensor:
    """Elementwise log(1 + x), accurate near 0."""
    return _unary(input, np.log1p, lambda g, x, y: g / (1 + x))


def expm1(input: Any) -> Tensor:
    """Elementwise exp(x) - 1, accurate near 0."""
    return _unary(input, np.expm1, lambda g, x, y: g * (y + 1))


def _constant(fn: Any, *inputs: Any) -> Tensor:
    return Tensor._wrap(np.asarray(fn(*(_operand(i)[1] for i in inputs))))


def floor(input: Any) -> Tensor:
    """Elementwise floor (no gradient)."""
    return _constant(np.floor, input)


def ceil(input: Any) -> Tensor:
    """Elementwise ceiling (no gradient)."""
    return _constant(np.ceil, input)


def logical_and(input: Any, other: Any) -> Tensor:
    """Elementwise AND of Bool tensors."""
    return _constant(np.logical_and, input, other)


def logical_or(input: Any, other: Any) -> Tensor:
    """Elementwise OR of Bool tensors."""
    return _constant(np.logical_or, input, other)


def logical_not(input: Any) -> Tensor:
    """Elementwise NOT of a Bool tensor."""
    return _constant(np.logical_not, input)


def isfinite(input: Any) -> Tensor:
    """Elementwise: neither inf nor NaN (Bool; loss-scaling cells check gradients with it)."""
    return _constant(np.isfinite, input)


def isnan(input: Any) -> Tensor:
    """Elementwise: NaN (Bool)."""
    return _constant(np.isnan, input)


def isinf(input: Any) -> Tensor:
    """Elementwise: inf or -inf (Bool)."""
    return _constant(np.isinf, input)


def isclose(
    input: Any,
    other: Any,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    """Elementwise |input - other| <= atol + rtol * |other| (Bool); equal infinities are close.

    Both are Tensors of one dtype, broadcast together; NaNs are close to each other
    only with `equal_nan`.
    """
    owner = "isclose"
    a, b = (
        check_type(input, "input", Tensor, owner),
        check_type(other, "other", Tensor, owner),
    )
    if a.dtype != b.dtype:
        raise TypeError(
            f"For '{owner}', 'input' and 'other' must have one dtype, but got {a.dtype!r} and {b.dtype!r}."
        )
    check_number(rtol, "rtol", owner)
    check_number(atol, "atol", owner)
    check_bool(equal_nan, "equal_nan", owner)
    return _constant(
        lambda x, y: np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan), a, b
    )


def select(condition: Any, input: Any, other: Any) -> Tensor:
    """`input` where `condition` holds, else `other`; each side's gradient flows where it was chosen."""
    cond = as_tensor(condition)._data.astype(bool)
    a, b = as_tensor(input), as_tensor(other)
    out = np.where(cond, a._data, b._data)

    def grad_fn() -> GradFn:
        def backward(g: Any) -> tuple[Any, Any]:
            ga = unbroadcast(np.where(cond, g, 0), a.shape) if a._tracked else None
            gb = unbroadcast(np.where(cond, 0, g), b.shape) if b._tracked else None
            return ga, gb

        return backward

    return record(out, (a, b), grad_fn)
