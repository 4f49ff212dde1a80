"""MindSpore's index-tuple scatters: `ops.ScatterNd`, `ops.TensorScatterUpdate`, `ops.TensorScatterElements`.

The last axis of `indices` holds a position in the leading axes of the target
(as `gather_nd` reads them). `ScatterNd` adds `updates` into zeros (repeated
positions sum), so its gradient gathers; `TensorScatterUpdate` overwrites, a
gather from `updates` or the input plus a select, like `ops.scatter`;
`TensorScatterElements` is `ops.scatter` along an axis, or adds there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_choice
from . import _functional as f
from ._indexing import _axis, _positions, overwrite_at, scatter

__all__ = ["scatter_nd", "tensor_scatter_elements", "tensor_scatter_update"]


def _flat_positions(
    indices: Any, shape: tuple[int, ...], op: str
) -> tuple[np.ndarray[Any, Any], int]:
    """(the flat index of each slice's first element, the slice size) for index tuples into `shape`."""
    index = np.asarray(f.as_tensor(indices).asnumpy())
    if (
        index.dtype.kind not in "iu"
        or index.ndim < 1
        or not 1 <= index.shape[-1] <= len(shape)
    ):
        raise ValueError(
            f"For '{op}', the argument 'indices' must be an integer tensor whose last axis "
            f"(1 to {len(shape)}) indexes the leading axes of shape {shape}, but got dtype "
            f"{index.dtype} and shape {index.shape}."
        )
    depth = index.shape[-1]
    rows = index.reshape(-1, depth)
    if ((rows < 0) | (rows >= np.asarray(shape[:depth]))).any():
        raise ValueError(
            f"For '{op}', the argument 'indices' must lie inside the leading axes "
            f"{shape[:depth]}, but got {rows.tolist()}."
        )
    inner = int(np.prod(shape[depth:]))
    return np.ravel_multi_index(tuple(rows.T), shape[:depth]) * inner, inner


def _element_index(
    indices: Any, shape: tuple[int, ...], updates: Tensor, op: str
) -> np.ndarray[Any, Any]:
    """The flat target of each element of `updates` (indices' leading axes, then the slices')."""
    starts, inner = _flat_positions(indices, shape, op)
    index = np.asarray(f.as_tensor(indices).asnumpy())
    want = (*index.shape[:-1], *shape[index.shape[-1] :])
    if updates.shape != want:
        raise ValueError(
            f"For '{op}', the argument 'updates' must have shape {want} (indices' leading axes, "
            f"then the slice shape), but got {updates.shape}."
        )
    return (starts[:, None] + np.arange(inner)).ravel()


def scatter_nd(indices: Any, updates: Any, shape: Any) -> Tensor:
    """`ops.ScatterNd()(indices, updates, shape)`: zeros of `shape` with `updates` added at the index tuples."""
    u = f.as_tensor(updates)
    if not isinstance(shape, tuple | list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in shape
    ):
        raise TypeError(
            f"For 'ScatterNd', the argument 'shape' must be a tuple or list of positive ints, but got {shape!r}."
        )
    target = tuple(shape)
    at = _element_index(indices, target, u, "ScatterNd")
    out = np.zeros(int(np.prod(target)), u._data.dtype)
    np.add.at(out, at, np.asarray(u.asnumpy()).ravel())

    def grad_fn() -> f.GradFn:  # each update's gradient: the output's at its target
        return lambda g: (g.reshape(-1)[at].reshape(u.shape),)

    return f.record(out.reshape(target), (u,), grad_fn)


def tensor_scatter_update(input_x: Any, indices: Any, updates: Any) -> Tensor:
    """`ops.TensorScatterUpdate()(input_x, indices, updates)`: a copy with the slices at `indices` replaced."""
    t = f.as_tensor(input_x)
    u = f.cast(f.as_tensor(updates), t._data.dtype)
    return overwrite_at(
        t, u, _element_index(indices, t.shape, u, "TensorScatterUpdate")
    )


def tensor_scatter_elements(
    input_x: Any, indices: Any, updates: Any, *, axis: int, reduction: str
) -> Tensor:
    """`ops.TensorScatterElements(axis, reduction)`: `ops.scatter` ('none') or adding the updates there ('add')."""
    check_choice(reduction, "reduction", ("none", "add"), "TensorScatterElements")
    if reduction == "none":
        return scatter(input_x, axis, indices, updates)
    t, u = f.as_tensor(input_x), f.as_tensor(updates)
    dim = _axis(axis, t.ndim, "TensorScatterElements")
    pos = _positions(indices, "TensorScatterElements", t.ndim, t.shape[dim])
    if pos.shape != u.shape:
        raise ValueError(
            f"For 'TensorScatterElements', 'indices' and 'updates' must have the same shape, "
            f"but got {pos.shape} and {u.shape}."
        )
    # Each update's flat target, summed into zeros by ScatterNd, then added.
    grid = list(np.indices(pos.shape, sparse=True))
    grid[dim] = pos
    flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*grid)), t.shape)
    added = scatter_nd(
        Tensor._wrap(flat.reshape(-1, 1)), f.reshape(u, (-1,)), (t.size,)
    )
    return f.add(t, f.cast(f.reshape(added, t.shape), t._data.dtype))
