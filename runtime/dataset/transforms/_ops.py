"""General operations: `TypeCast`, `OneHot`, `PadEnd`, `Concatenate`, `Slice`, `Duplicate`, `Compose`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...validation import check_number
from .._apply import apply_row
from .._checks import check_int
from .._dtypes import to_numpy_dtype
from .._transform import TensorOperation, UnaryOperation
from ._choice import check_transforms

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import EllipsisType

    from .._block import Array

__all__ = ["Compose", "Concatenate", "Duplicate", "OneHot", "PadEnd",
           "Slice", "TypeCast"]  # fmt: skip


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


class Concatenate(UnaryOperation):
    """Join `prepend`, the 1-D input and `append` into one 1-D array (e.g. `[CLS]` and `[SEP]` tokens).

    Args:
        axis: 0 or -1: the only axis of a 1-D array.
        prepend: A 1-D array put before the input, or None.
        append: A 1-D array put after the input, or None.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If `axis` is not 0 or -1, or `prepend`/`append` is not 1-D.
        RuntimeError: When applied, if the input is not 1-D or its kind (number or
            string) differs from `prepend`'s or `append`'s.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> transforms.Concatenate(0, np.array(["[CLS]"]), np.array(["[SEP]"]))(np.array(["hi"]))
        array(['[CLS]', 'hi', '[SEP]'], dtype='<U5')
    """

    def __init__(self, axis: int = 0, prepend: Any = None, append: Any = None) -> None:
        owner = "Concatenate"
        self.axis = check_int(axis, "axis", owner, minimum=-1, maximum=0)
        self.prepend, self.append = prepend, append
        self._parts = [
            _one_dim(value, name, owner)
            for value, name in ((prepend, "prepend"), (append, "append"))
        ]

    def _apply(self, x: Array, batched: bool) -> Array:
        if x.ndim != 1 + int(batched):
            raise RuntimeError(
                f"Concatenate: the input must be 1-D, but got shape {x.shape[int(batched) :]}."
            )
        before, after = self._parts
        for part in (before, after):
            strings = part is not None and part.dtype.kind in "US"
            if part is not None and (
                strings != (x.dtype.kind in "US")
                or (not strings and part.dtype != x.dtype)
            ):
                raise RuntimeError(
                    f"Concatenate: cannot join {part.dtype} values to an input of dtype {x.dtype}."
                )
        rows = (len(x),) if batched else ()
        pieces = [
            x if p is x else np.broadcast_to(p, (*rows, len(p)))
            for p in (before, x, after)
            if p is not None
        ]
        joined: Array = np.concatenate(pieces, axis=-1)
        return joined


def _one_dim(value: Any, name: str, owner: str) -> Array | None:
    if value is None:
        return None
    if not isinstance(value, np.ndarray):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a numpy array or None, but got {value!r}."
        )
    if value.ndim != 1:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be 1-D, but got shape {value.shape}."
        )
    return value


class Slice(UnaryOperation):
    """Keep part of each axis, one index per axis; axes without an index are kept whole.

    An int keeps that one position as an axis of length 1, a list of ints those
    positions, a `slice` its range, None or `...` the whole axis.

    Raises:
        TypeError: If an index has the wrong type.
        RuntimeError: When applied, if there are more indices than axes, or one is out of range.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> transforms.Slice(slice(0, 3))(np.arange(5))
        array([0, 1, 2])
    """

    def __init__(self, *slices: int | list[int] | slice | EllipsisType | None) -> None:
        given: tuple[Any, ...] = (
            slices  # checked here, whatever the caller's types said
        )
        for index in given:
            ok = (
                index is None
                or index is Ellipsis
                or isinstance(index, slice)
                or (isinstance(index, int) and not isinstance(index, bool))
                or (
                    isinstance(index, list)
                    and all(
                        isinstance(i, int) and not isinstance(i, bool) for i in index
                    )
                )
            )
            if not ok:
                raise TypeError(
                    f"For 'Slice', every index must be an int, a list of ints, a slice, None or ..., but got {index!r}."
                )
        self.slices: list[Any] = list(slices)

    def _apply(self, x: Array, batched: bool) -> Array:
        ndim = x.ndim - int(batched)
        if len(self.slices) > ndim:
            raise RuntimeError(
                f"Slice: {len(self.slices)} indices for an input of {ndim} axes."
            )
        out = x
        for axis, index in enumerate(self.slices, start=int(batched)):
            if index is None or index is Ellipsis:
                continue
            if isinstance(index, slice):
                out = out[(slice(None),) * axis + (index,)]
                continue
            positions = [index] if isinstance(index, int) else index
            if any(not -out.shape[axis] <= i < out.shape[axis] for i in positions):
                raise RuntimeError(
                    f"Slice: index {index!r} is out of range for an axis of length {out.shape[axis]}."
                )
            out = np.take(out, positions, axis=axis)
        return np.ascontiguousarray(out)


class Duplicate(TensorOperation):
    """Return the input column twice (a copy as the second); name both with `map`'s `output_columns`.

    Example:
        >>> import numpy as np
        >>> from cadence.dataset import transforms
        >>> transforms.Duplicate()(np.array([1, 2]))
        (array([1, 2]), array([1, 2]))
    """

    def _apply_sample(self, *arrays: Array) -> tuple[Array, ...]:
        return self._twice(arrays)

    def _apply_block(self, *columns: Array) -> tuple[Array, ...]:
        return self._twice(columns)

    def _twice(self, arrays: tuple[Array, ...]) -> tuple[Array, Array]:
        if len(arrays) != 1:
            raise TypeError(
                f"Duplicate takes exactly one input column, but got {len(arrays)}."
            )
        return arrays[0], arrays[0].copy()


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
        self.transforms = check_transforms(transforms, "Compose")

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
