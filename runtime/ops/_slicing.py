"""Ops that repeat, split, slice or scan tensors: `tile`, `split`, `chunk`, `unstack`, `strided_slice`, `cumsum`, `cumprod`.

All are differentiable: the gradient of a repetition sums the copies, of a split
joins the pieces, of a slice scatters back into zeros, of a scan is the reverse scan.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._tensor import Tensor
from ..validation import (
    check_bool,
    check_int,
    check_non_negative_int,
    check_positive_int,
    check_type,
)
from ._functional import (
    GradFn,
    as_tensor,
    cast,
    concat,
    getitem,
    ones_like,
    record,
    reshape,
)

__all__ = [
    "chunk",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "split",
    "strided_slice",
    "tile",
    "unstack",
]


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
    return _pieces(t, axis % t.ndim, t.shape[axis] // output_num, output_num)


def _pieces(t: Tensor, axis: int, size: int, count: int) -> tuple[Tensor, ...]:
    """`count` consecutive slices of `size` along `axis` (the last may be shorter)."""
    index: list[Any] = [slice(None)] * t.ndim
    parts = []
    for i in range(count):
        index[axis] = slice(i * size, (i + 1) * size)
        parts.append(getitem(t, tuple(index)))
    return tuple(parts)


def chunk(input: Any, chunks: int, axis: int = 0) -> tuple[Tensor, ...]:
    """Split into pieces of ceil(size / `chunks`) along `axis`: at most `chunks` pieces, the last may be shorter."""
    owner = "chunk"
    t = check_type(input, "input", Tensor, owner)
    check_positive_int(chunks, "chunks", owner)
    span = max(t.ndim, 1)
    dim = check_int(axis, "axis", owner, minimum=-span, maximum=span - 1)
    if t.ndim == 0:
        raise ValueError(
            f"For '{owner}', the input must have at least one axis, but got a 0-D tensor."
        )
    dim %= t.ndim
    size = max(-(-t.shape[dim] // chunks), 1)
    return _pieces(t, dim, size, -(-t.shape[dim] // size))


def unstack(input_x: Any, axis: int = 0, num: int | None = None) -> tuple[Tensor, ...]:
    """The slices along `axis`, each without that axis (`ops.Unstack(axis, num)`).

    As MindSpore's, `num` (the count graph mode needs ahead of time) is checked
    but the input's size decides.
    """
    t = as_tensor(input_x)
    if num is not None:
        check_positive_int(num, "num", "Unstack")
    dim = _scan_axis(axis, t.ndim, "unstack")
    lead = (slice(None),) * dim
    return tuple(getitem(t, (*lead, i)) for i in range(t.shape[dim]))


def strided_slice(input_x: Any, begin: Any, end: Any, strides: Any) -> Tensor:
    """`input_x[begin[0]:end[0]:strides[0], ...]` (the masks of MindSpore's operator must be 0)."""
    index = tuple(slice(b, e, s) for b, e, s in zip(begin, end, strides, strict=True))
    return getitem(input_x, index)


def _scan_axis(axis: Any, ndim: int, op: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(
            f"For '{op}', the argument 'axis' must be an int in [{-ndim}, {ndim}), but got {axis!r}."
        )
    return axis % ndim


def cumsum(x: Any, axis: Any = None, dtype: Any = None) -> Tensor:
    """MindSpore's `ops.cumsum`: the cumulative sum along `axis` (of the flattened input when None), in `dtype` if given."""
    t = as_tensor(x)
    if dtype is not None:
        t = cast(t, dtype)
    if axis is None:
        t, axis = reshape(t, (-1,)), 0
    return cumulative_sum(t, _scan_axis(axis, t.ndim, "cumsum"))


def cumprod(input: Any, dim: int, dtype: Any = None) -> Tensor:
    """MindSpore's `ops.cumprod`: the cumulative product along `dim`, in `dtype` if given (integers as Int64)."""
    t = as_tensor(input)
    if dtype is None and t._data.dtype.kind in "iub":
        dtype = _dtype.int64
    if dtype is not None:
        t = cast(t, dtype)
    return cumulative_prod(t, _scan_axis(dim, t.ndim, "cumprod"))


def _cumprod_grad(g: Any, x: Any, y: Any) -> Any:
    """The gradient of a cumulative product along the last axis.

    Without zeros it is the reverse cumulative sum of g * y divided by x; a zero
    makes that 0 / 0, so then each input's own product-without-it is formed
    (n products of n terms: quadratic, for the rare slices that hold a zero).
    """
    if np.all(x != 0):
        return np.flip(np.cumsum(np.flip(g * y, -1), -1), -1) / x
    n = x.shape[-1]
    # without[i, ..., j] = prod_{k <= j, k != i} x[..., k]: x with x[i] set to 1.
    eye = np.eye(n, dtype=bool).reshape((n,) + (1,) * (x.ndim - 1) + (n,))
    without = np.cumprod(np.where(eye, 1, x[None]), -1)
    later = np.triu(np.ones((n, n), dtype=bool)).reshape(eye.shape)  # j >= i
    return np.moveaxis((g[None] * without * later).sum(-1), 0, -1)


def cumulative_prod(
    input: Any, axis: int, exclusive: bool = False, reverse: bool = False
) -> Tensor:
    """Cumulative product along `axis` (`exclusive` leaves out each element itself, `reverse` runs from the end)."""
    t = as_tensor(input)
    check_bool(exclusive, "exclusive", "CumProd")
    check_bool(reverse, "reverse", "CumProd")
    dim = _scan_axis(axis, t.ndim, "CumProd")
    lead = (slice(None),) * dim
    if reverse:
        t = getitem(t, (*lead, slice(None, None, -1)))
    x = np.moveaxis(t._data, dim, -1)
    y = np.cumprod(x, -1, dtype=x.dtype)

    def grad_fn() -> GradFn:
        return lambda g: (
            np.moveaxis(_cumprod_grad(np.moveaxis(g, dim, -1), x, y), -1, dim),
        )

    out = record(np.moveaxis(y, -1, dim), (t,), grad_fn)
    if exclusive:  # shift by one: a leading 1, the last product dropped
        first = ones_like(getitem(out, (*lead, slice(0, 1))))
        out = concat((first, getitem(out, (*lead, slice(0, -1)))), dim)
    return getitem(out, (*lead, slice(None, None, -1))) if reverse else out


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
