"""Operations on values: `Fill`, `Mask` (with `Relational`), `Unique`."""

from __future__ import annotations

import enum
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from .._dtypes import to_numpy_dtype
from .._transform import TensorOperation, UnaryOperation

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._block import Array

__all__ = ["Fill", "Mask", "Relational", "Unique"]


def _check_scalar(value: Any, name: str, owner: str) -> Any:
    if not isinstance(value, int | float | str | bytes | np.generic) or isinstance(
        value, np.void
    ):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a number, bool or string, but got {value!r} "
            f"of type {type(value).__name__!r}."
        )
    return value


class Fill(UnaryOperation):
    """Replace every element with `fill_value`, keeping the shape and the dtype (a float into ints is truncated).

    Args:
        fill_value: A number, bool or string (for string arrays).

    Raises:
        TypeError: If `fill_value` is not a scalar.
        RuntimeError: When applied, if a string fills numbers or a number fills strings.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> transforms.Fill(2.7)(np.arange(3, dtype=np.int32))
        array([2, 2, 2], dtype=int32)
    """

    def __init__(self, fill_value: Any) -> None:
        self.fill_value = _check_scalar(fill_value, "fill_value", "Fill")

    def _apply(self, x: Array, batched: bool) -> Array:
        if (x.dtype.kind in "SU") != isinstance(self.fill_value, str | bytes):
            raise RuntimeError(
                f"Fill: the value {self.fill_value!r} cannot fill an array of {x.dtype}."
            )
        if x.dtype.kind in "SU":
            return np.full(x.shape, self.fill_value)
        return np.full(x.shape, self.fill_value).astype(x.dtype)


class Relational(enum.Enum):
    """The comparisons of `Mask`, with MindSpore's names."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE: dict[Relational, Callable[[Any, Any], Any]] = {
    Relational.EQ: operator.eq,
    Relational.NE: operator.ne,
    Relational.GT: operator.gt,
    Relational.GE: operator.ge,
    Relational.LT: operator.lt,
    Relational.LE: operator.le,
}


class Mask(UnaryOperation):
    """Compare every element with `constant`: the mask of where `element <operator> constant` holds.

    Args:
        operator: A `Relational` (EQ, NE, GT, GE, LT, LE).
        constant: The number (or string) compared with.
        dtype: The mask's dtype (a cadence or numpy dtype); bool by default.

    Raises:
        TypeError: If an argument has the wrong type.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> transforms.Mask(transforms.Relational.GE, 2)(np.arange(4))
        array([False, False,  True,  True])
    """

    def __init__(
        self, operator: Relational, constant: Any, dtype: Any = np.bool_
    ) -> None:
        if not isinstance(operator, Relational):
            raise TypeError(
                f"For 'Mask', the argument 'operator' must be a Relational, but got {operator!r}."
            )
        self.operator = operator
        self.constant = _check_scalar(constant, "constant", "Mask")
        self.dtype = to_numpy_dtype(dtype, "dtype", "Mask")

    def _apply(self, x: Array, batched: bool) -> Array:
        result: Array = np.asarray(_COMPARE[self.operator](x, self.constant)).astype(
            self.dtype
        )
        return result


class Unique(TensorOperation):
    """The distinct elements of an array in order of first appearance, each element's index among them, and their counts.

    The input is flattened. Outputs: the unique elements (the input's dtype),
    then int32 indices (one per input element) and int32 counts: three columns
    (name them with `output_columns` in `Dataset.map`).

    Raises:
        RuntimeError: When applied to a 0-d array.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> values, index, counts = transforms.Unique()(np.array([5, 3, 5, 1]))
        >>> values.tolist(), index.tolist(), counts.tolist()
        ([5, 3, 1], [0, 1, 0, 2], [2, 1, 1])
    """

    def _block_capable(self) -> bool:
        return False  # the outputs' lengths differ from row to row

    def _apply_sample(self, *arrays: Array) -> tuple[Array, ...]:
        if len(arrays) != 1:
            raise TypeError(
                f"Unique takes exactly one input column, but got {len(arrays)}."
            )
        x = arrays[0]
        if x.ndim == 0:
            raise RuntimeError(
                "Unique: the input must have at least one dimension, but got a 0-d array."
            )
        flat = x.ravel()
        values, first, inverse, counts = np.unique(
            flat, return_index=True, return_inverse=True, return_counts=True
        )
        order = np.argsort(
            first, kind="stable"
        )  # sorted values -> order of first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return (
            values[order],
            rank[inverse.ravel()].astype(np.int32),
            counts[order].astype(np.int32),
        )

    def __repr__(self) -> str:
        return "Unique()"
