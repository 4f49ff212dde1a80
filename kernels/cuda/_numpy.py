"""The numpy functions `DeviceArray.__array_function__` runs on the device (the rest fall back)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import DeviceArray, device_empty, to_device, to_host
from ._device import count, launch
from ._generic import _axes, _ewise1, _flat, fill
from ._indexing import fit, select, take

__all__ = ["FUNCTIONS"]


def _broadcast_to(a: Any, shape: Any, subok: bool = False) -> DeviceArray:
    return fit(a, tuple(shape) if not isinstance(shape, int) else (shape,))


def _clip(
    a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **bounds: Any
) -> Any:
    # numpy 2 also spells the bounds min= and max=.
    low, high = bounds.get("min", a_min), bounds.get("max", a_max)
    result = to_device(a) if low is None else np.maximum(a, low)
    result = result if high is None else np.minimum(result, high)
    if out is not None:
        _copyto(out, result)
        return out
    return result


def _concatenate(
    arrays: Any, axis: Any = 0, out: Any = None, dtype: Any = None, **_: Any
) -> DeviceArray:
    parts = [to_device(a) for a in arrays]
    if axis is None:
        parts, axis = [p.reshape(-1) for p in parts], 0
    axis %= parts[0].ndim
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    result = device_empty(
        tuple(shape), dtype or np.result_type(*(p.dtype for p in parts))
    )
    start = 0
    for p in parts:  # each part into its slab of the result
        index = (slice(None),) * axis + (slice(start, start + p.shape[axis]),)
        result[index] = p
        start += p.shape[axis]
    if out is not None:
        _copyto(out, result)
        return out  # type: ignore[no-any-return]
    return result


def _stack(arrays: Any, axis: int = 0, out: Any = None, **kwargs: Any) -> DeviceArray:
    parts = [to_device(a) for a in arrays]
    axis %= parts[0].ndim + 1
    return _concatenate([_expand_dims(p, axis) for p in parts], axis, out, **kwargs)


def _split(
    a: DeviceArray, indices_or_sections: Any, axis: int = 0
) -> list[DeviceArray]:
    n = a.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        if n % int(indices_or_sections):
            raise ValueError("array split does not result in an equal division")
        size = n // int(indices_or_sections)
        bounds = list(range(size, n, size))
    else:
        bounds = [int(b) for b in indices_or_sections]
    edges = zip([0, *bounds], [*bounds, n], strict=True)
    lead = (slice(None),) * (axis % a.ndim)
    return [a[(*lead, slice(lo, max(lo, hi)))] for lo, hi in edges]


def _where(condition: Any, *values: Any) -> Any:
    if len(values) != 2:  # np.where(condition) lists indices: sizes only the host knows
        return _fallback_where(condition, *values)
    return select(condition, *values)


def _fallback_where(*args: Any) -> Any:
    count("fallback:where")
    result: Any = np.where(*(to_host(a) for a in args))
    return (
        tuple(to_device(r) for r in result)
        if isinstance(result, tuple)
        else to_device(result)
    )


def _take(a: DeviceArray, indices: Any, axis: Any = None, **_: Any) -> DeviceArray:
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis %= a.ndim
    if isinstance(indices, (int, np.integer)):
        return a[(slice(None),) * axis + (int(indices),)]
    return take(a, axis, indices)


def _expand_dims(a: DeviceArray, axis: Any) -> DeviceArray:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = a.ndim + len(axes)
    axes = tuple(sorted(x % nd for x in axes))
    it = iter(a.shape)
    return a.reshape(tuple(1 if d in axes else next(it) for d in range(nd)))


def _like(value: Any) -> Any:
    def make(
        a: Any,
        dtype: Any = None,
        order: str = "K",
        subok: bool = True,
        shape: Any = None,
    ) -> DeviceArray:
        out = device_empty(
            a.shape if shape is None else tuple(shape),
            a.dtype if dtype is None else dtype,
        )
        return out if value is None else fill(out, value)

    return make


def _full_like(a: Any, fill_value: Any, dtype: Any = None, **_: Any) -> DeviceArray:
    return fill(device_empty(a.shape, a.dtype if dtype is None else dtype), fill_value)


def _copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    if not isinstance(dst, DeviceArray) or where is not True:
        np.copyto(dst, to_host(src), casting=casting, where=to_host(where))  # type: ignore[arg-type]
        count("fallback:copyto")
        return
    value = src if isinstance(src, DeviceArray) else to_device(np.asarray(src))
    value = _broadcast_to(value, dst.shape).astype(dst.dtype, copy=False)
    blocks, threads = launch(max(dst.size, 1))
    _ewise1[blocks, threads](0, _flat(value), _flat(dst))


def _squeeze(a: DeviceArray, axis: Any = None) -> DeviceArray:
    axes = (
        _axes(axis, a.ndim)
        if axis is not None
        else tuple(d for d, n in enumerate(a.shape) if n == 1)
    )
    for d in axes:
        if a.shape[d] != 1:
            raise ValueError(
                "cannot select an axis to squeeze out which has size not equal to one"
            )
    return a.reshape(tuple(n for d, n in enumerate(a.shape) if d not in axes))


def _moveaxis(a: DeviceArray, source: Any, destination: Any) -> DeviceArray:
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [s % a.ndim for s in src]
    dst = [d % a.ndim for d in dst]
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return a.transpose(tuple(order))


def _swapped(ndim: int, a: int, b: int) -> tuple[int, ...]:
    order = list(range(ndim))
    order[a % ndim], order[b % ndim] = order[b % ndim], order[a % ndim]
    return tuple(order)


FUNCTIONS: dict[Any, Any] = {
    np.broadcast_to: _broadcast_to,
    np.clip: _clip,
    np.concatenate: _concatenate,
    np.stack: _stack,
    np.split: _split,
    np.take: _take,
    np.where: _where,
    np.expand_dims: _expand_dims,
    np.ones_like: _like(1),
    np.zeros_like: _like(0),
    np.empty_like: _like(None),
    np.full_like: _full_like,
    np.copyto: _copyto,
    np.reshape: lambda a, *args, **kw: a.reshape(
        *(args or (kw.get("shape", kw.get("newshape")),))
    ),
    np.transpose: lambda a, axes=None: a.transpose(axes),
    np.moveaxis: _moveaxis,
    np.swapaxes: lambda a, axis1, axis2: a.transpose(_swapped(a.ndim, axis1, axis2)),
    np.squeeze: _squeeze,
    np.shape: lambda a: a.shape,
    np.ndim: lambda a: a.ndim,
    np.size: lambda a, axis=None: a.size if axis is None else a.shape[axis],
    np.sum: lambda a, axis=None, dtype=None, out=None, keepdims=False, **_: a.sum(
        axis, dtype, keepdims=keepdims
    ),
    np.mean: lambda a, axis=None, dtype=None, out=None, keepdims=False, **_: a.mean(
        axis, dtype, keepdims=keepdims
    ),
    np.max: lambda a, axis=None, out=None, keepdims=False, **_: a.max(
        axis, keepdims=keepdims
    ),
    np.min: lambda a, axis=None, out=None, keepdims=False, **_: a.min(
        axis, keepdims=keepdims
    ),
    np.amax: lambda a, axis=None, out=None, keepdims=False, **_: a.max(
        axis, keepdims=keepdims
    ),
    np.amin: lambda a, axis=None, out=None, keepdims=False, **_: a.min(
        axis, keepdims=keepdims
    ),
}
