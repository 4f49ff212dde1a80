"""CUDA kernels: `numba.cuda` versions of every kernel in `reference`, on `DeviceArray`s.

Every public kernel has the name and signature of its `reference` twin; array
arguments are `DeviceArray`s (numpy arrays are copied to the device first,
which the transfer counters record) and array results are `DeviceArray`s.
The per-element math comes from `_scalar`, built here with
`cuda.jit(device=True)`. Every kernel is a grid-stride loop over its
elements (or rows, columns, channels), so any launch size is correct; the
simulator gets tiny launches.

Matmuls are a shared-memory tiled kernel, not cuBLAS (numba-cuda ships no
BLAS); convolution is im2col + that matmul, with atomics for the scatter in
the backward passes. Importing this module imports `numba.cuda`; only the GPU
target and the tests do.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import numba
import numpy as np

from . import _scalar
from ._checks import check_float_array
from ._cuda_array import (
    SIMULATOR,
    DeviceArray,
    device_empty,
    launch,
    reset_statistics,
    statistics,
    to_device,
    to_host,
)
from ._cuda_generic import fill

cuda: Any = importlib.import_module("numba.cuda")  # untyped

__all__ = [
    "DeviceArray",
    "adam_update",
    "avg_pool2d_backward",
    "avg_pool2d_forward",
    "batch_norm_backward",
    "batch_norm_forward",
    "bias_act_backward",
    "bias_act_forward",
    "conv2d_backward",
    "conv2d_forward",
    "dense_backward",
    "dense_forward",
    "log_softmax_backward",
    "log_softmax_forward",
    "matmul",
    "max_pool2d_backward",
    "max_pool2d_forward",
    "momentum_update",
    "relu_backward",
    "relu_forward",
    "reset_statistics",
    "sgd_update",
    "sigmoid_backward",
    "sigmoid_forward",
    "softmax_backward",
    "softmax_cross_entropy_dense",
    "softmax_cross_entropy_sparse",
    "softmax_forward",
    "statistics",
    "tanh_backward",
    "tanh_forward",
    "to_device",
    "to_host",
]

Array = Any

# --- per-element math, built for this target --------------------------------------------
_act: Any = cuda.jit(device=True)(_scalar.act)
_act_grad: Any = cuda.jit(device=True)(_scalar.act_grad)
_adam_param: Any = cuda.jit(device=True)(_scalar.adam_param)


def _dev(name: str, a: Any, ndim: int | None = None) -> DeviceArray:
    """Check a kernel argument and return it as a `DeviceArray` (copying numpy input over)."""
    check_float_array(name, a, ndim)
    return a if isinstance(a, DeviceArray) else to_device(a)


def _flat(a: DeviceArray) -> Any:
    return a.device_array.reshape(a.size)


def _raw(a: DeviceArray) -> Any:
    return a.device_array


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
    x = _dev("x", x)
    out = device_empty(x.shape, x.dtype)
    _act_fwd[launch(x.size)](_flat(x), _flat(out), code)
    return out


def _bwd(dy: Any, y: Any, code: int) -> DeviceArray:
    dy, y = _dev("dy", dy), _dev("y", y)
    out = device_empty(dy.shape, dy.dtype)
    _act_bwd[launch(dy.size)](_flat(dy), _flat(y), _flat(out), code)
    return out


def relu_forward(x: Array) -> Array:
    """max(x, 0)."""
    return _fwd(x, 1)


def relu_backward(dy: Array, y: Array) -> Array:
    """Dy where the output was positive, else 0."""
    return _bwd(dy, y, 1)


def sigmoid_forward(x: Array) -> Array:
    """1 / (1 + exp(-x))."""
    return _fwd(x, 2)


def sigmoid_backward(dy: Array, y: Array) -> Array:
    """Dy * y * (1 - y)."""
    return _bwd(dy, y, 2)


def tanh_forward(x: Array) -> Array:
    """tanh(x)."""
    return _fwd(x, 3)


def tanh_backward(dy: Array, y: Array) -> Array:
    """Dy * (1 - y**2)."""
    return _bwd(dy, y, 3)


# --- matmul: shared-memory tiles, grid-stride over output tiles ------------------------------
TILE = 4 if SIMULATOR else 16


def _make_gemm(dt: Any) -> Any:
    @cuda.jit
    def gemm(a: Any, b: Any, c: Any, ta: bool, tb: bool) -> None:
        # c = op(a) @ op(b); op transposes when ta / tb. Loop bounds depend on the
        # block only, so every thread of a block reaches the same syncthreads.
        sa = cuda.shared.array((TILE, TILE), dt)
        sb = cuda.shared.array((TILE, TILE), dt)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        m, n = c.shape
        k = a.shape[0] if ta else a.shape[1]
        for tr in range(cuda.blockIdx.y, (m + TILE - 1) // TILE, cuda.gridDim.y):
            for tc in range(cuda.blockIdx.x, (n + TILE - 1) // TILE, cuda.gridDim.x):
                row = tr * TILE + ty
                col = tc * TILE + tx
                acc = dt(0)
                for k0 in range(0, k, TILE):
                    ka = k0 + tx
                    kb = k0 + ty
                    if row < m and ka < k:
                        sa[ty, tx] = a[ka, row] if ta else a[row, ka]
                    else:
                        sa[ty, tx] = 0
                    if col < n and kb < k:
                        sb[ty, tx] = b[col, kb] if tb else b[kb, col]
                    else:
                        sb[ty, tx] = 0
                    cuda.syncthreads()
                    for kk in range(TILE):
                        acc += sa[ty, kk] * sb[kk, tx]
                    cuda.syncthreads()
                if row < m and col < n:
                    c[row, col] = acc

    return gemm


_GEMM = {
    np.dtype(np.float32): _make_gemm(numba.float32),
    np.dtype(np.float64): _make_gemm(numba.float64),
}


@cuda.jit
def _gemm_simple(a: Any, b: Any, c: Any, ta: bool, tb: bool) -> None:
    # One thread per output element, no shared memory and no syncthreads: the
    # simulator's default, because it polls threads blocked in syncthreads.
    m, n = c.shape
    k = a.shape[0] if ta else a.shape[1]
    for e in range(cuda.grid(1), m * n, cuda.gridsize(1)):
        row = e // n
        col = e - row * n
        acc = 0.0
        for kk in range(k):
            x = a[kk, row] if ta else a[row, kk]
            y = b[col, kk] if tb else b[kk, col]
            acc += x * y
        c[row, col] = acc


# Which matmul kernel `matmul` uses by default: the tiled one on a GPU, the simple one
# under the simulator (both are tested against the reference under the simulator).
TILED_BY_DEFAULT = not SIMULATOR


def matmul(
    a: Array, b: Array, ta: bool = False, tb: bool = False, tiled: bool | None = None
) -> DeviceArray:
    """Return op(a) @ op(b) for 2-D arrays, op transposing when `ta` / `tb` is set.

    `tiled` picks the shared-memory kernel (default on a GPU) or the simple one.
    """
    a, b = _dev("a", a, 2), _dev("b", b, 2)
    m = a.shape[1] if ta else a.shape[0]
    n = b.shape[0] if tb else b.shape[1]
    k = a.shape[0] if ta else a.shape[1]
    if (b.shape[1] if tb else b.shape[0]) != k:
        raise ValueError(
            f"matmul: inner dimensions differ: {a.shape}{'.T' if ta else ''} @ {b.shape}{'.T' if tb else ''}."
        )
    c = device_empty((m, n), np.result_type(a.dtype, b.dtype))
    if c.size == 0:
        return c
    if k == 0:
        return fill(c, 0)
    if a.dtype != c.dtype:
        a = a.astype(c.dtype)
    if b.dtype != c.dtype:
        b = b.astype(c.dtype)
    if not (TILED_BY_DEFAULT if tiled is None else tiled):
        _gemm_simple[launch(c.size)](_raw(a), _raw(b), _raw(c), ta, tb)
        return c
    grid = (
        min(-(-n // TILE), 2 if SIMULATOR else 1024),
        min(-(-m // TILE), 2 if SIMULATOR else 1024),
    )
    _GEMM[c.dtype][grid, (TILE, TILE)](_raw(a), _raw(b), _raw(c), ta, tb)
    return c


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
    _col_sums[launch(a.shape[1])](_raw(a), _raw(out))
    return out


def bias_act_forward(z: Array, b: Array | None, act: int) -> Array:
    """act(z + b), computed in place in z."""
    z = _dev("z", z, 2)
    if b is not None or act != 0:
        bd = z if b is None else _dev("b", b, 1)
        _bias_act[launch(z.size)](_flat(z), _flat(bd), b is not None, z.shape[1], act)
    return z


def bias_act_backward(dy: Array, y: Array, act: int) -> tuple[Array, Array]:
    """Return (dz, db): the gradient before the activation and its column sums."""
    dy, y = _dev("dy", dy, 2), _dev("y", y, 2)
    dz = device_empty(dy.shape, dy.dtype)
    _act_bwd[launch(dy.size)](_flat(dy), _flat(y), _flat(dz), act)
    return dz, _column_sums(dz)


def dense_forward(x: Array, w: Array, b: Array | None, act: int) -> Array:
    """act(x @ w.T + b): the tiled matmul, then the fused bias/activation epilogue."""
    return bias_act_forward(matmul(_dev("x", x, 2), _dev("w", w, 2), tb=True), b, act)


def dense_backward(
    dy: Array, x: Array, w: Array, y: Array, act: int, need_dx: bool
) -> tuple[Array | None, Array, Array]:
    """Return (dx or None, dw, db)."""
    if act == 0:
        dz = _dev("dy", dy, 2)
        db = _column_sums(dz)
    else:
        dz, db = bias_act_backward(dy, y, act)
    w, x = _dev("w", w, 2), _dev("x", x, 2)
    return (matmul(dz, w) if need_dx else None), matmul(dz, x, ta=True), db


# --- softmax and losses ----------------------------------------------------------------------
@cuda.jit
def _softmax_rows(x: Any, out: Any, log: bool) -> None:
    n, c = x.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        mx = x[i, 0]
        for j in range(1, c):
            mx = max(mx, x[i, j])
        s = 0.0
        for j in range(c):
            s += math.exp(x[i, j] - mx)
        if log:
            lse = math.log(s)
            for j in range(c):
                out[i, j] = x[i, j] - mx - lse
        else:
            inv = 1.0 / s
            for j in range(c):
                out[i, j] = math.exp(x[i, j] - mx) * inv


@cuda.jit
def _softmax_grad_rows(dy: Any, y: Any, out: Any, log: bool) -> None:
    n, c = dy.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        s = 0.0
        for j in range(c):
            s += dy[i, j] if log else dy[i, j] * y[i, j]
        for j in range(c):
            if log:
                out[i, j] = dy[i, j] - math.exp(y[i, j]) * s
            else:
                out[i, j] = y[i, j] * (dy[i, j] - s)


def _rows(x: Any, log: bool) -> DeviceArray:
    x = _dev("x", x, 2)
    out = device_empty(x.shape, x.dtype)
    _softmax_rows[launch(x.shape[0])](_raw(x), _raw(out), log)
    return out


def _rows_grad(dy: Any, y: Any, log: bool) -> DeviceArray:
    dy, y = _dev("dy", dy, 2), _dev("y", y, 2)
    out = device_empty(dy.shape, dy.dtype)
    _softmax_grad_rows[launch(dy.shape[0])](_raw(dy), _raw(y), _raw(out), log)
    return out


def softmax_forward(x: Array) -> Array:
    """Softmax over the last axis of a 2-D array."""
    return _rows(x, False)


def softmax_backward(dy: Array, y: Array) -> Array:
    """Gradient of softmax, from its output."""
    return _rows_grad(dy, y, False)


def log_softmax_forward(x: Array) -> Array:
    """log(softmax(x)) over the last axis of a 2-D array."""
    return _rows(x, True)


def log_softmax_backward(dy: Array, y: Array) -> Array:
    """Gradient of log-softmax, from its output."""
    return _rows_grad(dy, y, True)


@cuda.jit
def _sce_sparse(x: Any, labels: Any, loss: Any, grad: Any) -> None:
    n, c = x.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        k = labels[i]
        if k < 0 or k >= c:  # cannot raise on the device: the row becomes NaN
            loss[i] = math.nan
            for j in range(c):
                grad[i, j] = math.nan
            continue
        mx = x[i, 0]
        for j in range(1, c):
            mx = max(mx, x[i, j])
        s = 0.0
        for j in range(c):
            e = math.exp(x[i, j] - mx)
            grad[i, j] = e
            s += e
        inv = 1.0 / s
        for j in range(c):
            grad[i, j] *= inv
        grad[i, k] -= 1.0
        loss[i] = mx + math.log(s) - x[i, k]


@cuda.jit
def _sce_dense(x: Any, labels: Any, loss: Any, grad: Any) -> None:
    n, c = x.shape
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        mx = x[i, 0]
        for j in range(1, c):
            mx = max(mx, x[i, j])
        s = 0.0
        for j in range(c):
            s += math.exp(x[i, j] - mx)
        lse = mx + math.log(s)
        total = 0.0
        acc = 0.0
        for j in range(c):
            total += labels[i, j]
            acc += labels[i, j] * (x[i, j] - lse)
        loss[i] = -acc
        for j in range(c):
            grad[i, j] = math.exp(x[i, j] - lse) * total - labels[i, j]


def softmax_cross_entropy_sparse(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss and its gradient wrt logits, in one pass.

    Host labels are range-checked (IndexError, as on the CPU); a label already on
    the device that is out of range turns its row's loss and gradient into NaN.
    """
    logits = _dev("logits", logits, 2)
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
    _sce_sparse[launch(n)](_raw(logits), _raw(labels), _raw(loss), _raw(grad))
    return loss, grad


def softmax_cross_entropy_dense(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss against target distributions and its gradient, in one pass."""
    logits, labels = _dev("logits", logits, 2), _dev("labels", labels, 2)
    loss = device_empty((logits.shape[0],), logits.dtype)
    grad = device_empty(logits.shape, logits.dtype)
    _sce_dense[launch(logits.shape[0])](
        _raw(logits), _raw(labels), _raw(loss), _raw(grad)
    )
    return loss, grad


# --- optimizer updates: one pass per parameter, in place --------------------------------------
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
        gi = g[i] + wd * p[i] if wd != 0 else g[i]
        if momentum > 0:
            a = gi if stat[i] > 0 else momentum * accum[i] + (1 - dampening) * gi
            accum[i] = a
            stat[i] = 0
            gi = gi + momentum * a if nesterov else a
        p[i] -= lr * gi


@cuda.jit
def _momentum(
    p: Any, g: Any, moment: Any, lr: Any, momentum: Any, wd: Any, nesterov: bool
) -> None:
    for i in range(cuda.grid(1), p.size, cuda.gridsize(1)):
        gi = g[i] + wd * p[i] if wd != 0 else g[i]
        mo = momentum * moment[i] + gi
        moment[i] = mo
        p[i] -= lr * gi + lr * momentum * mo if nesterov else lr * mo


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
        gi = g[i] + wd * p[i] if wd != 0 else g[i]
        mi = beta1 * m[i] + (1 - beta1) * gi
        vi = beta2 * v[i] + (1 - beta2) * gi * gi
        m[i] = mi
        v[i] = vi
        p[i] -= _adam_param(mi, vi, gi, alpha, beta1, eps, nesterov)


def _state(name: str, a: Any) -> Any:
    if not isinstance(a, DeviceArray):
        raise TypeError(
            f"Kernel argument `{name}` is updated in place and must be a DeviceArray, but got {type(a).__name__}."
        )
    check_float_array(name, a)
    return _flat(a)


def _grad(param: DeviceArray, grad: Any) -> Any:
    g = _dev("grad", grad)
    if g.shape != param.shape and g.size != param.size:
        raise ValueError(
            f"Kernel argument `grad` must have shape {param.shape}, but got {g.shape}."
        )
    return _flat(g)


def sgd_update(
    param: Array,
    grad: Array,
    accum: Array,
    stat: Array,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
) -> None:
    """MindSpore's SGD rule, in place, in one pass."""
    p = _state("param", param)
    t = param.dtype.type
    _sgd[launch(param.size)](
        p,
        _grad(param, grad),
        _state("accum", accum),
        _state("stat", stat),
        t(lr),
        t(momentum),
        t(dampening),
        t(weight_decay),
        nesterov,
    )


def momentum_update(
    param: Array,
    grad: Array,
    moment: Array,
    lr: float,
    momentum: float,
    weight_decay: float,
    nesterov: bool,
) -> None:
    """MindSpore's ApplyMomentum rule, in place, in one pass."""
    p = _state("param", param)
    t = param.dtype.type
    _momentum[launch(param.size)](
        p,
        _grad(param, grad),
        _state("moment", moment),
        t(lr),
        t(momentum),
        t(weight_decay),
        nesterov,
    )


def adam_update(
    param: Array,
    grad: Array,
    m: Array,
    v: Array,
    lr: float,
    beta1: float,
    beta2: float,
    eps: float,
    beta1_power: float,
    beta2_power: float,
    weight_decay: float,
    nesterov: bool,
) -> None:
    """Adam, in place, in one pass (bias correction folded into the step size on the host)."""
    p = _state("param", param)
    t = param.dtype.type
    alpha = lr * math.sqrt(1.0 - beta2_power) / (1.0 - beta1_power)
    _adam[launch(param.size)](
        p,
        _grad(param, grad),
        _state("m", m),
        _state("v", v),
        t(alpha),
        t(beta1),
        t(beta2),
        t(eps),
        t(weight_decay),
        nesterov,
    )


from ._cuda_conv import (  # noqa: E402 - the convolution, pooling and batch-norm half of the table
    avg_pool2d_backward,
    avg_pool2d_forward,
    batch_norm_backward,
    batch_norm_forward,
    conv2d_backward,
    conv2d_forward,
    max_pool2d_backward,
    max_pool2d_forward,
)
