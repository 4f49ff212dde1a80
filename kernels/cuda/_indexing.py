"""CUDA kernels behind `DeviceArray`'s indexing: writes into basic views, joins, and gathers and scatter-adds along an axis.

- `select` is `np.where(condition, x, y)` with broadcasting;
- `scatter` writes an array into a strided view (the inverse of `_generic.gather`),
  which gives `a[basic index] = value`, `np.concatenate`, `np.stack` and `np.copyto`
  into views without a host copy;
- `take` gathers whole slices along one axis by an integer array (`a[:, ids]`,
  `np.take`), and `add_at` is its gradient (`np.add.at(a, (..., ids), g)`): one
  thread per destination column walks the indices in order, so repeated indices
  add up without atomics and in the same order as numpy on the host.

Indices are checked before a launch (on the host when they come from it, else
through a device min/max, two scalars copied back), so the kernels trust them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import DeviceArray, device_empty, to_device
from ._device import MAXDIM, cuda, launch
from ._generic import _broadcast_strides, _flat, _offset, _padded, gather

__all__ = ["add_at", "axis_index", "fit", "scatter", "select", "take"]


@cuda.jit
def _scatter(src: Any, offset: int, strides: Any, shape: Any, out: Any) -> None:
    for i in range(cuda.grid(1), src.size, cuda.gridsize(1)):
        out[_offset(i, shape, strides, offset)] = src[i]


@cuda.jit
def _take(src: Any, ids: Any, n: int, inner: int, out: Any) -> None:
    # out (outer, len(ids), inner) <- src (outer, n, inner) at ids along the middle axis.
    picked = ids.size * inner
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        o, rest = i // picked, i % picked
        k, r = rest // inner, rest % inner
        out[i] = src[(o * n + ids[k]) * inner + r]


@cuda.jit
def _add_at(dst: Any, ids: Any, n: int, inner: int, values: Any) -> None:
    # dst (outer, n, inner) += values (outer, len(ids), inner) at ids: a thread per (o, r) column.
    for c in range(cuda.grid(1), dst.size // n, cuda.gridsize(1)):
        o, r = c // inner, c % inner
        for k in range(ids.size):
            dst[(o * n + ids[k]) * inner + r] += values[(o * ids.size + k) * inner + r]


@cuda.jit
def _select(
    cond: Any, sc: Any, a: Any, sa: Any, b: Any, sb: Any, out: Any, shape: Any
) -> None:
    # np.where(cond, a, b) with broadcasting: each operand read through its own strides.
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        if cond[_offset(i, shape, sc, 0)]:
            out[i] = a[_offset(i, shape, sa, 0)]
        else:
            out[i] = b[_offset(i, shape, sb, 0)]


def select(condition: Any, x: Any, y: Any) -> DeviceArray:
    """`np.where(condition, x, y)`: x where the condition holds, else y, broadcast together."""
    dt = np.result_type(*(v.dtype if hasattr(v, "dtype") else v for v in (x, y)))
    parts = [
        to_device(np.asarray(v)) if not isinstance(v, DeviceArray) else v
        for v in (condition, x, y)
    ]
    cond, a, b = (
        parts[0],
        parts[1].astype(dt, copy=False),
        parts[2].astype(dt, copy=False),
    )
    shape = np.broadcast_shapes(cond.shape, a.shape, b.shape)
    out = device_empty(shape, dt)
    if out.size:
        strides = [_broadcast_strides(p.shape, shape) for p in (cond, a, b)]
        _select[launch(out.size)](
            _flat(cond), strides[0], _flat(a), strides[1], _flat(b), strides[2],
            _flat(out), _padded(shape, 1),
        )  # fmt: skip
    return out


def fit(value: Any, shape: tuple[int, ...], dtype: Any = None) -> DeviceArray:
    """`value` on the device, broadcast to `shape` (numpy's error if it cannot be) and cast to `dtype`."""
    src = value if isinstance(value, DeviceArray) else to_device(np.asarray(value))
    if src.shape != shape:
        np.broadcast_shapes(src.shape, shape)  # numpy's error for incompatible shapes
        strides = _broadcast_strides(src.shape, shape)[MAXDIM - len(shape) :]
        src = gather(src, 0, strides, shape)
    return src if dtype is None else src.astype(dtype, copy=False)


def scatter(
    dst: DeviceArray,
    view: tuple[int, tuple[int, ...], tuple[int, ...]],
    value: Any,
) -> None:
    """Write `value` (broadcast to the view's shape, cast to dst's dtype) into the view (offset, strides, shape) of `dst`."""
    offset, strides, shape = view
    src = fit(value, shape, dst.dtype)
    if src.size:
        _scatter[launch(src.size)](
            _flat(src), offset, _padded(strides, 0), _padded(shape, 1), _flat(dst)
        )


def axis_index(shape: tuple[int, ...], index: Any) -> tuple[int, Any] | None:
    """(axis, integer ids) when `index` is full slices up to one integer array (then full slices), else None."""
    items = index if isinstance(index, tuple) else (index,)
    arrays = [
        i
        for i, item in enumerate(items)
        if not isinstance(item, slice) and getattr(item, "ndim", 0) >= 1
    ]
    if len(arrays) != 1 or len(items) > len(shape):
        return None
    axis = arrays[0]
    if any(item != slice(None) for i, item in enumerate(items) if i != axis):
        return None
    ids = items[axis]
    if np.dtype(ids.dtype).kind not in "iu":
        return None
    return axis, ids


def _checked_ids(ids: Any, n: int) -> DeviceArray:
    """The ids as int64 on the device, in [0, n): negative ones count from the end, as numpy's."""
    if isinstance(ids, DeviceArray):  # checked on the device: two scalars come back
        low, high = (int(ids.min()), int(ids.max())) if ids.size else (0, 0)
    else:
        ids = np.asarray(ids)
        low, high = (int(ids.min()), int(ids.max())) if ids.size else (0, 0)
    if low < -n or high >= n:
        raise IndexError(
            f"index {low if low < -n else high} is out of bounds for axis with size {n}"
        )
    dev = to_device(ids).astype(np.int64, copy=False)
    if low < 0:  # ids + n where negative
        dev = (dev < 0).astype(np.int64) * n + dev
    return dev


def _layout(shape: tuple[int, ...], axis: int) -> tuple[int, int]:
    return shape[axis], math.prod(shape[axis + 1 :])


def take(src: DeviceArray, axis: int, ids: Any) -> DeviceArray:
    """`src` indexed by integer array `ids` along `axis` (the ids' shape replaces that axis)."""
    n, inner = _layout(src.shape, axis)
    dev = _checked_ids(ids, n)
    out = device_empty(
        src.shape[:axis] + tuple(dev.shape) + src.shape[axis + 1 :], src.dtype
    )
    if out.size:
        _take[launch(out.size)](_flat(src), _flat(dev), n, inner, _flat(out))
    return out


def add_at(dst: DeviceArray, axis: int, ids: Any, values: Any) -> None:
    """`np.add.at(dst, (slice(None),) * axis + (ids,), values)`, in place on the device."""
    n, inner = _layout(dst.shape, axis)
    dev = _checked_ids(ids, n)
    src = fit(
        values, dst.shape[:axis] + tuple(dev.shape) + dst.shape[axis + 1 :], dst.dtype
    )
    columns = dst.size // max(n, 1)
    if columns and dev.size:
        _add_at[launch(columns)](_flat(dst), _flat(dev), n, inner, _flat(src))
