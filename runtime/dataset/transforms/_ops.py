"""General operations: `TypeCast`, `OneHot`, `PadEnd`, `Compose`."""

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

__all__ = ["Compose", "OneHot", "PadEnd", "TypeCast"]


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


class PadEnd(UnaryOperation):
    """Pad (or cut) each axis at its end to the length `pad_shape` gives.

    Args:
        pad_shape: One length per axis of the input; None keeps that axis as it is.
            A longer axis is cut to the length.
        pad_value: The value written into the padding: a number, or a str for string
            arrays. None pads with 0 (or "").

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If a length in `pad_shape` is negative.
        RuntimeError: When applied, if the input's rank is not `len(pad_shape)`.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> transforms.PadEnd([5], pad_value=0)(np.array([7, 8, 9]))
        array([7, 8, 9, 0, 0])
    """

    def __init__(
        self, pad_shape: list[int | None], pad_value: float | str | None = None
    ) -> None:
        shape: Any = pad_shape  # checked here, whatever the caller's types said
        if not isinstance(shape, list) or not all(
            d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in shape
        ):
            raise TypeError(
                f"For 'PadEnd', the argument 'pad_shape' must be a list of int or None, but got {pad_shape!r}."
            )
        if any(d is not None and d < 0 for d in pad_shape):
            raise ValueError(
                f"For 'PadEnd', every length in 'pad_shape' must be >= 0, but got {pad_shape!r}."
            )
        if pad_value is not None and (
            isinstance(pad_value, bool) or not isinstance(pad_value, int | float | str)
        ):
            raise TypeError(
                f"For 'PadEnd', the argument 'pad_value' must be a number, a str or None, but got {pad_value!r}."
            )
        self.pad_shape = list(pad_shape)
        self.pad_value = pad_value

    def _apply(self, x: Array, batched: bool) -> Array:
        rows = x.shape[:1] if batched else ()
        shape = x.shape[len(rows) :]
        if len(shape) != len(self.pad_shape):
            raise RuntimeError(
                f"PadEnd: 'pad_shape' {self.pad_shape} needs an input of rank {len(self.pad_shape)}, but got shape {shape}."
            )
        target = tuple(
            n if want is None else want
            for n, want in zip(shape, self.pad_shape, strict=True)
        )
        strings = x.dtype.kind in "US"
        fill = self.pad_value if self.pad_value is not None else ("" if strings else 0)
        if isinstance(fill, str) != strings:
            raise RuntimeError(
                f"PadEnd: 'pad_value' {fill!r} does not suit an input of dtype {x.dtype}."
            )
        dtype = np.result_type(x.dtype, np.array(fill).dtype) if strings else x.dtype
        out: Array = np.full(rows + target, fill, dtype=dtype)
        kept = tuple(slice(0, min(n, t)) for n, t in zip(shape, target, strict=True))
        out[(slice(None), *kept) if batched else kept] = x[
            (slice(None), *kept) if batched else kept
        ]
        return out


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
