"""Functional ops built from the differentiable ones: what MindSpore's operator classes need beyond them.

Each is differentiable through the ops it is made of (a gather through indexing,
`rsqrt` through `sqrt` and `div`), so none needs a backward of its own. The few
that MindSpore does not differentiate either (`one_hot`, `sign`, `shape`) return
constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute import _dtype
from ..compute._context import rng
from ..compute._tensor import Parameter, Tensor
from . import _functional as f
from ._nn import batch_norm, dense, softmax, softmax_cross_entropy

__all__ = [
    "arg_with_value",
    "assign",
    "assign_add",
    "assign_sub",
    "batch_norm_with_statistics",
    "bias_add",
    "dense_op",
    "depend",
    "dropout_with_mask",
    "dtype",
    "fill",
    "gather",
    "matmul_transposed",
    "one_hot",
    "print_",
    "rank",
    "reciprocal",
    "rsqrt",
    "scalar_to_tensor",
    "shape",
    "sign",
    "softmax_cross_entropy_with_backprop",
    "sparse_softmax_cross_entropy",
    "squared_difference",
    "stop_gradient",
    "truncated_mod",
    "tuple_to_array",
    "typed_argmax",
]


def _swap_last(t: Tensor) -> Tensor:
    perm = list(range(t.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return f.transpose(t, perm)


def matmul_transposed(
    x: Any, y: Any, *, transpose_a: bool = False, transpose_b: bool = False
) -> Tensor:
    """Matrix product x @ y with either operand's last two axes swapped first (MindSpore's `MatMul`/`BatchMatMul`)."""
    a, b = f.as_tensor(x), f.as_tensor(y)
    return f.matmul(
        _swap_last(a) if transpose_a else a, _swap_last(b) if transpose_b else b
    )


def typed_argmax(
    x: Any, *, axis: int = -1, output_type: Any = _dtype.int32, largest: bool = True
) -> Tensor:
    """Indices of the maxima (or minima) along `axis`, as `output_type`."""
    index = f.argmax(x, axis) if largest else f.argmin(x, axis)
    return f.cast(index, output_type)


def arg_with_value(
    x: Any, *, axis: int = 0, keep_dims: bool = False, largest: bool = True
) -> tuple[Tensor, Tensor]:
    """(indices, values) of the maxima or minima along `axis`; the values are differentiable."""
    pick = f.argmax if largest else f.argmin
    extreme = f.amax if largest else f.amin
    # MindSpore 2.x returns these indices as Int64 (Argmax's default is Int32).
    return f.cast(pick(x, axis, keep_dims), _dtype.int64), extreme(x, axis, keep_dims)


def stop_gradient(value: Any) -> Any:
    """Return `value` cut off from the tape (each element of a tuple or list)."""
    if isinstance(value, Tensor):
        return Tensor._wrap(value._data)
    if isinstance(value, tuple | list):
        return type(value)(stop_gradient(v) for v in value)
    return value


def depend(value: Any, expr: Any) -> Any:
    """Return `value`; `expr` has run already (cadence runs eagerly, in program order).

    MindSpore's graph compiler needs `depend` to keep a side effect (an optimizer
    update) ordered before `value` is used; eager execution gives that order.
    """
    return value


def fill(type: Any, shape: Any, value: Any) -> Tensor:
    """A tensor of `shape` filled with `value`, of dtype `type`."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    return Tensor._wrap(np.full(dims, value, dtype=_dtype.to_numpy(type)))


def shape(input_x: Any) -> tuple[int, ...]:
    """The shape, as a tuple of ints."""
    return f.as_tensor(input_x).shape


def dtype(input_x: Any) -> _dtype.Type:
    """The element type (`cadence.float32`, ...)."""
    return f.as_tensor(input_x).dtype


def tuple_to_array(input_x: Any) -> Tensor:
    """A 1-D tensor of a tuple of numbers (Python floats become float32)."""
    return Tensor(tuple(input_x))


def rank(input_x: Any) -> int:
    """The number of dimensions."""
    return f.as_tensor(input_x).ndim


def sign(input: Any) -> Tensor:
    """-1, 0 or 1 per element (no gradient, as in MindSpore)."""
    return Tensor._wrap(np.sign(f.as_tensor(input)._data))


def rsqrt(input: Any) -> Tensor:
    """1 / sqrt(input)."""
    return f.div(1.0, f.sqrt(input))


def reciprocal(input: Any) -> Tensor:
    """1 / input."""
    return f.div(1.0, input)


def truncated_mod(x: Any, y: Any) -> Tensor:
    """Remainder with the dividend's sign (C's fmod), as MindSpore's `Mod`; no gradient."""
    a, b = f.as_tensor(x), f.as_tensor(y)
    return Tensor._wrap(np.fmod(a._data, b._data))


def squared_difference(x: Any, y: Any) -> Tensor:
    """(x - y) ** 2."""
    return f.square(f.sub(x, y))


def gather(
    input_params: Any, input_indices: Any, axis: int = 0, *, batch_dims: int = 0
) -> Tensor:
    """Take the slices at `input_indices` along `axis`; gradients add up at repeated indices."""
    if batch_dims != 0:
        raise ValueError(
            f"For 'Gather', the argument 'batch_dims' must be 0 on cadence, but got {batch_dims!r}."
        )
    params = f.as_tensor(input_params)
    index = (slice(None),) * (axis % params.ndim) + (f.as_tensor(input_indices),)
    return f.getitem(params, index)


def one_hot(
    indices: Any, depth: int, on_value: Any = 1.0, off_value: Any = 0.0, axis: int = -1
) -> Tensor:
    """One-hot encode integer `indices` along a new `axis` of size `depth` (no gradient)."""
    idx = f.as_tensor(indices)._data
    on, off = f.as_tensor(on_value)._data, f.as_tensor(off_value)._data
    hot = np.arange(depth) == idx[..., None]
    out = np.where(hot, on, off).astype(on.dtype)
    return Tensor._wrap(np.moveaxis(out, -1, axis))


def bias_add(input_x: Any, bias: Any, *, data_format: str = "NCHW") -> Tensor:
    """Add a per-channel `bias`: channels are axis 1 ('NCHW', 'NCDHW') or the last axis ('NHWC')."""
    x, b = f.as_tensor(input_x), f.as_tensor(bias)
    if data_format == "NHWC" or x.ndim < 3:
        return f.add(x, b)
    return f.add(x, f.reshape(b, (b.shape[0],) + (1,) * (x.ndim - 2)))


def dropout_with_mask(x: Any, *, keep_prob: float = 0.5) -> tuple[Tensor, Tensor]:
    """Zero elements with probability 1 - `keep_prob`, scale the rest; return (output, mask).

    Draws from the `"dropout"` stream of `cadence.set_seed`.
    """
    t = f.as_tensor(x)
    keep = rng("dropout").random(t.shape, dtype=np.float32) < keep_prob
    scale = np.asarray(0.0 if keep_prob == 0 else 1.0 / keep_prob, dtype=t._data.dtype)
    mask = keep.astype(t._data.dtype)  # MindSpore's mask: 0/1 in the input's dtype
    return f.mul(t, Tensor._wrap(mask * scale)), Tensor._wrap(mask)


def softmax_cross_entropy_with_backprop(
    logits: Any, labels: Any
) -> tuple[Tensor, Tensor]:
    """Per-sample softmax cross-entropy of (N, C) logits and dense labels, and its gradient in the logits."""
    loss = softmax_cross_entropy(logits, labels, sparse=False)
    backprop = stop_gradient(f.sub(softmax(logits, -1), labels))
    return loss, backprop


def sparse_softmax_cross_entropy(
    logits: Any, labels: Any, *, is_grad: bool = False
) -> Tensor:
    """Mean softmax cross-entropy over sparse labels; with `is_grad`, its gradient in the logits instead."""
    lg = f.as_tensor(logits)
    if is_grad:
        hot = one_hot(labels, lg.shape[-1], 1.0, 0.0).astype(lg.dtype)
        grad = f.div(f.sub(softmax(lg, -1), hot), lg.shape[0])
        return Tensor._wrap(grad._data)  # a constant, as MindSpore's gradient output
    return f.mean(softmax_cross_entropy(lg, labels, sparse=True))


def _assign_to(variable: Any, value: Tensor) -> Tensor:
    if not isinstance(variable, Parameter):
        raise TypeError(
            f"For 'Assign', the argument 'variable' must be a Parameter, "
            f"but got {variable!r} of type {type(variable).__name__!r}."
        )
    variable.set_data(value)  # copies into the existing buffer, keeping the dtype
    return variable


def assign(variable: Any, value: Any) -> Tensor:
    """Set `variable`'s data to `value` and return `variable`."""
    return _assign_to(variable, f.as_tensor(value))


def assign_add(variable: Any, value: Any) -> Tensor:
    """Add `value` to `variable` in place and return `variable`."""
    return _assign_to(variable, f.add(stop_gradient(variable), stop_gradient(value)))


def assign_sub(variable: Any, value: Any) -> Tensor:
    """Subtract `value` from `variable` in place and return `variable`."""
    return _assign_to(variable, f.sub(stop_gradient(variable), stop_gradient(value)))


def dense_op(x: Any, w: Any, b: Any = None) -> Tensor:
    """X @ w.T + b, as MindSpore's `ops.Dense` primitive computes it."""
    return dense(x, f.as_tensor(w), None if b is None else f.as_tensor(b))


def _per_channel(t: Tensor, ndim: int) -> Tensor:
    return f.reshape(t, (1, t.shape[0]) + (1,) * (ndim - 2))


def batch_norm_with_statistics(
    x: Any, scale: Any, bias: Any, mean: Any, variance: Any, *,
    is_training: bool, epsilon: float, momentum: float, data_format: str,
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:  # fmt: skip
    """Normalize (N, C, ...) input per channel, as MindSpore's `ops.BatchNorm` primitive.

    Training normalizes with the batch's statistics and moves the `mean` and
    `variance` Parameters toward them (`new = (1 - momentum) * old + momentum * batch`,
    the unbiased variance); inference uses `mean` and `variance` as given. Returns
    (y, 0, 0, batch mean, batch variance) in training and (y, 0, 0, 0, 0) in inference.
    """
    if data_format != "NCHW":
        raise ValueError(
            f"For 'BatchNorm', only data_format='NCHW' is supported, but got {data_format!r}."
        )
    t, g, b = f.as_tensor(x), f.as_tensor(scale), f.as_tensor(bias)
    m, v = f.as_tensor(mean), f.as_tensor(variance)
    zeros = Tensor._wrap(np.zeros(m.shape, m._data.dtype))
    if not is_training:
        norm = f.div(
            f.sub(t, _per_channel(m, t.ndim)),
            f.sqrt(f.add(_per_channel(v, t.ndim), epsilon)),
        )
        return (
            f.add(f.mul(norm, _per_channel(g, t.ndim)), _per_channel(b, t.ndim)),
            zeros,
            zeros,
            zeros,
            zeros,
        )
    y, batch_mean, batch_var = batch_norm(t, g, b, epsilon)
    count = t.size // t.shape[1]
    unbiased = batch_var * (count / max(count - 1, 1))
    for running, batch in ((mean, batch_mean), (variance, unbiased)):
        if isinstance(running, Parameter):
            running.set_data(running._data * (1 - momentum) + batch * momentum)
    return y, zeros, zeros, Tensor._wrap(batch_mean), Tensor._wrap(batch_var)


def print_(*values: Any) -> None:
    """Print each value on its own line, tensors in their repr, as MindSpore's `Print` operator."""
    for value in values:
        print(repr(value) if isinstance(value, Tensor) else value)  # noqa: T201 (printing is its job)


def scalar_to_tensor(input_x: Any, dtype: Any = _dtype.float32) -> Tensor:
    """A 0-d tensor of a Python number (float32 by default, as MindSpore)."""
    return Tensor(input_x, dtype)
