"""`TensorOperation`: the base of cadence's `vision` and `transforms` operations.

An operation can run eagerly on one sample (`op(image)`, as in MindSpore) and,
inside `Dataset.map`, on a whole block of samples stacked along a new first
axis (`_apply_block`), which is what makes mapping it cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ._block import Array

__all__ = ["TensorOperation", "UnaryOperation", "as_array"]


def as_array(value: Any) -> Array:
    """Return `value` (a numpy array, a `cadence.Tensor`, a number or nested list) as an array."""
    data = value.asnumpy() if hasattr(value, "asnumpy") else value
    return np.asarray(data)


class TensorOperation:
    """Base class of cadence's dataset operations; subclassed by cadence only.

    Calling an operation applies it to one sample and returns numpy arrays (one
    array for one output). Pass operations to `Dataset.map` to apply them to a
    column.
    """

    def __call__(self, *inputs: Any) -> Any:
        outputs = self._apply_sample(*(as_array(x) for x in inputs))
        return outputs[0] if len(outputs) == 1 else outputs

    def _apply_sample(self, *arrays: Array) -> tuple[Array, ...]:
        """Apply to one sample."""
        raise NotImplementedError

    def _apply_block(self, *columns: Array) -> tuple[Array, ...]:
        """Apply to samples stacked along a new first axis."""
        raise NotImplementedError

    def _block_capable(self) -> bool:
        """Whether `_apply_block` may be used."""
        return True

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_")
        )
        return f"{type(self).__name__}({fields})"


class UnaryOperation(TensorOperation):
    """An operation with one input and one output column; subclasses implement `_apply`."""

    def _apply(self, x: Array, batched: bool) -> Array:
        """Apply to `x`: one sample, or samples stacked on axis 0 when `batched`."""
        raise NotImplementedError

    def _apply_sample(self, *arrays: Array) -> tuple[Array, ...]:
        return (self._apply(self._single(arrays), False),)

    def _apply_block(self, *columns: Array) -> tuple[Array, ...]:
        return (self._apply(self._single(columns), True),)

    def _single(self, arrays: tuple[Array, ...]) -> Array:
        if len(arrays) != 1:
            raise TypeError(
                f"{type(self).__name__} takes exactly one input column, but got {len(arrays)}."
            )
        return arrays[0]
