"""Ops that repeat, split or slice tensors: `tile`, `split`, `strided_slice`, `cumsum` (and `CumSum`'s `cumulative_sum`).

All are differentiable: the gradient of a repetition sums the copies, of a split
joins the pieces, of a slice scatters back into zeros.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..validation import check_non_negative_int
from ._functional import GradFn, as_tensor, cast, getitem, record, reshape

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["cumsum", "cumulative_sum", "split", "strided_slice", "tile"]


def tile(input: Any, dims: Any) -> Tensor:
    """Repeat `input` `dims[i]` times along axis i.

    As MindSpore: `dims` longer than the rank adds leading axes, shorter is
    padded with leading 1s (`tile(x of shape (2, 3), (2,))` has shape (2, 6)).
    """
    t = as_tensor(input)
    if not isinstance(dims, tuple | list):
        raise TypeError(
            f"For 'ops.tile', the argument 'dims' must be a tuple or list of ints, "
            f"but got {type(dims).__name__}: {dims!r}."
        )
    given = tuple(
        check_non_negative_int(
            int(d) if isinstance(d, np.integer) else d, "dims", "ops.tile"
        )
        for d in dims
    )
    reps = (1,) * (t.ndim - len(given)) + given
    src = (1,) * (len(reps) - t.ndim) + t.shape
    # Axis i as (reps[i], src[i]): a broadcast and one copying reshape, not `np.tile`,
    # so a device array stays on its device (both have device kernels; `np.tile` has none).
    ones = [n for r, s in zip(reps, src, strict=True) for n in (1, s)]
    copies = [n for pair in zip(reps, src, strict=True) for n in pair]
    whole = [r * s for r, s in zip(reps, src, strict=True)]
    out = np.broadcast_to(t._data.reshape(ones), copies).reshape(whole)

    def grad_fn() -> GradFn:
        def backward(g: Any) -> tuple[Any]:
            # Axis i of the output is (reps[i], src[i]): sum over the copies.
            summed = g.reshape(copies).sum(axis=tuple(range(0, 2 * len(reps), 2)))
            return (summed.reshape(t.shape),)

        return backward

    return record(out, (t,), grad_fn)


def split(input_x: Any, axis: int = 0, output_num: int = 1) -> tuple[Tensor, ...]:
    """Split into `output_num` equal parts along `axis`."""
    t = as_tensor(input_x)
    if t.shape[axis] % output_num:
        raise ValueError(
            f"For 'Split', the size of axis {axis} ({t.shape[axis]}) must be divisible by "
            f"'output_num', but got {output_num}."
        )
    size = t.shape[axis] // output_num
    index = [slice(None)] * t.ndim
    parts = []
    for i in range(output_num):
        index[axis % t.ndim] = slice(i * size, (i + 1) * size)
        parts.append(getitem(t, tuple(index)))
    return tuple(parts)


def strided_slice(input_x: Any, begin: Any, end: Any, strides: Any) -> Tensor:
    """`input_x[begin[0]:end[0]:strides[0], ...]` (the masks of MindSpore's operator must be 0)."""
    index = tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides, strict=True))
    return getitem(input_x, index)


def cumsum(x: Any, axis: Any = None, dtype: Any = None) -> Tensor:
    """MindSpore's `ops.cumsum`: the cumulative sum along `axis` (of the flattened input when None), in `dtype` if given."""
    t = as_tensor(x)
    if dtype is not None:
        t = cast(t, dtype)
    if axis is None:
        t, axis = reshape(t, (-1,)), 0
    if (
        isinstance(axis, bool)
        or not isinstance(axis, int)
        or not -t.ndim <= axis < t.ndim
    ):
        raise ValueError(
            f"For 'cumsum', the argument 'axis' must be an int in [{-t.ndim}, {t.ndim}), but got {axis!r}."
        )
    return cumulative_sum(t, axis)


def cumulative_sum(
    input: Any, axis: int, exclusive: bool = False, reverse: bool = False
) -> Tensor:
    """Cumulative sum along `axis` (`exclusive` leaves out each element itself, `reverse` runs from the end)."""
    t = as_tensor(input)

    def scan(a: Any) -> Any:
        a = np.flip(a, axis) if reverse else a
        out = np.cumsum(
            a, axis=axis, dtype=a.dtype
        )  # int32 stays int32, as in MindSpore
        if exclusive:
            out = out - a
        return np.flip(out, axis) if reverse else out

    # The gradient of a (forward) cumulative sum is the reverse cumulative sum, and back.
    def grad_fn() -> GradFn:
        def backward(g: Any) -> tuple[Any]:
            gf = np.flip(g, axis) if not reverse else g
            out = np.cumsum(gf, axis=axis)
            if exclusive:
                out = out - gf
            return (np.flip(out, axis) if not reverse else out,)

        return backward

    return record(np.asarray(scan(t._data)), (t,), grad_fn)
