"""CUDA kernels for activations, dense layers, softmax, losses and optimizer updates.

Every public kernel has the name and signature of its `reference` twin; array
arguments are `DeviceArray`s (numpy arrays are copied to the device first,
which the transfer counters record) and array results are `DeviceArray`s.
The per-element math comes from `_scalar`, built here with
`cuda.jit(device=True)`. Every kernel is a grid-stride loop over its
elements (or rows, columns), so any launch size is correct; the simulator
gets tiny launches. The wrappers shared with the CPU table come from
`cadence.kernels._wrappers`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _rowwise, _scalar
from .._checks import check_float_array
from .._wrappers import (
    OptimizerPrimitives,
    activation_kernels,
    dense_sgd_kernel,
    optimizer_updates,
    softmax_kernels,
)
from ._array import DeviceArray, device_empty, to_device
from ._device import cuda, launch
from ._matmul import device_arg, flat, matmul, raw

Array = Any

# --- per-element math, built for this target --------------------------------------------
_act: Any = cuda.jit(device=True)(_scalar.act)
_act_grad: Any = cuda.jit(device=True)(_scalar.act_grad)
_sgd_step: Any = cuda.jit(device=True)(_scalar.sgd_step)
_momentum_step: Any = cuda.jit(device=True)(_scalar.momentum_step)
_adam_step: Any = cuda.jit(device=True)(_scalar.adam_step)
_softmax_row: Any = cuda.jit(device=True)(_rowwise.softmax_row)
_softmax_grad_row: Any = cuda.jit(device=True)(_rowwise.softmax_grad_row)
_sce_sparse_row: Any = cuda.jit(device=True)(_rowwise.sce_sparse_row)
_sce_dense_row: Any = cuda.jit(device=True)(_rowwise.sce_dense_row)


# --- elementwise activations ----------------------------------------------------------------
@cuda.jit
def _act_fwd(x: Any, out: Any, code: int) -> None:
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = _act(x[i], code)


@cuda.jit
def _act_bwd(dy: Any, y: Any, out: Any, code: int) -> None:
    for i in range(cuda.grid(1), dy.size, cuda.gridsize(1)):
        out[i] = dy[i] * _act_grad(y[i], code)


def _fwd(x: Any, code: int) -> DeviceArray:
    x = device_arg("x", x)
    out = device_empty(x.shape, x.dtype)
    _act_fwd[launch(x.size)](flat(x), flat(out), code)
    return out


def _bwd(dy: Any, y: Any, code: int) -> DeviceArray:
    dy, y = device_arg("dy", dy), device_arg("y", y)
    out = device_empty(dy.shape, dy.dtype)
    _act_bwd[launch(dy.size)](flat(dy), flat(y), flat(out), code)
    return out


_activations = activation_kernels(_fwd, _bwd)
relu_forward, relu_backward = _activations.relu
sigmoid_forward, sigmoid_backward = _activations.sigmoid
tanh_forward, tanh_backward = _activations.tanh


# --- dense layers ----------------------------------------------------------------------------
@cuda.jit
def _bias_act(z: Any, b: Any, has_b: bool, m: int, code: int) -> None:
    for i in range(cuda.grid(1), z.size, cuda.gridsize(1)):
        v = z[i] + b[i % m] if has_b else z[i]
        z[i] = _act(v, code)


@cuda.jit
def _col_sums(a: Any, out: Any) -> None:
    n, m = a.shape
    for j in range(cuda.grid(1), m, cuda.gridsize(1)):
        s = 0.0
        for i in range(n):
            s += a[i, j]
        out[j] = s


def _column_sums(a: DeviceArray) -> DeviceArray:
    out = device_empty((a.shape[1],), a.dtype)
    _col_sums[launch(a.shape[1])](raw(a), raw(out))
    return out


def bias_act_forward(z: Array, b: Array | None, act: int) -> Array:
    """act(z + b), computed in place in z."""
    z = device_arg("z", z, 2)
    if b is not None or act != 0:
        bd = z if b is None else device_arg("b", b, 1)
        _bias_act[launch(z.size)](flat(z), flat(bd), b is not None, z.shape[1], act)
    return z


def bias_act_backward(dy: Array, y: Array, act: int) -> tuple[Array, Array]:
    """Return (dz, db): the gradient before the activation and its column sums."""
    dy, y = device_arg("dy", dy, 2), device_arg("y", y, 2)
    dz = device_empty(dy.shape, dy.dtype)
    _act_bwd[launch(dy.size)](flat(dy), flat(y), flat(dz), act)
    return dz, _column_sums(dz)


def dense_forward(x: Array, w: Array, b: Array | None, act: int) -> Array:
    """act(x @ w.T + b): the tiled matmul, then the fused bias/activation epilogue."""
    return bias_act_forward(
        matmul(device_arg("x", x, 2), device_arg("w", w, 2), tb=True), b, act
    )


def dense_backward(
    dy: Array, x: Array, w: Array, y: Array, act: int, need_dx: bool
) -> tuple[Array | None, Array, Array]:
    """Return (dx or None, dw, db)."""
    if act == 0:
        dz = device_arg("dy", dy, 2)
        db = _column_sums(dz)
    else:
        dz, db = bias_act_backward(dy, y, act)
    w, x = device_arg("w", w, 2), device_arg("x", x, 2)
    return (matmul(dz, w) if need_dx else None), matmul(dz, x, ta=True), db


def _plain_sgd(param: Any, grad: Any, lr: float, weight_decay: float) -> None:
    # Momentum 0: the loop reads neither `accum` nor `stat`, so the parameter stands in.
    sgd_update(param, grad, param, param, lr, 0.0, 0.0, weight_decay, False)


def _bias_sgd(
    dy: Any, y: Any, act: int, b: Any, lr: float, weight_decay: float
) -> DeviceArray:
    # With act 0 the bias gradient is only summed when there is a bias to step.
    dz = device_arg("dy", dy, 2) if act == 0 else bias_act_backward(dy, y, act)[0]
    if b is not None:
        _plain_sgd(b, _column_sums(dz), lr, weight_decay)
    return dz


# No GEMM with beta != 0 on the device here: the step is the one-pass SGD loop after
# the product (still without a host round trip of the gradients).
dense_backward_sgd = dense_sgd_kernel(
    _bias_sgd,
    lambda dz, w: matmul(dz, device_arg("w", w, 2)),
    lambda w, x, dz, lr, wd: _plain_sgd(
        w, matmul(dz, device_arg("x", x, 2), ta=True), lr, wd
    ),
)


# --- softmax and losses ----------------------------------------------------------------------
@cuda.jit
def _softmax_rows(x: Any, out: Any, log: bool) -> None:
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        _softmax_row(x, out, log, i)


@cuda.jit
def _softmax_grad_rows(dy: Any, y: Any, out: Any, log: bool) -> None:
    for i in range(cuda.grid(1), dy.shape[0], cuda.gridsize(1)):
        _softmax_grad_row(dy, y, out, log, i)


def _rows(x: Any, log: bool) -> DeviceArray:
    x = device_arg("x", x, 2)
    out = device_empty(x.shape, x.dtype)
    _softmax_rows[launch(x.shape[0])](raw(x), raw(out), log)
    return out


def _rows_grad(dy: Any, y: Any, log: bool) -> DeviceArray:
    dy, y = device_arg("dy", dy, 2), device_arg("y", y, 2)
    out = device_empty(dy.shape, dy.dtype)
    _softmax_grad_rows[launch(dy.shape[0])](raw(dy), raw(y), raw(out), log)
    return out


softmax_forward, softmax_backward, log_softmax_forward, log_softmax_backward = (
    softmax_kernels(_rows, _rows_grad)
)


@cuda.jit
def _sce_sparse(x: Any, labels: Any, loss: Any, grad: Any) -> None:
    n, c = x.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        if (
            labels[i] < 0 or labels[i] >= c
        ):  # cannot raise on the device: the row becomes NaN
            loss[i] = math.nan
            for j in range(c):
                grad[i, j] = math.nan
        else:
            _sce_sparse_row(x, labels, loss, grad, i)


@cuda.jit
def _sce_dense(x: Any, labels: Any, loss: Any, grad: Any) -> None:
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        _sce_dense_row(x, labels, loss, grad, i)


def softmax_cross_entropy_sparse(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss and its gradient wrt logits, in one pass.

    Host labels are range-checked (IndexError, as on the CPU); a label already on
    the device that is out of range turns its row's loss and gradient into NaN.
    """
    logits = device_arg("logits", logits, 2)
    n, c = logits.shape
    if labels.shape != (n,) or labels.dtype.kind not in "iu":
        raise ValueError(
            f"Kernel argument `labels` must be integers of shape {(n,)}, but got {labels.dtype} {labels.shape}."
        )
    if isinstance(labels, np.ndarray):
        if labels.size and (labels.min() < 0 or labels.max() >= c):
            raise IndexError("a label is outside [0, num_classes)")
        labels = to_device(labels)
    loss = device_empty((n,), logits.dtype)
    grad = device_empty(logits.shape, logits.dtype)
    _sce_sparse[launch(n)](raw(logits), raw(labels), raw(loss), raw(grad))
    return loss, grad


def softmax_cross_entropy_dense(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss against target distributions and its gradient, in one pass."""
    logits, labels = device_arg("logits", logits, 2), device_arg("labels", labels, 2)
    loss = device_empty((logits.shape[0],), logits.dtype)
    grad = device_empty(logits.shape, logits.dtype)
    _sce_dense[launch(logits.shape[0])](raw(logits), raw(labels), raw(loss), raw(grad))
    return loss, grad


# --- optimizer updates: one pass per parameter, in place --------------------------------------
# The per-element rules are `_scalar`'s, shared with the CPU table; only the loops are here.
@cuda.jit
def _sgd(
    p: Any,
    g: Any,
    accum: Any,
    stat: Any,
    lr: Any,
    momentum: Any,
    dampening: Any,
    wd: Any,
    nesterov: bool,
) -> None:
    for i in range(cuda.grid(1), p.size, cuda.gridsize(1)):
        pi, accum[i], stat[i] = _sgd_step(
            p[i], g[i], accum[i], stat[i], lr, momentum, dampening, wd, nesterov
        )
        p[i] = pi  # last: at momentum 0 a caller may pass p as accum and stat


@cuda.jit
def _momentum(
    p: Any, g: Any, moment: Any, lr: Any, momentum: Any, wd: Any, nesterov: bool
) -> None:
    for i in range(cuda.grid(1), p.size, cuda.gridsize(1)):
        p[i], moment[i] = _momentum_step(
            p[i], g[i], moment[i], lr, momentum, wd, nesterov
        )


@cuda.jit
def _adam(
    p: Any,
    g: Any,
    m: Any,
    v: Any,
    alpha: Any,
    beta1: Any,
    beta2: Any,
    eps: Any,
    wd: Any,
    nesterov: bool,
) -> None:
    for i in range(cuda.grid(1), p.size, cuda.gridsize(1)):
        p[i], m[i], v[i] = _adam_step(
            p[i], g[i], m[i], v[i], alpha, beta1, beta2, eps, wd, nesterov
        )


def _state(name: str, a: Any) -> Any:
    if not isinstance(a, DeviceArray):
        raise TypeError(
            f"Kernel argument `{name}` is updated in place and must be a DeviceArray, but got {type(a).__name__}."
        )
    check_float_array(name, a)
    return flat(a)


def _grad(param: DeviceArray, grad: Any) -> Any:
    g = device_arg("grad", grad)
    if g.shape != param.shape and g.size != param.size:
        raise ValueError(
            f"Kernel argument `grad` must have shape {param.shape}, but got {g.shape}."
        )
    return flat(g)


def _run(loop: Any, param: DeviceArray, *args: Any) -> None:
    loop[launch(param.size)](*args)


# Hyperparameters are converted to the parameter's dtype: float32 arithmetic on the device.
sgd_update, momentum_update, adam_update = optimizer_updates(
    OptimizerPrimitives(
        sgd=_sgd,
        momentum=_momentum,
        adam=_adam,
        run=_run,
        state=_state,
        grad=_grad,
        scalar=lambda param: param.dtype.type,
    )
)
