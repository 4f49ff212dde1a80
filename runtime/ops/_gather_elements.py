"""`ops.gather_elements` / `ops.GatherD` and the (value, index) reductions `ops.max` / `ops.min`.

`gather_elements` picks, along one axis, the element each index names:
`out[i][j] = input[i][index[i][j]]` for axis 1. It is composed (no new loop):
the positions become one advanced index, so the forward is `getitem`'s gather and
the gradient its scatter-add (repeated indices add up). `max`/`min` find the index
of the extreme and gather the value there, so, as MindSpore's, the whole gradient
goes to that one element.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_bool, check_int, check_type
from . import _functional as f
from ._elementwise import select
from ._indexing import fits_off_axis

__all__ = ["gather_elements", "max", "min"]

_F = TypeVar("_F", bound=Callable[..., Any])


def _axis(op: str, dim: Any, ndim: int) -> int:
    span = builtins.max(ndim, 1)  # a 0-D input takes axis 0 or -1, as MindSpore's
    return check_int(dim, "dim", op, minimum=-span, maximum=span - 1) % span


def gather_elements(input: Any, dim: int, index: Any) -> Tensor:
    """The elements of `input` at `index` along `dim` (elsewhere, the index's own position).

    `index` is an Int32/Int64 tensor of the input's rank, no larger than the input off
    `dim` (any size along it); negative indices count from the end. Differentiable in `input`.
    """
    op = "gather_elements"
    x = check_type(input, "input", Tensor, op)
    axis = _axis(op, dim, x.ndim)
    pos = _index(op, index, x, axis)
    if x.ndim == 0:
        return f.getitem(x, ())
    size = x.shape[axis]
    if pos.size and (pos.min() < -size or pos.max() >= size):
        raise ValueError(
            f"For '{op}', the values of 'index' must be in [{-size}, {size}) (axis {axis} of the "
            f"input), but got {pos.min()} to {pos.max()}."
        )
    where = list(np.indices(pos.shape, sparse=True))
    where[axis] = pos % size
    return f.getitem(x, tuple(np.broadcast_arrays(*where)))


def _index(op: str, index: Any, x: Tensor, axis: int) -> np.ndarray[Any, Any]:
    check_type(index, "index", Tensor, op)
    pos = np.asarray(index.asnumpy())
    if pos.dtype not in (np.int32, np.int64):
        raise TypeError(
            f"For '{op}', the argument 'index' must be an Int32 or Int64 tensor, but got {index.dtype!r}."
        )
    if not fits_off_axis(pos.shape, x.shape, axis):
        raise ValueError(
            f"For '{op}', the argument 'index' must have the input's rank and be no larger than "
            f"its shape {x.shape} off the gathered axis, but got shape {pos.shape}."
        )
    return pos


def _extreme(
    op: str, input: Any, axis: Any, keepdims: Any, initial: Any, where: Any
) -> tuple[Tensor, Tensor]:
    x = check_type(input, "input", Tensor, op)
    check_bool(keepdims, "keepdims", op)
    largest = op == "max"
    if where is not None:
        if initial is None:
            raise ValueError(f"For '{op}', 'initial' must be given with 'where'.")
        mask = check_type(where, "where", Tensor, op)
        x = select(mask, x, Tensor._wrap(np.asarray(initial, x._data.dtype)))
    if initial is not None:
        bound = Tensor._wrap(np.asarray(initial, x._data.dtype))
        x = f.maximum(x, bound) if largest else f.minimum(x, bound)
    if axis is None:
        # MindSpore 2.10 reduces over all axes and returns index 0, whatever the position.
        value = f.amax(x) if largest else f.amin(x)
        return value, Tensor._wrap(np.zeros((), np.int64))
    dim = _axis(op, axis, x.ndim)
    if x.ndim == 0:
        return x, Tensor._wrap(np.zeros((), np.int64))
    pick = np.argmax if largest else np.argmin
    pos = np.expand_dims(pick(np.asarray(x.asnumpy()), axis=dim), dim).astype(np.int64)
    value = gather_elements(x, dim, Tensor._wrap(pos))
    if not keepdims:
        value, pos = f.squeeze(value, dim), np.squeeze(pos, dim)
    return value, Tensor._wrap(pos)


def max(
    input: Any,
    axis: int | None = None,
    keepdims: bool = False,
    *,
    initial: Any = None,
    where: Any = None,
) -> tuple[Tensor, Tensor]:
    """(maxima, Int64 indices) along `axis`; over all elements (index 0) without one.

    `initial` is a floor on the result; `where` (with `initial`) leaves out the
    elements where it is False. The gradient goes to the chosen element.
    """
    return _extreme("max", input, axis, keepdims, initial, where)


def _same_signature(template: _F, op: str, doc: str) -> _F:
    """`template`'s signature, computing `_extreme(op, ...)`: `min` is `max` with the other comparison."""
    signature = inspect.signature(template)

    def extreme(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return _extreme(op, **bound.arguments)

    extreme.__signature__ = signature  # type: ignore[attr-defined]
    extreme.__name__ = extreme.__qualname__ = op
    extreme.__doc__ = doc
    return cast("_F", extreme)


min = _same_signature(
    max,
    "min",
    "(minima, Int64 indices) along `axis`; as `max`, with `initial` a ceiling.",
)
