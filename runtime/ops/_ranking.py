"""Ops that rank elements: `topk` (`ops.TopK`), `sort` (`ops.Sort`), `unique`, and `argmax` with MindSpore 2.x's `dim`/`keepdim`.

The values `topk` and `sort` return are gathered from the input, so gradients
flow back to the chosen elements; indices carry no gradient, nor does `unique`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._tensor import Tensor
from ..validation import check_bool, check_positive_int, check_type
from . import _functional as f

__all__ = [
    "argmax",
    "argsort",
    "gather_rows",
    "sort",
    "top_k",
    "topk",
    "unique",
    "unique_elements",
]


def gather_rows(rows: Tensor, index: np.ndarray[Any, Any]) -> Tensor:
    """rows[r, index[r, j]] for (R, n) `rows` and host (R, k) `index`, differentiable.

    One flat index array, not a pair: a device array gathers (and scatter-adds the
    gradient) along one axis on the device.
    """
    n = rows.shape[-1]
    flat = (np.arange(index.shape[0])[:, None] * n + index).ravel()
    picked = f.getitem(f.reshape(rows, (-1,)), Tensor(flat.astype(np.int64)))
    return f.reshape(picked, index.shape)


def _axis(dim: Any, ndim: int, op: str) -> int:
    check_type(dim, "dim", int, op)
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise ValueError(
            f"For '{op}', the argument 'dim' must be in [{-max(ndim, 1)}, {max(ndim, 1)}), but got {dim!r}."
        )
    return int(dim) % max(ndim, 1)


def topk(
    input: Any,
    k: int,
    dim: int | None = None,
    largest: bool = True,
    sorted: bool = True,
) -> tuple[Tensor, Tensor]:
    """The `k` largest (or smallest) elements along `dim` (default the last) and their Int32 indices.

    Ties keep the lower index first; with `sorted=False` the chosen elements come
    in the order they have in the input.
    """
    t = f.as_tensor(input)
    axis = _axis(-1 if dim is None else dim, t.ndim, "topk")
    check_bool(largest, "largest", "topk")
    check_bool(sorted, "sorted", "topk")
    size = t.shape[axis] if t.ndim else 1
    check_positive_int(k, "k", "topk")
    if k > size:
        raise ValueError(
            f"For 'topk', the argument 'k' must be at most the size of axis {axis} ({size}), but got {k}."
        )
    moved = (
        f.transpose(t, (*(d for d in range(t.ndim) if d != axis), axis))
        if t.ndim
        else f.reshape(t, (1,))
    )
    rows = f.reshape(moved, (-1, size))
    keys = np.asarray(rows._data)
    order = np.argsort(-keys if largest else keys, axis=-1, kind="stable")[:, :k]
    if not sorted:
        order = np.sort(order, axis=-1)
    picked = gather_rows(rows, order)
    shape = (*moved.shape[:-1], k)
    back = (*range(axis), t.ndim - 1, *range(axis, t.ndim - 1)) if t.ndim else None
    values = f.reshape(picked, shape)
    indices = Tensor(order.reshape(shape).astype(np.int32))
    if back is None:
        return f.reshape(values, ()), f.reshape(indices, ())
    return f.transpose(values, back), f.transpose(indices, back)


def top_k(input: Any, k: int, *, sorted: bool = True) -> tuple[Tensor, Tensor]:
    """`ops.TopK(sorted)(input, k)`: `topk` along the last axis."""
    return topk(input, k, -1, True, sorted)


def sort(
    input_x: Any, axis: int = -1, descending: bool = False
) -> tuple[Tensor, Tensor]:
    """(values, Int32 indices) of `input_x` sorted along `axis`; equal elements keep their order."""
    t = f.as_tensor(input_x)
    check_type(axis, "axis", int, "sort")
    check_bool(descending, "descending", "sort")
    dim = _axis(axis, t.ndim, "sort")
    return topk(t, t.shape[dim] if t.ndim else 1, dim, descending, True)


def argsort(input: Any, axis: int = -1, descending: bool = False) -> Tensor:
    """The Int32 indices that sort `input` along `axis` (`sort`'s second result)."""
    return sort(input, axis, descending)[1]


def unique(input: Any) -> tuple[Tensor, Tensor]:
    """(the distinct elements in order of first appearance, positions of each input element in them).

    The positions have the input's shape, Int64 for an Int64 input and Int32
    otherwise; MindSpore's `ops.unique`, which does not sort.
    """
    t = f.as_tensor(input)
    values, inverse = unique_elements(t, False, True)
    kind = np.int64 if t._data.dtype == np.int64 else np.int32
    return values, f.cast(inverse, _dtype.from_numpy(kind))


def unique_elements(
    input: Any,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """`Tensor.unique`: the distinct elements (slices along `dim`), sorted or in order of first appearance.

    With `return_inverse`/`return_counts`, also the Int64 position of each input
    element (slice) in the result and how often each occurs.
    """
    for name, flag in (
        ("sorted", sorted),
        ("return_inverse", return_inverse),
        ("return_counts", return_counts),
    ):
        check_bool(flag, name, "Tensor.unique")
    data = np.asarray(f.as_tensor(input).asnumpy())
    axis = None if dim is None else _axis(dim, data.ndim, "Tensor.unique")
    values, first, inverse, counts = np.unique(data, True, True, True, axis=axis)
    inverse = inverse.reshape(data.shape if axis is None else (-1,))
    if not sorted:  # renumber by first appearance
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        values = np.take(values, order, axis=axis or 0)
        inverse, counts = rank[inverse], counts[order]
    out = [Tensor._wrap(values)]
    if return_inverse:
        out.append(Tensor._wrap(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def argmax(
    input: Any, dim: int | None = None, keepdim: bool = False, *, axis: int | None = None,
    keepdims: bool | None = None,
) -> Tensor:  # fmt: skip
    """Indices (Int64) of the maxima along `dim` (of the flattened input when None), MindSpore 2.x's `ops.argmax`.

    `axis`/`keepdims` are the older spellings `Tensor.argmax` also accepts. As in
    MindSpore, `keepdim` has no effect without a `dim`: the result is a scalar.
    """
    dim = axis if dim is None else dim
    keep = keepdim if keepdims is None else keepdims
    check_bool(keep, "keepdim", "argmax")
    t = f.as_tensor(input)
    if dim is not None:
        _axis(dim, t.ndim, "argmax")
    index = f.argmax(t, dim, keep and dim is not None)
    return f.cast(index, _dtype.int64)
