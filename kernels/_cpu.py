"""CPU kernels: numba loops for elementwise and fused work, numpy's BLAS for matmuls.

Every public function has the name and signature of its `reference` twin.
Kernels are single-threaded (`nogil`, no `parallel=True`): BLAS owns the
cores during matmuls and the loops run between them, so the process never
runs more compute threads than BLAS is allowed (see `CPUTarget.configure_threads`).

On-disk caching covers `_scalar.py` and `_rowwise.py` too (see `_numba_cache`). The functions
shared with the CUDA table (activations, softmax, optimizer updates) are built
by `_wrappers` from this file's loops.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from . import _numba_cache, _rowwise, _scalar
from ._checks import check_float_array
from ._grouped_conv import (
    grouped_conv2d_backward as grouped_conv2d_backward,
    grouped_conv2d_forward as grouped_conv2d_forward,
)
from ._names import KERNEL_NAMES
from ._wrappers import (
    OptimizerPrimitives,
    activation_kernels,
    optimizer_updates,
    softmax_kernels,
)

__all__ = list(KERNEL_NAMES)

Array = npt.NDArray[Any]


_CACHE = _numba_cache.install(__file__, _scalar.__file__, _rowwise.__file__)


def _kernel(fn: Any) -> Any:
    return numba.jit(nogil=True, cache=_CACHE, error_model="numpy")(fn)


# --- per-element math, built for this target --------------------------------------
_act: Any = numba.jit(_scalar.act)
_act_grad: Any = numba.jit(_scalar.act_grad)
_relu: Any = numba.jit(_scalar.relu)
_relu_grad: Any = numba.jit(_scalar.relu_grad)
_sigmoid: Any = numba.jit(_scalar.sigmoid)
_sigmoid_grad: Any = numba.jit(_scalar.sigmoid_grad)
_tanh: Any = numba.jit(_scalar.tanh)
_tanh_grad: Any = numba.jit(_scalar.tanh_grad)
_adam_param: Any = numba.jit(_scalar.adam_param)

# --- per-row and per-channel bodies, built for this target ------------------------------
# Inlined into the calling kernel at numba's IR level: as separate calls they cost the
# fused loss kernel about 20% (measured on 256x10 logits); inlined, the kernels run as
# fast as when the bodies were written in them. error_model as `_kernel`'s.
_row_body = numba.jit(error_model="numpy", inline="always")
_softmax_row: Any = _row_body(_rowwise.softmax_row)
_softmax_grad_row: Any = _row_body(_rowwise.softmax_grad_row)
_sce_sparse_row: Any = _row_body(_rowwise.sce_sparse_row)
_sce_dense_row: Any = _row_body(_rowwise.sce_dense_row)
_bn_channel_fwd: Any = _row_body(_rowwise.batch_norm_channel_forward)
_bn_channel_bwd: Any = _row_body(_rowwise.batch_norm_channel_backward)

_NONE = np.zeros(0, np.float32)


# --- elementwise activations ----------------------------------------------------------
@_kernel
def _unary(x: Array, out: Array, code: int) -> None:
    for i in range(x.size):
        out[i] = _act(x[i], code)


@_kernel
def _unary_grad(dy: Array, y: Array, out: Array, code: int) -> None:
    for i in range(dy.size):
        out[i] = dy[i] * _act_grad(y[i], code)


def _fwd(x: Array, code: int) -> Array:
    check_float_array("x", x)
    out = np.empty_like(x)
    _unary(x.reshape(-1), out.reshape(-1), code)
    return out


def _bwd(dy: Array, y: Array, code: int) -> Array:
    check_float_array("dy", dy)
    out = np.empty_like(dy)
    _unary_grad(dy.reshape(-1), y.reshape(-1), out.reshape(-1), code)
    return out


(
    relu_forward,
    relu_backward,
    sigmoid_forward,
    sigmoid_backward,
    tanh_forward,
    tanh_backward,
) = activation_kernels(_fwd, _bwd)


# --- dense layers: BLAS matmul + fused epilogues ---------------------------------------
@_kernel
def _bias_act(z: Array, b: Array, has_b: bool, code: int) -> None:
    n, m = z.shape
    for i in range(n):
        for j in range(m):
            v = z[i, j] + b[j] if has_b else z[i, j]
            z[i, j] = _act(v, code)


@_kernel
def _bias_act_grad(dy: Array, y: Array, code: int, dz: Array, db: Array) -> None:
    n, m = dy.shape
    acc = np.zeros(m, np.float64)
    for i in range(n):
        for j in range(m):
            g = dy[i, j] * _act_grad(y[i, j], code)
            dz[i, j] = g
            acc[j] += g
    for j in range(m):
        db[j] = acc[j]


def bias_act_forward(z: Array, b: Array | None, act: int) -> Array:
    """act(z + b), computed in place in z."""
    check_float_array("z", z, 2)
    if b is not None or act != 0:
        _bias_act(z, _NONE.astype(z.dtype) if b is None else b, b is not None, act)
    return z


def bias_act_backward(dy: Array, y: Array, act: int) -> tuple[Array, Array]:
    """Return (dz, db) in one pass over dy."""
    check_float_array("dy", dy, 2)
    dz = np.empty_like(dy)
    db = np.empty(dy.shape[1], dy.dtype)
    _bias_act_grad(dy, y, act, dz, db)
    return dz, db


def dense_forward(x: Array, w: Array, b: Array | None, act: int) -> Array:
    """act(x @ w.T + b): one BLAS call, then the fused bias/activation epilogue."""
    check_float_array("x", x, 2)
    return bias_act_forward(x @ w.T, b, act)


def dense_backward(
    dy: Array, x: Array, w: Array, y: Array, act: int, need_dx: bool
) -> tuple[Array | None, Array, Array]:
    """Return (dx or None, dw, db); dz and db come from one fused pass, the products from BLAS."""
    if act == 0:
        check_float_array("dy", dy, 2)
        dz, db = dy, dy.sum(axis=0)
    else:
        dz, db = bias_act_backward(dy, y, act)
    return (dz @ w if need_dx else None), dz.T @ x, db


# --- softmax and losses ---------------------------------------------------------------
@_kernel
def _softmax_rows(x: Array, out: Array, log: bool) -> None:
    for i in range(x.shape[0]):
        _softmax_row(x, out, log, i)


@_kernel
def _softmax_grad_rows(dy: Array, y: Array, out: Array, log: bool) -> None:
    for i in range(dy.shape[0]):
        _softmax_grad_row(dy, y, out, log, i)


def _rows(x: Array, log: bool) -> Array:
    check_float_array("x", x, 2)
    out = np.empty_like(x)
    _softmax_rows(x, out, log)
    return out


def _rows_grad(dy: Array, y: Array, log: bool) -> Array:
    check_float_array("dy", dy, 2)
    out = np.empty_like(dy)
    _softmax_grad_rows(dy, y, out, log)
    return out


softmax_forward, softmax_backward, log_softmax_forward, log_softmax_backward = (
    softmax_kernels(_rows, _rows_grad)
)


@_kernel
def _sce_sparse(x: Array, labels: Array, loss: Array, grad: Array) -> None:
    n, c = x.shape
    for i in range(n):
        if labels[i] < 0 or labels[i] >= c:
            raise IndexError("a label is outside [0, num_classes)")
        _sce_sparse_row(x, labels, loss, grad, i)


@_kernel
def _sce_dense(x: Array, labels: Array, loss: Array, grad: Array) -> None:
    for i in range(x.shape[0]):
        _sce_dense_row(x, labels, loss, grad, i)


def softmax_cross_entropy_sparse(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss and its gradient wrt logits, in one pass (forward and backward fused)."""
    check_float_array("logits", logits, 2)
    if labels.shape != logits.shape[:1] or labels.dtype.kind not in "iu":
        raise ValueError(
            f"Kernel argument `labels` must be integers of shape {logits.shape[:1]}, but got {labels.dtype} {labels.shape}."
        )
    loss = np.empty(logits.shape[0], logits.dtype)
    grad = np.empty_like(logits)
    _sce_sparse(logits, labels, loss, grad)
    return loss, grad


def softmax_cross_entropy_dense(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss against target distributions and its gradient, in one pass."""
    check_float_array("logits", logits, 2)
    check_float_array("labels", labels, 2)
    loss = np.empty(logits.shape[0], logits.dtype)
    grad = np.empty_like(logits)
    _sce_dense(logits, labels, loss, grad)
    return loss, grad


# --- convolution and pooling (NCHW) -----------------------------------------------------
@_kernel
def _im2col(
    x: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    dh: int,
    dw: int,
    oh: int,
    ow: int,
    cols: Array,
) -> None:
    # x is already padded, so the loops carry no bounds checks and the inner one vectorizes.
    n, c = x.shape[0], x.shape[1]
    kk = kh * kw
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                row = (b * oh + oy) * ow + ox
                for ch in range(c):
                    for i in range(kh):
                        iy = oy * sh + i * dh
                        base = ch * kk + i * kw
                        for j in range(kw):
                            cols[row, base + j] = x[b, ch, iy, ox * sw + j * dw]


@_kernel
def _col2im(
    dcols: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    pt: int,
    pl: int,
    dh: int,
    dw: int,
    oh: int,
    ow: int,
    dx: Array,
) -> None:
    n, c, h, w = dx.shape
    row = 0
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                col = 0
                for ch in range(c):
                    for i in range(kh):
                        iy = oy * sh - pt + i * dh
                        for j in range(kw):
                            ix = ox * sw - pl + j * dw
                            if 0 <= iy < h and 0 <= ix < w:
                                dx[b, ch, iy, ix] += dcols[row, col]
                            col += 1
                row += 1


def _conv_geometry(
    x: Array,
    w: Array,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> tuple[int, int]:
    kh, kw = w.shape[2], w.shape[3]
    oh = (x.shape[2] + padding[0] + padding[1] - dilation[0] * (kh - 1) - 1) // stride[
        0
    ] + 1
    ow = (x.shape[3] + padding[2] + padding[3] - dilation[1] * (kw - 1) - 1) // stride[
        1
    ] + 1
    return oh, ow


# im2col columns of recent forward passes, reused by the backward pass of the same
# input (saves one im2col per convolution per step). Keyed by the input array's
# identity; a weak reference proves it is the same live array. Bounded, so at most
# _COLS_KEEP column buffers stay alive.
_COLS_KEEP = 8
_cols_cache: OrderedDict[
    tuple[Any, ...], tuple[weakref.ref[Array], Array, int, int]
] = OrderedDict()


def _cols(
    x: Array,
    w: Array,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
    reuse: bool,
) -> tuple[Array, int, int]:
    """im2col of x; `reuse` (backward only) may return the forward's columns of the same array.

    The forward always recomputes: a caller may refill the same input buffer between steps.
    """
    check_float_array("x", x, 4)
    check_float_array("w", w, 4)
    key = (id(x), x.shape, w.shape[1:], tuple(stride), tuple(padding), tuple(dilation))
    hit = _cols_cache.pop(key, None)
    if reuse and hit is not None and hit[0]() is x:
        return hit[1], hit[2], hit[3]
    oh, ow = _conv_geometry(x, w, stride, padding, dilation)
    kh, kw = w.shape[2], w.shape[3]
    xp = (
        np.pad(x, ((0, 0), (0, 0), (padding[0], padding[1]), (padding[2], padding[3])))
        if any(padding)
        else x
    )
    cols = np.empty((x.shape[0] * oh * ow, x.shape[1] * kh * kw), x.dtype)
    _im2col(xp, kh, kw, stride[0], stride[1], dilation[0], dilation[1], oh, ow, cols)
    _cols_cache[key] = (weakref.ref(x), cols, oh, ow)
    while len(_cols_cache) > _COLS_KEEP:
        _cols_cache.popitem(last=False)
    return cols, oh, ow


def conv2d_forward(
    x: Array,
    w: Array,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> Array:
    """im2col (numba) + one BLAS matmul."""
    o = w.shape[0]
    cols, oh, ow = _cols(x, w, stride, padding, dilation, reuse=False)
    y = cols @ w.reshape(o, -1).T
    return np.ascontiguousarray(y.reshape(x.shape[0], oh, ow, o).transpose(0, 3, 1, 2))


def conv2d_backward(
    dy: Array,
    x: Array,
    w: Array,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
    need_dx: bool,
) -> tuple[Array | None, Array]:
    """Return (dx or None, dw): BLAS products over im2col columns, col2im (numba) for dx.

    Reuses the columns `conv2d_forward` built from the same live `x` array (once), so
    `x` must not be modified in place between the forward and the backward call.
    """
    o, _, kh, kw = w.shape
    cols, oh, ow = _cols(x, w, stride, padding, dilation, reuse=True)
    dyr = np.ascontiguousarray(dy.transpose(0, 2, 3, 1)).reshape(-1, o)
    dw = (dyr.T @ cols).reshape(w.shape)
    if not need_dx:
        return None, dw
    dcols = dyr @ w.reshape(o, -1)
    dx = np.zeros_like(x)
    _col2im(
        dcols,
        kh,
        kw,
        stride[0],
        stride[1],
        padding[0],
        padding[2],
        dilation[0],
        dilation[1],
        oh,
        ow,
        dx,
    )
    return dx, dw


@_kernel
def _max_pool(
    x: Array, kh: int, kw: int, sh: int, sw: int, y: Array, idx: Array
) -> None:
    n, c, _h, w = x.shape
    oh, ow = y.shape[2], y.shape[3]
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    best = -np.inf
                    at = 0
                    for i in range(kh):
                        iy = oy * sh + i
                        for j in range(kw):
                            ix = ox * sw + j
                            v = x[b, ch, iy, ix]
                            if v > best:
                                best = v
                                at = iy * w + ix
                    y[b, ch, oy, ox] = best
                    idx[b, ch, oy, ox] = at


@_kernel
def _max_pool_grad(dy: Array, idx: Array, dx: Array) -> None:
    n, c, oh, ow = dy.shape
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    dx[b, ch, idx[b, ch, oy, ox]] += dy[b, ch, oy, ox]


def max_pool2d_forward(
    x: Array, kh: int, kw: int, sh: int, sw: int
) -> tuple[Array, Array]:
    """Max over windows, and the flat (H*W) index of each maximum."""
    check_float_array("x", x, 4)
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    y = np.empty((n, c, oh, ow), x.dtype)
    idx = np.empty((n, c, oh, ow), np.int64)
    _max_pool(x, kh, kw, sh, sw, y, idx)
    return y, idx


def max_pool2d_backward(
    dy: Array, idx: Array, x_shape: tuple[int, int, int, int]
) -> Array:
    """Route each output gradient to the input element that was the maximum."""
    check_float_array("dy", dy, 4)
    n, c, h, w = x_shape
    dx = np.zeros((n, c, h * w), dy.dtype)
    _max_pool_grad(dy, idx, dx)
    return dx.reshape(x_shape)


@_kernel
def _avg_pool(x: Array, kh: int, kw: int, sh: int, sw: int, y: Array) -> None:
    n, c = x.shape[0], x.shape[1]
    oh, ow = y.shape[2], y.shape[3]
    inv = 1.0 / (kh * kw)
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    s = 0.0
                    for i in range(kh):
                        for j in range(kw):
                            s += x[b, ch, oy * sh + i, ox * sw + j]
                    y[b, ch, oy, ox] = s * inv


@_kernel
def _avg_pool_grad(dy: Array, kh: int, kw: int, sh: int, sw: int, dx: Array) -> None:
    n, c, oh, ow = dy.shape
    inv = 1.0 / (kh * kw)
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    g = dy[b, ch, oy, ox] * inv
                    for i in range(kh):
                        for j in range(kw):
                            dx[b, ch, oy * sh + i, ox * sw + j] += g


def avg_pool2d_forward(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
    """Mean over windows."""
    check_float_array("x", x, 4)
    n, c, h, w = x.shape
    y = np.empty((n, c, (h - kh) // sh + 1, (w - kw) // sw + 1), x.dtype)
    _avg_pool(x, kh, kw, sh, sw, y)
    return y


def avg_pool2d_backward(
    dy: Array, x_shape: tuple[int, int, int, int], kh: int, kw: int, sh: int, sw: int
) -> Array:
    """Spread each output gradient evenly over its window."""
    check_float_array("dy", dy, 4)
    dx = np.zeros(x_shape, dy.dtype)
    _avg_pool_grad(dy, kh, kw, sh, sw, dx)
    return dx


# --- batch normalization -------------------------------------------------------------------
@_kernel
def _bn_fwd(
    x: Array, gamma: Array, beta: Array, eps: float, y: Array, mean: Array, var: Array
) -> None:
    for ch in range(x.shape[1]):
        _bn_channel_fwd(x, gamma, beta, eps, y, mean, var, ch)


@_kernel
def _bn_bwd(
    dy: Array,
    x: Array,
    gamma: Array,
    mean: Array,
    var: Array,
    eps: float,
    dx: Array,
    dgamma: Array,
    dbeta: Array,
) -> None:
    for ch in range(x.shape[1]):
        _bn_channel_bwd(dy, x, gamma, mean, var, eps, dx, dgamma, dbeta, ch)


def batch_norm_forward(
    x: Array, gamma: Array, beta: Array, eps: float
) -> tuple[Array, Array, Array]:
    """Normalize x (N, C, M) per channel with batch statistics; return (y, mean, biased var)."""
    check_float_array("x", x, 3)
    c = x.shape[1]
    y = np.empty_like(x)
    mean = np.empty(c, x.dtype)
    var = np.empty(c, x.dtype)
    _bn_fwd(x, gamma, beta, eps, y, mean, var)
    return y, mean, var


def batch_norm_backward(
    dy: Array, x: Array, gamma: Array, mean: Array, var: Array, eps: float
) -> tuple[Array, Array, Array]:
    """Return (dx, dgamma, dbeta)."""
    check_float_array("dy", dy, 3)
    dx = np.empty_like(x)
    dgamma = np.empty(x.shape[1], x.dtype)
    dbeta = np.empty(x.shape[1], x.dtype)
    _bn_bwd(dy, x, gamma, mean, var, eps, dx, dgamma, dbeta)
    return dx, dgamma, dbeta


# --- optimizer updates: one fused pass per parameter -------------------------------------
@_kernel
def _sgd(
    p: Array,
    g: Array,
    accum: Array,
    stat: Array,
    lr: float,
    momentum: float,
    dampening: float,
    wd: float,
    nesterov: bool,
) -> None:
    for i in range(p.size):
        gi = g[i] + wd * p[i] if wd != 0.0 else g[i]
        if momentum > 0.0:
            a = gi if stat[i] > 0 else momentum * accum[i] + (1.0 - dampening) * gi
            accum[i] = a
            stat[i] = 0.0
            gi = gi + momentum * a if nesterov else a
        p[i] -= lr * gi


@_kernel
def _momentum(
    p: Array,
    g: Array,
    moment: Array,
    lr: float,
    momentum: float,
    wd: float,
    nesterov: bool,
) -> None:
    for i in range(p.size):
        gi = g[i] + wd * p[i] if wd != 0.0 else g[i]
        mo = momentum * moment[i] + gi
        moment[i] = mo
        p[i] -= lr * gi + lr * momentum * mo if nesterov else lr * mo


@_kernel
def _adam(
    p: Array,
    g: Array,
    m: Array,
    v: Array,
    alpha: float,
    beta1: float,
    beta2: float,
    eps: float,
    wd: float,
    nesterov: bool,
) -> None:
    for i in range(p.size):
        gi = g[i] + wd * p[i] if wd != 0.0 else g[i]
        mi = beta1 * m[i] + (1.0 - beta1) * gi
        vi = beta2 * v[i] + (1.0 - beta2) * gi * gi
        m[i] = mi
        v[i] = vi
        p[i] -= _adam_param(mi, vi, gi, alpha, beta1, eps, nesterov)


def _flat(name: str, a: Array) -> Array:
    check_float_array(name, a)
    return a.reshape(-1)


def _run(loop: Any, param: Array, *args: Any) -> None:
    loop(*args)


# Hyperparameters stay Python floats: the loops compute in float64 and round once on store.
sgd_update, momentum_update, adam_update = optimizer_updates(
    OptimizerPrimitives(
        sgd=_sgd,
        momentum=_momentum,
        adam=_adam,
        run=_run,
        state=_flat,
        grad=lambda param, g: g.reshape(-1),
        scalar=lambda param: float,
    )
)
