"""General operations: `TypeCast`, `OneHot`, `Compose`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_number
from .._apply import apply_row
from .._checks import check_int
from .._dtypes import to_numpy_dtype
from .._transform import TensorOperation, UnaryOperation

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .._block import Array

__all__ = ["Compose", "OneHot", "TypeCast"]


class TypeCast(UnaryOperation):
    """Cast to another dtype.

    Args:
        data_type: A cadence type (`cadence.int32`), a numpy dtype or its name.

    Raises:
        TypeError: If `data_type` is not a numeric or bool dtype.

    Example:
        >>> import numpy as np
        >>> import cadence
        >>> from cadence.dataset import transforms
        >>> transforms.TypeCast(cadence.int32)(np.uint32(7)).dtype
        dtype('int32')
    """

    def __init__(self, data_type: Any) -> None:
        self.data_type = to_numpy_dtype(data_type, "data_type", "TypeCast")

    def _apply(self, x: Array, batched: bool) -> Array:
        return x.astype(self.data_type, copy=False)


class OneHot(UnaryOperation):
    """Turn integer labels into one-hot vectors (a new last axis of `num_classes`).

    Args:
        num_classes: Number of classes, >= 1.
        smoothing_rate: Label smoothing in [0, 1]: targets become
            `1 - rate + rate / num_classes` and `rate / num_classes` (float32).
            With 0 the output keeps the label's dtype.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If an argument is out of range.
        RuntimeError: When applied, if a label is outside [0, num_classes).
    """

    def __init__(self, num_classes: int, smoothing_rate: float = 0.0) -> None:
        self.num_classes = check_int(num_classes, "num_classes", "OneHot", minimum=1)
        rate = check_number(
            smoothing_rate, "smoothing_rate", "OneHot", minimum=0.0, maximum=1.0
        )
        self.smoothing_rate = rate

    def _apply(self, x: Array, batched: bool) -> Array:
        if x.dtype.kind not in "iu":
            raise RuntimeError(
                f"OneHot: labels must be integers, but got dtype {x.dtype}."
            )
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            raise RuntimeError(
                f"OneHot: labels must be in [0, {self.num_classes}), but got values from {x.min()} to {x.max()}."
            )
        hot = x[..., np.newaxis] == np.arange(self.num_classes)
        if not self.smoothing_rate:
            same: Array = hot.astype(x.dtype)
            return same
        rate = np.float32(self.smoothing_rate)
        smooth: Array = hot.astype(np.float32) * (
            np.float32(1.0) - rate
        ) + rate / np.float32(self.num_classes)
        return smooth


class Compose(TensorOperation):
    """Chain operations into one: each receives what the previous returned.

    Args:
        transforms: A non-empty list of operations or callables.

    Raises:
        TypeError: If `transforms` is not a non-empty list of callables.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms, vision
        >>> op = transforms.Compose([vision.Rescale(1 / 255, 0), vision.HWC2CHW()])
        >>> op(np.zeros((4, 4, 3), np.uint8)).shape
        (3, 4, 4)
    """

    def __init__(self, transforms: Sequence[Callable[..., Any]]) -> None:
        if (
            not isinstance(transforms, list | tuple)
            or not transforms
            or not all(callable(t) for t in transforms)
        ):
            raise TypeError(
                f"For 'Compose', the argument 'transforms' must be a non-empty list of callables, but got {transforms!r}."
            )
        self.transforms = list(transforms)

    def _block_capable(self) -> bool:
        return all(
            isinstance(t, TensorOperation) and t._block_capable()
            for t in self.transforms
        )

    def _apply_sample(self, *arrays: Array) -> tuple[Array, ...]:
        return tuple(apply_row(self.transforms, list(arrays)))

    def _apply_block(self, *columns: Array) -> tuple[Array, ...]:
        for op in self.transforms:
            assert isinstance(op, TensorOperation)
            columns = op._apply_block(*columns)
        return columns
