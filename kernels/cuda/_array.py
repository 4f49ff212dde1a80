"""`DeviceArray`: what tensors hold on the GPU target, and the generic device kernels behind it.

A `DeviceArray` wraps a C-contiguous numba CUDA device array and speaks numpy's
dispatch protocols (`__array_ufunc__`, `__array_function__`), so the
runtime's ops (`np.add(a, b)`, `g.sum(axis=0)`, `np.broadcast_to(...)`) run on
the device without knowing about CUDA:

- elementwise ufuncs with broadcasting and Python scalars, reductions
  (`sum`, `mean`, `max`, `min` over any axes), comparisons, reshapes,
  transposes, broadcasts, basic indexing and assignment, joins
  (`concatenate`, `stack`, `split`, `clip`), and gathers and scatter-adds
  along one axis by an integer array (`a[:, ids]`, `np.take`, `np.add.at`)
  run as the kernels of `_generic`, `_indexing` and `_numpy`;
- anything else falls back to numpy on a host copy, and the result is copied
  back. Fallbacks are counted by name in `statistics()`, next to every
  host <-> device transfer, so tests can prove a training step never leaves
  the device except for the scalars it reports.

Views are materialized: every `DeviceArray` is contiguous, so kernels index
flat buffers with element strides. Arrays of more than `MAXDIM` dimensions
fall back to the host.

The kernels behind those methods live in `_generic`, `_numpy` and `_matmul`,
which build on this module; the package binds them here (`bind_operations`)
once they are defined, so the imports run one way only.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ._device import MAXDIM, contiguous_strides, count, cuda

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = [
    "ArrayOperations",
    "DeviceArray",
    "bind_operations",
    "device_empty",
    "to_device",
    "to_host",
]


class ArrayOperations(Protocol):
    """The device kernels `DeviceArray`'s numpy methods run on (the package binds `_operations`)."""

    @property
    def FUNCTIONS(self) -> Mapping[Any, Callable[..., Any]]:  # noqa: N802 - a module constant
        """The numpy functions that run on the device, by function."""

    def elementwise(self, ufunc: Any, inputs: tuple[Any, ...]) -> DeviceArray | None:
        """Run a ufunc on the device, or return None when it must fall back."""

    def gather(
        self,
        src: DeviceArray,
        offset: int,
        strides: tuple[int, ...],
        shape: tuple[int, ...],
    ) -> DeviceArray:
        """Return a contiguous copy of a strided view of `src`."""

    def reduce(self, a: DeviceArray, op: str, axis: Any, keepdims: bool) -> DeviceArray:
        """Reduce `a` with `op` over `axis`."""

    def cast(self, a: DeviceArray, dtype: np.dtype[Any]) -> DeviceArray:
        """Return `a` converted to `dtype` (a new array)."""

    def matmul(self, a: Any, b: Any) -> DeviceArray | None:
        """Return `a @ b`, or None when it must fall back."""

    def scatter(
        self,
        dst: DeviceArray,
        view: tuple[int, tuple[int, ...], tuple[int, ...]],
        value: Any,
    ) -> None:
        """Write `value` into the strided view (offset, strides, shape) of `dst`."""

    def axis_index(self, shape: tuple[int, ...], index: Any) -> tuple[int, Any] | None:
        """(axis, ids) for an index of full slices and one integer array, else None."""

    def take(self, src: DeviceArray, axis: int, ids: Any) -> DeviceArray:
        """`src` indexed by integer array `ids` along `axis`."""

    def add_at(self, dst: DeviceArray, axis: int, ids: Any, values: Any) -> None:
        """Add `values` into `dst` at `ids` along `axis` (repeated ids add up)."""


_ops: ArrayOperations | None = None


def bind_operations(operations: ArrayOperations) -> None:
    """Give `DeviceArray` the kernels its numpy methods run on (called once, by the package)."""
    global _ops
    _ops = operations


def _operations() -> ArrayOperations:
    if _ops is None:  # pragma: no cover - the package binds them on import
        raise RuntimeError(
            "cadence.kernels.cuda did not bind the DeviceArray operations"
        )
    return _ops


def to_device(array: Any) -> DeviceArray:
    """Copy a host array (or anything numpy can convert) to the GPU."""
    if isinstance(array, DeviceArray):
        return array
    host = np.asarray(array)
    if not host.flags.c_contiguous:  # (np.ascontiguousarray would turn 0-d into 1-d)
        host = np.ascontiguousarray(host)
    count("to_device")
    return DeviceArray(cuda.to_device(host))


def to_host(data: Any) -> np.ndarray[Any, Any]:
    """Copy a `DeviceArray` to a new numpy array; numpy input passes through."""
    if isinstance(data, DeviceArray):
        count("to_host")
        return np.asarray(data._dev.copy_to_host())
    return np.asarray(data)


def device_empty(shape: tuple[int, ...], dtype: Any) -> DeviceArray:
    """Return an uninitialized device array."""
    return DeviceArray(cuda.device_array(tuple(shape), np.dtype(dtype)))


# --- the array type -----------------------------------------------------------------------
class _Flags:
    c_contiguous = True
    f_contiguous = False
    writeable = True
    owndata = True

    def __getitem__(self, key: str) -> bool:
        return bool(getattr(self, key.lower()))


_FLAGS = _Flags()


def _shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        return tuple(int(s) for s in shape[0])
    return tuple(int(s) for s in shape)


def _sum_or_mean(op: str) -> Callable[..., DeviceArray]:
    # numpy's signature, written once for both methods.
    def method(
        self: DeviceArray,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
    ) -> DeviceArray:
        r = _operations().reduce(self, op, axis, keepdims)
        return r if dtype is None else r.astype(dtype)

    method.__name__ = method.__qualname__ = op
    method.__doc__ = f"{op.capitalize()} over `axis`."
    return method


class DeviceArray:
    """A contiguous array in GPU memory that numpy functions dispatch on.

    Args:
        dev: A C-contiguous numba CUDA device array (or the simulator's stand-in).
    """

    __slots__ = ("_dev",)
    __cadence_device__ = True
    __array_priority__ = 100

    def __init__(self, dev: Any) -> None:
        self._dev = dev

    # --- numpy-like attributes -----------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        """The shape."""
        return tuple(self._dev.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        """The numpy dtype."""
        dt: np.dtype[Any] = np.dtype(self._dev.dtype)
        return dt

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._dev.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(math.prod(self._dev.shape))

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of data."""
        return self.size * self.itemsize

    @property
    def flags(self) -> _Flags:
        """Always C-contiguous and writeable."""
        return _FLAGS

    @property
    def T(self) -> DeviceArray:  # noqa: N802 - numpy's spelling
        """The array with its axes reversed (a copy)."""
        return self.transpose()

    @property
    def device_array(self) -> Any:
        """The wrapped numba device array."""
        return self._dev

    def __len__(self) -> int:
        if not self._dev.shape:
            raise TypeError("len() of unsized object")
        return int(self._dev.shape[0])

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype})"

    # --- host conversion (each one a counted copy) ------------------------------------
    def __array__(
        self, dtype: Any = None, copy: bool | None = None
    ) -> np.ndarray[Any, Any]:
        host = to_host(self)
        return host if dtype is None else host.astype(dtype)

    def item(self, *index: Any) -> Any:
        """Return one element as a Python scalar (a copy to the host)."""
        return to_host(self).item(*index)

    def tolist(self) -> Any:
        """Return the data as nested lists (a copy to the host)."""
        return to_host(self).tolist()

    def __float__(self) -> float:
        return float(to_host(self))

    def __int__(self) -> int:
        return int(to_host(self))

    def __bool__(self) -> bool:
        return bool(to_host(self))

    def __iter__(self) -> Any:
        return iter(to_host(self))

    # --- shape manipulation on the device ------------------------------------------------
    def reshape(self, *shape: Any, order: str = "C") -> DeviceArray:
        """Return the data in a new shape (a view of the same buffer)."""
        new = _shape_arg(shape)
        if -1 in new:
            known = math.prod(n for n in new if n != -1)
            new = tuple(self.size // max(known, 1) if n == -1 else n for n in new)
        if math.prod(new) != self.size:
            raise ValueError(
                f"cannot reshape array of size {self.size} into shape {new}"
            )
        return DeviceArray(self._dev.reshape(new))

    def ravel(self) -> DeviceArray:
        """Return a flat view."""
        return DeviceArray(self._dev.reshape(self.size))

    def transpose(self, *axes: Any) -> DeviceArray:
        """Return a contiguous copy with the axes permuted (reversed when none are given)."""
        perm = (
            _shape_arg(axes)
            if axes and axes[0] is not None
            else tuple(range(self.ndim))[::-1]
        )
        if perm == tuple(range(self.ndim)):
            return self
        strides = contiguous_strides(self.shape)
        return _operations().gather(
            self, 0, tuple(strides[p] for p in perm), tuple(self.shape[p] for p in perm)
        )

    def astype(self, dtype: Any, copy: bool = True, **_: Any) -> DeviceArray:
        """Return the data converted to `dtype`."""
        dt = np.dtype(dtype)
        if dt == self.dtype and not copy:
            return self
        return _operations().cast(self, dt)

    def copy(self) -> DeviceArray:
        """Return a copy on the device."""
        return self.astype(self.dtype, copy=True)

    sum = _sum_or_mean("sum")
    mean = _sum_or_mean("mean")

    def max(
        self, axis: Any = None, out: Any = None, keepdims: bool = False
    ) -> DeviceArray:
        """Maximum over `axis`."""
        return _operations().reduce(self, "max", axis, keepdims)

    def min(
        self, axis: Any = None, out: Any = None, keepdims: bool = False
    ) -> DeviceArray:
        """Minimum over `axis`."""
        return _operations().reduce(self, "min", axis, keepdims)

    def __getitem__(self, index: Any) -> DeviceArray:
        view = _basic_view(self.shape, index)
        if view is not None:
            return _operations().gather(self, *view)
        along = _operations().axis_index(self.shape, index)
        if (
            along is not None
        ):  # a[..., ids, ...]: whole slices along one axis (a gather's forward)
            return _operations().take(self, *along)
        return _fallback("getitem", lambda h: h[index], self)  # type: ignore[no-any-return]

    def __setitem__(self, index: Any, value: Any) -> None:
        view = _basic_view(self.shape, index)
        if view is not None:
            _operations().scatter(self, view, value)
            return
        host = to_host(self)
        host[index] = to_host(value)
        count("fallback:setitem")
        self._dev.copy_to_device(host)
        count("to_device")

    # --- numpy dispatch --------------------------------------------------------------------
    def __array_ufunc__(
        self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any
    ) -> Any:
        plain = method == "__call__" and not kwargs
        if plain and ufunc is np.matmul and len(inputs) == 2:
            product = _operations().matmul(*inputs)
            if product is not None:
                return product
        elif plain and ufunc.nin == len(inputs):
            result = _operations().elementwise(ufunc, inputs)
            if result is not None:
                return result
        if method == "at" and ufunc is np.add and isinstance(inputs[0], DeviceArray):
            # np.add.at(a, index, values): a gather's gradient, scatter-added on the device.
            along = _operations().axis_index(inputs[0].shape, inputs[1])
            if along is not None and not kwargs:
                _operations().add_at(inputs[0], *along, inputs[2])
                return None
        if method == "at" and isinstance(inputs[0], DeviceArray):
            # In place: on a host copy, which then goes back into this array.
            target, *rest = inputs
            host = to_host(target)
            getattr(ufunc, method)(host, *_to_host_tree(tuple(rest)), **kwargs)
            count(f"fallback:{ufunc.__name__}.at")
            target._dev.copy_to_device(host)
            count("to_device")
            return None
        if "out" in kwargs:
            return NotImplemented
        return _fallback(
            ufunc.__name__, lambda *h: getattr(ufunc, method)(*h, **kwargs), *inputs
        )

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        impl = _operations().FUNCTIONS.get(func)
        if impl is not None:
            return impl(*args, **kwargs)
        if func is np.copyto:
            return NotImplemented
        return _fallback(func.__name__, lambda *h: func(*h, **kwargs), *args)

    def __add__(self, o: Any) -> Any:
        return np.add(self, o)

    def __radd__(self, o: Any) -> Any:
        return np.add(o, self)

    def __sub__(self, o: Any) -> Any:
        return np.subtract(self, o)

    def __rsub__(self, o: Any) -> Any:
        return np.subtract(o, self)

    def __mul__(self, o: Any) -> Any:
        return np.multiply(self, o)

    def __rmul__(self, o: Any) -> Any:
        return np.multiply(o, self)

    def __truediv__(self, o: Any) -> Any:
        return np.true_divide(self, o)

    def __rtruediv__(self, o: Any) -> Any:
        return np.true_divide(o, self)

    def __pow__(self, o: Any) -> Any:
        return np.power(self, o)

    def __neg__(self) -> Any:
        return np.negative(self)

    def __matmul__(self, o: Any) -> Any:
        return np.matmul(self, o)

    def __rmatmul__(self, o: Any) -> Any:
        return np.matmul(o, self)

    def __eq__(self, o: object) -> Any:
        return np.equal(self, o)  # type: ignore[call-overload]

    def __ne__(self, o: object) -> Any:
        return np.not_equal(self, o)  # type: ignore[call-overload]

    def __lt__(self, o: Any) -> Any:
        return np.less(self, o)

    def __le__(self, o: Any) -> Any:
        return np.less_equal(self, o)

    def __gt__(self, o: Any) -> Any:
        return np.greater(self, o)

    def __ge__(self, o: Any) -> Any:
        return np.greater_equal(self, o)

    __hash__ = None  # type: ignore[assignment]


def _to_host_tree(x: Any) -> Any:
    if isinstance(x, DeviceArray):
        return to_host(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_host_tree(i) for i in x)
    return x


def _to_device_tree(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return to_device(x)
    if isinstance(x, tuple):
        return tuple(_to_device_tree(i) for i in x)
    if isinstance(x, list):
        return [_to_device_tree(i) for i in x]
    return x


def _fallback(name: str, fn: Any, *args: Any) -> Any:
    """Run `fn` on host copies of the arguments and copy array results back (counted)."""
    count(f"fallback:{name}")
    return _to_device_tree(fn(*_to_host_tree(args)))


def _basic_view(
    shape: tuple[int, ...], index: Any
) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
    """Return (offset, element strides, shape) of a basic index, or None for advanced indexing."""
    items = list(index) if isinstance(index, tuple) else [index]
    if any(
        not (i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice)))
        for i in items
    ):
        return None
    if items.count(Ellipsis) > 1:
        return None
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at : at + 1] = [slice(None)] * (len(shape) - used)
    items += [slice(None)] * (len(shape) - sum(1 for i in items if i is not None))
    strides = contiguous_strides(shape)
    offset, out_strides, out_shape, d = 0, [], [], 0
    for i in items:
        if i is None:
            out_strides.append(0)
            out_shape.append(1)
            continue
        if d >= len(shape):
            return None
        if isinstance(i, slice):
            start, stop, step = i.indices(shape[d])
            out_shape.append(len(range(start, stop, step)))
            out_strides.append(strides[d] * step)
            offset += start * strides[d]
        else:
            k = int(i) + (shape[d] if i < 0 else 0)
            if not 0 <= k < shape[d]:
                raise IndexError(
                    f"index {i} is out of bounds for axis {d} with size {shape[d]}"
                )
            offset += k * strides[d]
        d += 1
    if len(out_shape) > MAXDIM:
        return None
    return offset, tuple(out_strides), tuple(out_shape)
