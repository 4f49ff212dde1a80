"""Differentiable tensor ops: arithmetic, reductions, shapes, elementwise math.

Each op computes its result with numpy (or a target kernel) and, when the tape
is recording and an input is tracked, attaches a backward closure. On a device
target the data are device arrays whose numpy protocols run the same calls on
the device (see `_placement`), so results are kept as they come (`_keep`).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._autograd import Node, _state
from ..compute._tensor import Tensor
from ._placement import is_device_array

Array = np.ndarray[Any, Any]
GradFn = Callable[[Array], Sequence["Array | None"]]

# The functions of MindSpore's `F` path defined here (`functional` re-exports them);
# `getitem`, Tensor's indexing, is internal: MindSpore has no `ops.getitem`; so is
# `argmax` (Int32, numpy's arguments): `ops.argmax` is `_ranking`'s, MindSpore 2.x's.
__all__ = [
    "abs",
    "add",
    "amax",
    "amin",
    "argmin",
    "cast",
    "clamp",
    "clip",
    "concat",
    "div",
    "equal",
    "exp",
    "expand_dims",
    "flatten",
    "floor_divide",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "matmul",
    "maximum",
    "mean",
    "minimum",
    "mod",
    "mul",
    "neg",
    "not_equal",
    "ones",
    "ones_like",
    "pow",
    "reshape",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "sub",
    "transpose",
    "unsqueeze",
    "zeros",
    "zeros_like",
]


def record(
    data: Array, inputs: tuple[Tensor, ...], grad_fn: Callable[[], GradFn]
) -> Tensor:
    """Wrap `data`; if recording and an input is tracked, attach the closure `grad_fn()` builds."""
    out = Tensor._wrap(data)
    if _state.recording:
        for t in inputs:
            if t._tracked:
                out._node = Node(inputs, grad_fn())
                out._tracked = True
                break
    return out


def _keep(x: Any) -> Any:
    """Return `x` as an array: numpy arrays and device arrays as they are, scalars as 0-d arrays."""
    if type(x) is np.ndarray or getattr(type(x), "__cadence_device__", False):
        return x
    return np.asarray(x)


def as_tensor(x: Any) -> Tensor:
    """Return `x` if it is a Tensor, else a constant Tensor of it."""
    return x if isinstance(x, Tensor) else Tensor(x)


def unbroadcast(g: Array, shape: tuple[int, ...]) -> Array:
    """Sum `g` over the axes broadcasting added to reach `shape`."""
    if g.shape == shape:
        return g
    extra = g.ndim - len(shape)
    if extra:
        g = g.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def _operand(x: Any) -> tuple[Tensor | None, Any]:
    if isinstance(x, Tensor):
        return x, x._data
    if isinstance(x, (int, float, bool)):
        return None, x  # stays a weak Python scalar, so float32 stays float32
    return None, np.asarray(x)


def _binary(
    a: Any,
    b: Any,
    fwd: Callable[[Any, Any], Array],
    ga: Callable[..., Array] | None,
    gb: Callable[..., Array] | None,
) -> Tensor:
    ta, da = _operand(a)
    tb, db = _operand(b)
    out = _keep(fwd(da, db))
    inputs = tuple(t for t in (ta, tb) if t is not None)

    def grad_fn() -> GradFn:
        def backward(g: Array) -> list[Array | None]:
            grads: list[Array | None] = []
            if ta is not None:
                grads.append(
                    unbroadcast(ga(g, da, db, out), da.shape)
                    if ga and ta._tracked
                    else None
                )
            if tb is not None:
                grads.append(
                    unbroadcast(gb(g, da, db, out), np.shape(db))
                    if gb and tb._tracked
                    else None
                )
            return grads

        return backward

    return record(out, inputs, grad_fn)


def add(input: Any, other: Any) -> Tensor:
    """Elementwise input + other (broadcasting)."""
    return _binary(input, other, np.add, lambda g, a, b, y: g, lambda g, a, b, y: g)


def sub(input: Any, other: Any) -> Tensor:
    """Elementwise input - other."""
    return _binary(
        input, other, np.subtract, lambda g, a, b, y: g, lambda g, a, b, y: -g
    )


def mul(input: Any, other: Any) -> Tensor:
    """Elementwise input * other."""
    return _binary(
        input, other, np.multiply, lambda g, a, b, y: g * b, lambda g, a, b, y: g * a
    )


def div(input: Any, other: Any) -> Tensor:
    """Elementwise input / other."""
    return _binary(
        input,
        other,
        np.true_divide,
        lambda g, a, b, y: g / b,
        lambda g, a, b, y: -g * y / b,
    )


def pow(input: Any, exponent: Any) -> Tensor:
    """Elementwise input ** exponent."""
    return _binary(
        input,
        exponent,
        np.power,
        lambda g, a, b, y: g * b * np.power(a, b - 1),
        lambda g, a, b, y: g * y * np.log(np.where(a > 0, a, 1)),
    )


def maximum(input: Any, other: Any) -> Tensor:
    """Elementwise maximum (ties send the gradient to `input`)."""
    return _binary(
        input,
        other,
        np.maximum,
        lambda g, a, b, y: g * (a >= b),
        lambda g, a, b, y: g * (a < b),
    )


def minimum(input: Any, other: Any) -> Tensor:
    """Elementwise minimum (ties send the gradient to `input`)."""
    return _binary(
        input,
        other,
        np.minimum,
        lambda g, a, b, y: g * (a <= b),
        lambda g, a, b, y: g * (a > b),
    )


def floor_divide(input: Any, other: Any) -> Tensor:
    """Elementwise floor division (no gradient)."""
    return _binary(input, other, np.floor_divide, None, None)


def mod(input: Any, other: Any) -> Tensor:
    """Elementwise remainder (no gradient)."""
    return _binary(input, other, np.mod, None, None)


def _compare(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Tensor]:
    def op(input: Any, other: Any) -> Tensor:
        return Tensor._wrap(_keep(fn(_operand(input)[1], _operand(other)[1])))

    return op


equal = _compare(np.equal)
not_equal = _compare(np.not_equal)
less = _compare(np.less)
less_equal = _compare(np.less_equal)
greater = _compare(np.greater)
greater_equal = _compare(np.greater_equal)
for _op, _doc in (
    (equal, "=="),
    (not_equal, "!="),
    (less, "<"),
    (less_equal, "<="),
    (greater, ">"),
    (greater_equal, ">="),
):
    _op.__doc__ = f"Elementwise input {_doc} other, as a Bool tensor."


def _unary(
    x: Any, fwd: Callable[[Array], Array], grad: Callable[[Array, Array, Array], Array]
) -> Tensor:
    t = as_tensor(x)
    xd = t._data
    out = _keep(fwd(xd))

    def grad_fn() -> GradFn:
        return lambda g: (grad(g, xd, out),)

    return record(out, (t,), grad_fn)


def neg(input: Any) -> Tensor:
    """Elementwise -input."""
    return _unary(input, np.negative, lambda g, x, y: -g)


def abs(input: Any) -> Tensor:
    """Elementwise |input|."""
    return _unary(input, np.abs, lambda g, x, y: g * np.sign(x))


def exp(input: Any) -> Tensor:
    """Elementwise e**input."""
    return _unary(input, np.exp, lambda g, x, y: g * y)


def log(input: Any) -> Tensor:
    """Elementwise natural logarithm."""
    return _unary(input, np.log, lambda g, x, y: g / x)


def sqrt(input: Any) -> Tensor:
    """Elementwise square root."""
    return _unary(input, np.sqrt, lambda g, x, y: g / (2 * y))


def square(input: Any) -> Tensor:
    """Elementwise input * input."""
    return _unary(input, np.square, lambda g, x, y: 2 * g * x)


def clip(input: Any, xmin: Any = None, xmax: Any = None) -> Tensor:
    """Limit values to [xmin, xmax]; the gradient passes where the value was inside."""
    lo = _operand(xmin)[1] if xmin is not None else None
    hi = _operand(xmax)[1] if xmax is not None else None

    # Inside [xmin, xmax] exactly where clipping left the value alone; one comparison of
    # two arrays of the same target, so it runs on device arrays too.
    return _unary(input, lambda x: np.clip(x, lo, hi), lambda g, x, y: g * (y == x))


def clamp(input: Any, min: Any = None, max: Any = None) -> Tensor:
    """MindSpore 2.x's `clip`: limit values to [min, max]; one bound may be None, not both."""
    if min is None and max is None:
        raise ValueError(
            "For 'clamp', at least one of the arguments 'min' and 'max' must be given, but both are None."
        )
    return clip(input, min, max)


def cast(input: Any, dtype: Any) -> Tensor:
    """Convert to `dtype`; the gradient is converted back."""
    t = as_tensor(input)
    target = _dtype.to_numpy(dtype)
    if t._data.dtype == target:
        return t
    src = t._data.dtype
    return record(t._data.astype(target), (t,), lambda: lambda g: (g.astype(src),))


# --- reductions --------------------------------------------------------------------
def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    if axis is None or (isinstance(axis, (tuple, list)) and len(axis) == 0):
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(a % ndim if ndim else 0 for a in axis)


def _expand_grad(
    g: Array, shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool
) -> Array:
    if not keepdims:
        g = np.expand_dims(g, axes)
    return np.broadcast_to(g, shape)


def sum(input: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Sum over `axis` (all axes when None or empty)."""
    t = as_tensor(input)
    axes = _axes(axis, t.ndim)
    out = _keep(t._data.sum(axis=axes, keepdims=keepdims))
    shape = t.shape
    return record(
        out, (t,), lambda: lambda g: (_expand_grad(g, shape, axes, keepdims),)
    )


def mean(input: Any, axis: Any = None, keep_dims: bool = False) -> Tensor:
    """Mean over `axis` (all axes when None or empty)."""
    t = as_tensor(input)
    axes = _axes(axis, t.ndim)
    out = _keep(t._data.mean(axis=axes, keepdims=keep_dims))
    shape = t.shape
    count = int(np.prod([shape[a] for a in axes])) if shape else 1
    return record(
        out, (t,), lambda: lambda g: (_expand_grad(g / count, shape, axes, keep_dims),)
    )


def _extreme(input: Any, axis: Any, keepdims: bool, fn: Callable[..., Array]) -> Tensor:
    t = as_tensor(input)
    axes = _axes(axis, t.ndim)
    out = _keep(fn(t._data, axis=axes, keepdims=keepdims))
    xd = t._data

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array]:
            y = out if keepdims else np.expand_dims(out, axes)
            mask = xd == y
            share = mask / mask.sum(axis=axes, keepdims=True)
            return (_expand_grad(g, xd.shape, axes, keepdims) * share,)

        return backward

    return record(out, (t,), grad_fn)


def amax(input: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Maximum over `axis`; ties share the gradient."""
    return _extreme(input, axis, keepdims, np.max)


def amin(input: Any, axis: Any = None, keepdims: bool = False) -> Tensor:
    """Minimum over `axis`; ties share the gradient."""
    return _extreme(input, axis, keepdims, np.min)


def argmax(input: Any, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Indices of the maxima along `axis` (Int32, as MindSpore)."""
    return Tensor._wrap(
        np.asarray(
            np.argmax(as_tensor(input)._data, axis=axis, keepdims=keepdims)
        ).astype(np.int32)
    )


def argmin(input: Any, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Indices of the minima along `axis` (Int32, as MindSpore)."""
    return Tensor._wrap(
        np.asarray(
            np.argmin(as_tensor(input)._data, axis=axis, keepdims=keepdims)
        ).astype(np.int32)
    )


# --- shapes --------------------------------------------------------------------------
def reshape(input: Any, shape: Any) -> Tensor:
    """Return the data in a new shape (one entry may be -1)."""
    t = as_tensor(input)
    src = t.shape
    return record(
        t._data.reshape(tuple(shape)), (t,), lambda: lambda g: (g.reshape(src),)
    )


def flatten(
    input: Any, order: str = "C", *, start_dim: int = 1, end_dim: int = -1
) -> Tensor:
    """Merge dimensions `start_dim`..`end_dim` (MindSpore's `ops.flatten` keeps the batch axis by default).

    Raises:
        TypeError: `start_dim` or `end_dim` not an int.
        ValueError: `order` not 'C'; a dimension outside the input's; `start_dim` after `end_dim`.
    """
    t = as_tensor(input)
    if order != "C":
        raise ValueError(
            f"For 'flatten', the argument 'order' must be 'C' on cadence, but got {order!r}."
        )
    for name, value in (("start_dim", start_dim), ("end_dim", end_dim)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(
                f"For 'flatten', the argument '{name}' must be an int, but got {value!r}."
            )
    shape = t.shape
    if not shape:
        return reshape(t, (1,))
    n = len(shape)
    if not (-n <= start_dim < n and -n <= end_dim < n):
        raise ValueError(
            f"For 'flatten', the arguments 'start_dim' and 'end_dim' must lie in [{-n}, {n}) for "
            f"a {n}-D input, but got start_dim={start_dim}, end_dim={end_dim}."
        )
    s, e = start_dim % n, end_dim % n
    if s > e:
        raise ValueError(
            f"For 'flatten', the argument 'start_dim' ({start_dim}) must not come after "
            f"'end_dim' ({end_dim})."
        )
    return reshape(t, (*shape[:s], -1, *shape[e + 1 :]))


def transpose(input: Any, input_perm: Any = None) -> Tensor:
    """Permute axes (reverse them when `input_perm` is None)."""
    t = as_tensor(input)
    perm = tuple(range(t.ndim))[::-1] if input_perm is None else tuple(input_perm)
    inv = tuple(np.argsort(perm))
    return record(t._data.transpose(perm), (t,), lambda: lambda g: (g.transpose(inv),))


def expand_dims(input: Any, axis: int) -> Tensor:
    """Insert an axis of size 1."""
    t = as_tensor(input)
    src = t.shape
    return record(
        np.expand_dims(t._data, axis), (t,), lambda: lambda g: (g.reshape(src),)
    )


def unsqueeze(input: Any, dim: int) -> Tensor:
    """MindSpore 2.x's `expand_dims`: insert an axis of size 1 at `dim`."""
    return expand_dims(input, dim)


def squeeze(input: Any, axis: Any = None) -> Tensor:
    """Remove axes of size 1 (all, or those in `axis`)."""
    t = as_tensor(input)
    src = t.shape
    ax = tuple(axis) if isinstance(axis, list) else axis
    return record(np.squeeze(t._data, ax), (t,), lambda: lambda g: (g.reshape(src),))


def concat(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    """Join tensors along an existing axis."""
    ts = tuple(as_tensor(x) for x in tensors)
    out = np.concatenate([t._data for t in ts], axis=axis)
    bounds = np.cumsum([t.shape[axis] for t in ts])[:-1]
    return record(out, ts, lambda: lambda g: np.split(g, bounds, axis=axis))


def stack(tensors: Sequence[Any], axis: int = 0) -> Tensor:
    """Join tensors along a new axis."""
    ts = tuple(as_tensor(x) for x in tensors)
    out = np.stack([t._data for t in ts], axis=axis)
    return record(
        out, ts, lambda: lambda g: [np.take(g, i, axis=axis) for i in range(len(ts))]
    )


def _is_basic(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return builtins.all(
        i is None or i is Ellipsis or isinstance(i, (int, slice)) for i in items
    )


def getitem(input: Any, index: Any) -> Tensor:
    """Index like numpy; the gradient scatters back (adding at repeated indices)."""
    t = as_tensor(input)
    if isinstance(index, Tensor):
        index = index._data
    elif isinstance(index, tuple):
        index = tuple(i._data if isinstance(i, Tensor) else i for i in index)
    xd = t._data
    out = _keep(xd[index])

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array]:
            gx = np.zeros_like(xd)
            if type(gx) is np.ndarray and type(g) is not np.ndarray:
                g = np.asarray(
                    g
                )  # a host input (a parameter not yet moved) gets a host gradient
            if _is_basic(index):
                gx[index] += g
            else:  # a device array scatter-adds in place on the device (see kernels/cuda/_indexing.py)
                np.add.at(gx, index, g)
            return (gx,)

        return backward

    return record(out, (t,), grad_fn)


def pad(input: Any, padding: Sequence[tuple[int, int]], value: float = 0.0) -> Tensor:
    """Pad each axis by (before, after) elements of `value`; the gradient drops the padding."""
    t = as_tensor(input)
    widths = tuple((int(a), int(b)) for a, b in padding)
    out = np.pad(t._data, widths, constant_values=value)
    inner = tuple(slice(a, n - b) for (a, b), n in zip(widths, out.shape, strict=True))
    return record(out, (t,), lambda: lambda g: (g[inner],))


# --- matmul ---------------------------------------------------------------------------
def matmul_arrays(x: Array, y: Array, tx: bool, ty: bool) -> Array:
    """op(x) @ op(y), op swapping the last two axes when `tx` / `ty` is set.

    numpy hands a transposed view to BLAS as a flag; a device array's transpose
    would be a copy, so a 2-D product with a device operand passes the flags to the
    device matmul instead.
    """
    if x.ndim == y.ndim == 2 and (is_device_array(x) or is_device_array(y)):
        from cadence.kernels import cuda_kernels

        product: Array = cuda_kernels().matmul(x, y, tx, ty)
        return product
    return (np.swapaxes(x, -1, -2) if tx else x) @ (np.swapaxes(y, -1, -2) if ty else y)


def matmul(input: Any, other: Any) -> Tensor:
    """Matrix product with numpy's broadcasting rules (BLAS for 2-D, the batched kernel for stacks)."""
    ta, tb = as_tensor(input), as_tensor(other)
    a, b = ta._data, tb._data
    if a.ndim >= 3 and b.ndim >= 3 and a.dtype.kind == b.dtype.kind == "f":
        # Stacks of matrices: the target's batched kernel (BLAS per matrix on the CPU).
        from ._attention import batch_matmul

        return batch_matmul(ta, tb)
    out = _keep(a @ b)

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array | None, Array | None]:
            a2 = a[None, :] if a.ndim == 1 else a
            b2 = b[:, None] if b.ndim == 1 else b
            g2 = g
            if a.ndim == 1:
                g2 = np.expand_dims(g2, -2)
            if b.ndim == 1:
                g2 = np.expand_dims(g2, -1)
            ga = (
                unbroadcast(matmul_arrays(g2, b2, False, True), a2.shape).reshape(
                    a.shape
                )
                if ta._tracked
                else None
            )
            gb = None
            if tb._tracked and b2.ndim == 2 < a2.ndim and is_device_array(g2):
                # A stack times one matrix: the sum over the stack of a_i.T @ g_i is one
                # product over all the stack's rows, where a stacked product would fall
                # back to the host. (On the CPU numpy's stacked product and sum measured
                # faster than that long product: 1.75 vs 2.85 ms at 32x64x128 @ 128x128.)
                rows = (-1, a2.shape[-1]), (-1, g2.shape[-1])
                gb = matmul_arrays(
                    a2.reshape(rows[0]), g2.reshape(rows[1]), True, False
                )
                gb = gb.reshape(b.shape)
            elif tb._tracked:
                gb = unbroadcast(matmul_arrays(a2, g2, True, False), b2.shape)
                gb = gb.reshape(b.shape)
            return ga, gb

        return backward

    return record(out, (ta, tb), grad_fn)


# --- creation -------------------------------------------------------------------------
def _shape(size: Any) -> tuple[int, ...]:
    return (size,) if isinstance(size, int) else tuple(size)


def zeros(size: Any, dtype: Any = None) -> Tensor:
    """A tensor of zeros (float32 by default)."""
    return Tensor._wrap(
        np.zeros(_shape(size), _dtype.to_numpy(dtype or _dtype.float32))
    )


def ones(size: Any, dtype: Any = None) -> Tensor:
    """A tensor of ones (float32 by default)."""
    return Tensor._wrap(np.ones(_shape(size), _dtype.to_numpy(dtype or _dtype.float32)))


def zeros_like(input: Any, dtype: Any = None) -> Tensor:
    """Zeros shaped like `input`."""
    d = as_tensor(input)._data
    return Tensor._wrap(
        np.zeros_like(d, dtype=None if dtype is None else _dtype.to_numpy(dtype))
    )


def ones_like(input: Any, dtype: Any = None) -> Tensor:
    """Ones shaped like `input`."""
    d = as_tensor(input)._data
    return Tensor._wrap(
        np.ones_like(d, dtype=None if dtype is None else _dtype.to_numpy(dtype))
    )
