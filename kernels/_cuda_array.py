"""`DeviceArray`: what tensors hold on the GPU target, and the generic device kernels behind it.

A `DeviceArray` wraps a C-contiguous numba CUDA device array and speaks numpy's
dispatch protocols (`__array_ufunc__`, `__array_function__`), so the
runtime's ops (`np.add(a, b)`, `g.sum(axis=0)`, `np.broadcast_to(...)`) run on
the device without knowing about CUDA:

- elementwise ufuncs with broadcasting and Python scalars, reductions
  (`sum`, `mean`, `max`, `min` over any axes), reshapes, transposes,
  broadcasts and basic indexing run as the kernels below;
- anything else falls back to numpy on a host copy, and the result is copied
  back. Fallbacks are counted by name in `statistics()`, next to every
  host <-> device transfer, so tests can prove a training step never leaves
  the device except for the scalars it reports.

Views are materialized: every `DeviceArray` is contiguous, so kernels index
flat buffers with element strides. Arrays of more than `MAXDIM` dimensions
fall back to the host.
"""

from __future__ import annotations

import importlib
import math
import threading
from collections import Counter
from typing import Any

import numba
import numpy as np

# numba.cuda has no type information; device-side names (cuda.grid, ...) are dynamic.
cuda: Any = importlib.import_module("numba.cuda")
config: Any = numba.config

__all__ = [
    "MAXDIM",
    "DeviceArray",
    "device_empty",
    "launch",
    "reset_statistics",
    "statistics",
    "to_device",
    "to_host",
]

MAXDIM = 6
SIMULATOR = bool(config.ENABLE_CUDASIM)
# The simulator runs every thread as a Python thread: keep launches small there.
# Every kernel uses a grid-stride loop, so any launch size gives the same result.
THREADS = 8 if SIMULATOR else 256
MAX_BLOCKS = 2 if SIMULATOR else 4096


def launch(n: int) -> tuple[int, int]:
    """Return (blocks, threads per block) for a grid-stride kernel over `n` items."""
    return max(1, min(MAX_BLOCKS, -(-n // THREADS))), THREADS


# --- transfer and fallback accounting --------------------------------------------------
_stats_lock = threading.Lock()
_stats: Counter[str] = Counter()


def _count(key: str, n: int = 1) -> None:
    with _stats_lock:
        _stats[key] += n


def statistics() -> dict[str, int]:
    """Return counters: `to_device`, `to_host` (copies) and `fallback:<numpy name>` (host fallbacks)."""
    with _stats_lock:
        return dict(_stats)


def reset_statistics() -> None:
    """Zero every counter."""
    with _stats_lock:
        _stats.clear()


def to_device(array: Any) -> DeviceArray:
    """Copy a host array (or anything numpy can convert) to the GPU."""
    if isinstance(array, DeviceArray):
        return array
    host = np.asarray(array)
    if not host.flags.c_contiguous:  # (np.ascontiguousarray would turn 0-d into 1-d)
        host = np.ascontiguousarray(host)
    _count("to_device")
    return DeviceArray(cuda.to_device(host))


def to_host(data: Any) -> np.ndarray[Any, Any]:
    """Copy a `DeviceArray` to a new numpy array; numpy input passes through."""
    if isinstance(data, DeviceArray):
        _count("to_host")
        return np.asarray(data._dev.copy_to_host())
    return np.asarray(data)


def device_empty(shape: tuple[int, ...], dtype: Any) -> DeviceArray:
    """Return an uninitialized device array."""
    return DeviceArray(cuda.device_array(tuple(shape), np.dtype(dtype)))


# --- generic kernels --------------------------------------------------------------------
@cuda.jit(device=True)
def _binary_op(x: Any, y: Any, code: int) -> Any:
    if code == 0:
        return x + y
    if code == 1:
        return x - y
    if code == 2:
        return x * y
    if code == 3:
        return x / y
    if code == 4:
        return x if x >= y else y
    if code == 5:
        return x if x <= y else y
    return x**y


@cuda.jit(device=True)
def _unary_op(x: Any, code: int) -> Any:
    if code == 1:
        return -x
    if code == 2:
        return math.exp(x)
    if code == 3:
        return math.log(x)
    if code == 4:
        return math.sqrt(x)
    if code == 5:
        return x * x
    if code == 6:
        return abs(x)
    if code == 7:
        return math.tanh(x)
    return x


@cuda.jit
def _ewise2(
    code: int,
    a: Any,
    sa: Any,
    av: Any,
    ka: bool,
    b: Any,
    sb: Any,
    bv: Any,
    kb: bool,
    out: Any,
    shape: Any,
) -> None:
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        rem = i
        oa = 0
        ob = 0
        for d in range(MAXDIM - 1, -1, -1):
            n = shape[d]
            idx = rem % n
            rem //= n
            oa += idx * sa[d]
            ob += idx * sb[d]
        x = av if ka else a[oa]
        y = bv if kb else b[ob]
        out[i] = _binary_op(x, y, code)


@cuda.jit
def _ewise1(code: int, a: Any, out: Any) -> None:
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = _unary_op(a[i], code)


@cuda.jit
def _gather(src: Any, offset: int, strides: Any, shape: Any, out: Any) -> None:
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        rem = i
        o = offset
        for d in range(MAXDIM - 1, -1, -1):
            n = shape[d]
            o += (rem % n) * strides[d]
            rem //= n
        out[i] = src[o]


@cuda.jit
def _reduce(
    src: Any,
    kshape: Any,
    kstrides: Any,
    rshape: Any,
    rstrides: Any,
    count: int,
    op: int,
    out: Any,
) -> None:
    # One thread per output element; op 0 sum, 1 max, 2 min, 3 mean. Accumulates in float64.
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        rem = i
        base = 0
        for d in range(MAXDIM - 1, -1, -1):
            n = kshape[d]
            base += (rem % n) * kstrides[d]
            rem //= n
        acc = 0.0
        for j in range(count):
            rem = j
            o = base
            for d in range(MAXDIM - 1, -1, -1):
                n = rshape[d]
                o += (rem % n) * rstrides[d]
                rem //= n
            v = src[o] * 1.0
            if op == 1:
                acc = v if j == 0 or v > acc else acc
            elif op == 2:
                acc = v if j == 0 or v < acc else acc
            else:
                acc += v
        if op == 3 and count > 0:
            acc /= count
        out[i] = acc


@cuda.jit
def _fill(out: Any, value: Any) -> None:
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = value


_BINARY = {
    np.add: 0,
    np.subtract: 1,
    np.multiply: 2,
    np.true_divide: 3,
    np.maximum: 4,
    np.minimum: 5,
    np.power: 6,
}
_UNARY = {
    np.positive: 0,
    np.negative: 1,
    np.exp: 2,
    np.log: 3,
    np.sqrt: 4,
    np.square: 5,
    np.absolute: 6,
    np.tanh: 7,
}
_REDUCE = {"sum": 0, "max": 1, "min": 2, "mean": 3}
_dtype_cache: dict[tuple[Any, ...], np.dtype[Any]] = {}


def _flat(a: DeviceArray) -> Any:
    return a._dev.reshape(a.size) if a._dev.ndim != 1 else a._dev


def _padded(values: tuple[int, ...], fill: int) -> tuple[int, ...]:
    return (fill,) * (MAXDIM - len(values)) + tuple(int(v) for v in values)


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def _broadcast_strides(
    shape: tuple[int, ...], out_shape: tuple[int, ...]
) -> tuple[int, ...]:
    strides = _contiguous_strides(shape)
    lead = len(out_shape) - len(shape)
    full = [0] * lead + [
        0 if n == 1 else s for n, s in zip(shape, strides, strict=True)
    ]
    return _padded(tuple(full), 0)


def _result_dtype(ufunc: Any, *operands: Any) -> np.dtype[Any]:
    key = (ufunc, *(o.dtype if hasattr(o, "dtype") else type(o) for o in operands))
    dt = _dtype_cache.get(key)
    if dt is None:
        probes = [
            np.ones(1, o.dtype) if hasattr(o, "dtype") else type(o)(1) for o in operands
        ]
        dt = _dtype_cache[key] = np.asarray(ufunc(*probes)).dtype
    return dt


def _is_scalar(x: Any) -> bool:
    return isinstance(x, (int, float, bool, np.generic))


def _elementwise(ufunc: Any, inputs: tuple[Any, ...]) -> DeviceArray | None:
    """Run a supported ufunc on the device, or return None to fall back."""
    ops = [
        x if isinstance(x, DeviceArray) or _is_scalar(x) else to_device(np.asarray(x))
        for x in inputs
    ]
    arrays = [x for x in ops if isinstance(x, DeviceArray)]
    if any(a.ndim > MAXDIM for a in arrays) or any(isinstance(x, complex) for x in ops):
        return None
    out_shape = np.broadcast_shapes(*(a.shape for a in arrays))
    dt = _result_dtype(ufunc, *ops)
    out = device_empty(out_shape, dt)
    if out.size == 0:
        return out
    blocks, threads = launch(out.size)
    if len(ops) == 1:
        a = ops[0]
        assert isinstance(a, DeviceArray)
        _ewise1[blocks, threads](_UNARY[ufunc], _flat(a), _flat(out))
        return out
    args: list[Any] = []
    for x in ops:
        if isinstance(x, DeviceArray):
            args += [
                _flat(x),
                _broadcast_strides(x.shape, out_shape),
                dt.type(0),
                False,
            ]
        else:
            args += [_flat(out), _padded((), 0), dt.type(x), True]
    _ewise2[blocks, threads](_BINARY[ufunc], *args, _flat(out), _padded(out_shape, 1))
    return out


def gather(
    src: DeviceArray, offset: int, strides: tuple[int, ...], shape: tuple[int, ...]
) -> DeviceArray:
    """Return a contiguous copy of the strided view (`offset`, element `strides`, `shape`) of `src`."""
    out = device_empty(shape, src.dtype)
    if out.size:
        blocks, threads = launch(out.size)
        _gather[blocks, threads](
            _flat(src), offset, _padded(strides, 0), _padded(shape, 1), _flat(out)
        )
    return out


def fill(out: DeviceArray, value: Any) -> DeviceArray:
    """Set every element of `out` to `value`; return `out`."""
    if out.size:
        blocks, threads = launch(out.size)
        _fill[blocks, threads](_flat(out), out.dtype.type(value))
    return out


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted({int(a) % ndim for a in items})) if ndim else ()


def reduce(
    a: DeviceArray, op: str, axis: Any = None, keepdims: bool = False
) -> DeviceArray:
    """Reduce `a` with `op` ("sum", "mean", "max", "min") over `axis`, as numpy does."""
    axes = _axes(axis, a.ndim)
    kept = tuple(d for d in range(a.ndim) if d not in axes)
    strides = _contiguous_strides(a.shape)
    dt = getattr(np, op)(np.zeros(1, a.dtype)).dtype
    out_shape = (
        tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
        if keepdims
        else tuple(a.shape[d] for d in kept)
    )
    out = device_empty(out_shape, dt)
    count = math.prod(a.shape[d] for d in axes)
    if op in ("max", "min") and count == 0:
        raise ValueError(
            f"zero-size array to reduction operation {op} which has no identity"
        )
    blocks, threads = launch(max(out.size, 1))
    _reduce[blocks, threads](
        _flat(a),
        _padded(tuple(a.shape[d] for d in kept), 1),
        _padded(tuple(strides[d] for d in kept), 0),
        _padded(tuple(a.shape[d] for d in axes), 1),
        _padded(tuple(strides[d] for d in axes), 0),
        count,
        _REDUCE[op],
        _flat(out),
    )
    return out


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
        return DeviceArray(_flat(self))

    def transpose(self, *axes: Any) -> DeviceArray:
        """Return a contiguous copy with the axes permuted (reversed when none are given)."""
        perm = (
            _shape_arg(axes)
            if axes and axes[0] is not None
            else tuple(range(self.ndim))[::-1]
        )
        if perm == tuple(range(self.ndim)):
            return self
        strides = _contiguous_strides(self.shape)
        return gather(
            self, 0, tuple(strides[p] for p in perm), tuple(self.shape[p] for p in perm)
        )

    def astype(self, dtype: Any, copy: bool = True, **_: Any) -> DeviceArray:
        """Return the data converted to `dtype`."""
        dt = np.dtype(dtype)
        if dt == self.dtype and not copy:
            return self
        out = device_empty(self.shape, dt)
        if out.size:
            blocks, threads = launch(out.size)
            _ewise1[blocks, threads](0, _flat(self), _flat(out))
        return out

    def copy(self) -> DeviceArray:
        """Return a copy on the device."""
        return self.astype(self.dtype, copy=True)

    def sum(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
    ) -> DeviceArray:
        """Sum over `axis`."""
        r = reduce(self, "sum", axis, keepdims)
        return r if dtype is None else r.astype(dtype)

    def mean(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
    ) -> DeviceArray:
        """Mean over `axis`."""
        r = reduce(self, "mean", axis, keepdims)
        return r if dtype is None else r.astype(dtype)

    def max(
        self, axis: Any = None, out: Any = None, keepdims: bool = False
    ) -> DeviceArray:
        """Maximum over `axis`."""
        return reduce(self, "max", axis, keepdims)

    def min(
        self, axis: Any = None, out: Any = None, keepdims: bool = False
    ) -> DeviceArray:
        """Minimum over `axis`."""
        return reduce(self, "min", axis, keepdims)

    def __getitem__(self, index: Any) -> DeviceArray:
        view = _basic_view(self.shape, index)
        if view is None:
            return _fallback("getitem", lambda h: h[index], self)  # type: ignore[no-any-return]
        offset, strides, shape = view
        return gather(self, offset, strides, shape)

    def __setitem__(self, index: Any, value: Any) -> None:
        host = to_host(self)
        host[index] = to_host(value)
        _count("fallback:setitem")
        self._dev.copy_to_device(host)
        _count("to_device")

    # --- numpy dispatch --------------------------------------------------------------------
    def __array_ufunc__(
        self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any
    ) -> Any:
        plain = method == "__call__" and not kwargs
        if (
            plain
            and ufunc is np.matmul
            and all(getattr(x, "ndim", 0) == 2 for x in inputs)
        ):
            from ._cuda import matmul

            return matmul(*inputs)
        if plain and (ufunc in _BINARY or ufunc in _UNARY) and ufunc.nin == len(inputs):
            result = _elementwise(ufunc, inputs)
            if result is not None:
                return result
        if "out" in kwargs:
            return NotImplemented
        return _fallback(
            ufunc.__name__, lambda *h: getattr(ufunc, method)(*h, **kwargs), *inputs
        )

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        impl = _FUNCTIONS.get(func)
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
    _count(f"fallback:{name}")
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
    strides = _contiguous_strides(shape)
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


# --- numpy functions implemented on the device --------------------------------------------
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
        _count("fallback:copyto")
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


_FUNCTIONS: dict[Any, Any] = {
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
