"""Generic CUDA kernels behind `DeviceArray`: broadcasting elementwise ops, strided gathers, reductions.

Each is a grid-stride loop over output elements; shapes and element strides
travel as tuples padded to `MAXDIM` entries, so one compiled kernel serves
every rank.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import DeviceArray, device_empty, to_device
from ._device import MAXDIM, SIMULATOR, contiguous_strides, cuda, launch

# Reductions longer than SPLIT_ABOVE run in two passes, about CHUNK elements per thread,
# with up to TARGET_THREADS threads in the first pass.
SPLIT_ABOVE = 1024 if SIMULATOR else 4096
CHUNK = 512 if SIMULATOR else 256
TARGET_THREADS = 64 if SIMULATOR else 1 << 16

__all__ = ["cast", "elementwise", "fill", "gather", "reduce"]


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
    # maximum and minimum propagate NaN as numpy does: a NaN `x` fails no test here
    # because `x != x` holds only for NaN, and a NaN `y` fails `x >= y` and is returned.
    if code == 4:
        return x if x >= y or x != x else y
    if code == 5:
        return x if x <= y or x != x else y
    return x**y


# Comparison codes start here in `_BINARY`; `_ewise2` stores their bool results.
_COMPARE_CODES = 16


@cuda.jit(device=True)
def _compare_op(x: Any, y: Any, code: int) -> Any:
    if code == 0:
        return x == y
    if code == 1:
        return x != y
    if code == 2:
        return x < y
    if code == 3:
        return x <= y
    if code == 4:
        return x > y
    return x >= y


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


@cuda.jit(device=True)
def _offset(i: int, shape: Any, strides: Any, start: int) -> int:
    # The storage offset of flat (C-order) index i of a view with these padded shape and strides.
    o = start
    for d in range(MAXDIM - 1, -1, -1):
        n = shape[d]
        o += (i % n) * strides[d]
        i //= n
    return o


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
        # Two stores, not one conditional expression: each result converts to `out`'s dtype alone.
        if code >= _COMPARE_CODES:
            out[i] = _compare_op(x, y, code - _COMPARE_CODES)
        else:
            out[i] = _binary_op(x, y, code)


@cuda.jit
def _ewise1(code: int, a: Any, out: Any) -> None:
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = _unary_op(a[i], code)


@cuda.jit
def _gather(src: Any, offset: int, strides: Any, shape: Any, out: Any) -> None:
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = src[_offset(i, shape, strides, offset)]


@cuda.jit
def _reduce(
    src: Any,
    kshape: Any,
    kstrides: Any,
    rshape: Any,
    rstrides: Any,
    count: int,
    op: int,
    parts: int,
    chunk: int,
    divisor: int,
    out: Any,
) -> None:
    # Thread e reduces elements [p * chunk, (p + 1) * chunk) of output element e // parts,
    # p = e % parts; op 0 sum, 1 max, 2 min, 3 mean (a sum divided by `divisor`).
    # Accumulates in float64.
    for e in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        i = e // parts
        first = (e - i * parts) * chunk
        last = min(count, first + chunk)
        base = _offset(i, kshape, kstrides, 0)
        acc = 0.0
        for j in range(first, last):
            v = src[_offset(j, rshape, rstrides, base)] * 1.0
            # A NaN element wins (v != v) and then stays: no comparison with a NaN `acc`
            # holds, so max and min propagate NaN as numpy's do.
            if op == 1:
                acc = v if j == first or v > acc or v != v else acc
            elif op == 2:
                acc = v if j == first or v < acc or v != v else acc
            else:
                acc += v
        if op == 3 and divisor > 0:
            acc /= divisor
        out[e] = acc


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
    **{
        ufunc: _COMPARE_CODES + k
        for k, ufunc in enumerate(  # type: ignore[misc]
            (
                np.equal,
                np.not_equal,
                np.less,
                np.less_equal,
                np.greater,
                np.greater_equal,
            )
        )
    },
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


def _broadcast_strides(
    shape: tuple[int, ...], out_shape: tuple[int, ...]
) -> tuple[int, ...]:
    strides = contiguous_strides(shape)
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


def elementwise(ufunc: Any, inputs: tuple[Any, ...]) -> DeviceArray | None:
    """Run a supported ufunc on the device, or return None to fall back."""
    if ufunc not in _BINARY and ufunc not in _UNARY:
        return None
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
    # A comparison's operands keep their own type (numpy's: a Python scalar takes the array's).
    operand_dt = (
        np.result_type(*(a.dtype for a in arrays))
        if _BINARY.get(ufunc, 0) >= _COMPARE_CODES
        else dt
    )
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
                operand_dt.type(0),
                False,
            ]
        else:
            # The array slot of a scalar operand is never read, but types the kernel's `x`.
            unread = out if operand_dt == dt else device_empty((1,), operand_dt)
            args += [_flat(unread), _padded((), 0), operand_dt.type(x), True]
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


def cast(a: DeviceArray, dtype: np.dtype[Any]) -> DeviceArray:
    """Return `a` converted to `dtype`, as a new array."""
    out = device_empty(a.shape, dtype)
    if out.size:
        blocks, threads = launch(out.size)
        _ewise1[blocks, threads](0, _flat(a), _flat(out))
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


def _split(count: int, outputs: int) -> tuple[int, int]:
    """Return (parts, chunk): threads per output element and elements per thread, no part empty."""
    parts = 1
    if count > SPLIT_ABOVE:
        parts = max(1, min(-(-count // CHUNK), TARGET_THREADS // max(outputs, 1)))
    chunk = max(1, -(-count // parts))
    return max(1, -(-count // chunk)), chunk


def reduce(
    a: DeviceArray, op: str, axis: Any = None, keepdims: bool = False
) -> DeviceArray:
    """Reduce `a` with `op` ("sum", "mean", "max", "min") over `axis`, as numpy does."""
    axes = _axes(axis, a.ndim)
    kept = tuple(d for d in range(a.ndim) if d not in axes)
    strides = contiguous_strides(a.shape)
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
    # Shapes and strides of the kept axes, then of the reduced ones (padded to MAXDIM).
    layout = tuple(
        _padded(tuple(source[d] for d in dims), pad)
        for dims in (kept, axes)
        for source, pad in ((a.shape, 1), (strides, 0))
    )
    parts, chunk = _split(count, out.size)
    if parts == 1:
        _reduce[launch(max(out.size, 1))](
            _flat(a),
            *layout,
            count,
            _REDUCE[op],
            1,
            count,
            count,
            _flat(out),
        )
        return out
    # Long reductions into few outputs (a convolution's bias gradient) in two passes:
    # `parts` threads per output element write partial results, then one thread each
    # combines its element's partials.
    partial = device_empty((out.size, parts), np.float64)
    first = 0 if op == "mean" else _REDUCE[op]
    _reduce[launch(partial.size)](
        _flat(a),
        *layout,
        count,
        first,
        parts,
        chunk,
        count,
        _flat(partial),
    )
    _reduce[launch(max(out.size, 1))](
        _flat(partial),
        _padded((out.size,), 1),
        _padded((parts,), 0),
        _padded((parts,), 1),
        _padded((1,), 0),
        parts,
        _REDUCE[op],
        1,
        parts,
        count,
        _flat(out),
    )
    return out
