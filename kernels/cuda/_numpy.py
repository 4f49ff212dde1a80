"""The numpy functions `DeviceArray.__array_function__` runs on the device (the rest fall back)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import DeviceArray, device_empty, to_device, to_host
from ._device import MAXDIM, count, launch
from ._generic import _axes, _broadcast_strides, _ewise1, _flat, fill, gather

__all__ = ["FUNCTIONS"]


def _broadcast_to(a: Any, shape: Any, subok: bool = False) -> DeviceArray:
    shape = tuple(shape) if not isinstance(shape, int) else (shape,)
    d = to_device(a)
    if d.shape == shape:
        return d
    np.broadcast_shapes(d.shape, shape)  # raises numpy's error for incompatible shapes
    return gather(
        d, 0, _broadcast_strides(d.shape, shape)[MAXDIM - len(shape) :], shape
    )


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
