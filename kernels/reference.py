"""Plain-numpy version of every kernel: the readable spec and the test oracle.

Every function here has a counterpart of the same name and signature in each
target's kernel table (`cadence.kernels.cpu_kernels()`); plugin authors test
their kernels against these. Inputs are C-contiguous float arrays; functions
may overwrite arguments documented as scratch (`z` of `bias_act_forward`) and
update optimizer state in place, exactly as the target kernels do.

Activation codes (`act`): 0 identity, 1 relu, 2 sigmoid, 3 tanh.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ._names import KERNEL_NAMES
from ._winograd_reference import (
    conv2d_winograd_backward as conv2d_winograd_backward,
    conv2d_winograd_forward as conv2d_winograd_forward,
)
from ._wrappers import dense_sgd_kernel

__all__ = ["ACTIVATIONS", *KERNEL_NAMES]

Array = npt.NDArray[Any]

ACTIVATIONS = {None: 0, "relu": 1, "sigmoid": 2, "tanh": 3}


def _act(z: Array, act: int) -> Array:
    if act == 1:
        return np.maximum(z, 0)
    if act == 2:
        return sigmoid_forward(z)
    if act == 3:
        return np.tanh(z)
    return z


def _act_grad(dy: Array, y: Array, act: int) -> Array:
    if act == 1:
        return dy * (y > 0)
    if act == 2:
        return np.asarray(dy * y * (1 - y))
    if act == 3:
        return np.asarray(dy * (1 - y * y))
    return dy


# --- elementwise activations ---------------------------------------------------
def relu_forward(x: Array) -> Array:
    """max(x, 0)."""
    return np.maximum(x, 0)


def relu_backward(dy: Array, y: Array) -> Array:
    """Dy where the output was positive, else 0."""
    return np.where(y > 0, dy, 0).astype(dy.dtype)


def sigmoid_forward(x: Array) -> Array:
    """1 / (1 + exp(-x)), computed without overflow."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype)


def sigmoid_backward(dy: Array, y: Array) -> Array:
    """Dy * y * (1 - y), from the output y."""
    return np.asarray(dy * y * (1 - y))


def tanh_forward(x: Array) -> Array:
    """tanh(x)."""
    return np.tanh(x)


def tanh_backward(dy: Array, y: Array) -> Array:
    """Dy * (1 - y**2), from the output y."""
    return np.asarray(dy * (1 - y * y))


# --- dense layers --------------------------------------------------------------
def bias_act_forward(z: Array, b: Array | None, act: int) -> Array:
    """act(z + b) for z of shape (N, M) and b of shape (M,); z is scratch."""
    return _act(z if b is None else z + b, act)


def bias_act_backward(dy: Array, y: Array, act: int) -> tuple[Array, Array]:
    """Return (dz, db): the gradient before the activation and its column sums."""
    dz = _act_grad(dy, y, act).astype(dy.dtype)
    return dz, dz.sum(axis=0)


def dense_forward(x: Array, w: Array, b: Array | None, act: int) -> Array:
    """act(x @ w.T + b) for x (N, K), w (M, K), b (M,)."""
    return bias_act_forward(x @ w.T, b, act)


def dense_backward(
    dy: Array, x: Array, w: Array, y: Array, act: int, need_dx: bool
) -> tuple[Array | None, Array, Array]:
    """Return (dx or None, dw, db) of `dense_forward` given the output gradient dy and output y."""
    dz, db = bias_act_backward(dy, y, act)
    return (dz @ w if need_dx else None), dz.T @ x, db


def _plain_sgd(param: Array, grad: Array, lr: float, weight_decay: float) -> None:
    param -= (lr * (grad + weight_decay * param)).astype(param.dtype)


def _bias_sgd(
    dy: Array, y: Array, act: int, b: Array | None, lr: float, weight_decay: float
) -> Array:
    dz, db = bias_act_backward(dy, y, act)
    if b is not None:
        _plain_sgd(b, db, lr, weight_decay)
    return dz


# The one place the signature is written is `_wrappers` (shared with the targets).
dense_backward_sgd = dense_sgd_kernel(
    _bias_sgd,
    np.matmul,
    lambda w, x, dz, lr, wd: _plain_sgd(w, dz.T @ x, lr, wd),
)
dense_backward_sgd.__module__ = __name__


# --- softmax and losses -------------------------------------------------------
def softmax_forward(x: Array) -> Array:
    """Softmax over the last axis of a 2-D array."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


def softmax_backward(dy: Array, y: Array) -> Array:
    """Gradient of softmax over the last axis, from its output y."""
    return np.asarray(y * (dy - (dy * y).sum(axis=-1, keepdims=True)))


def log_softmax_forward(x: Array) -> Array:
    """log(softmax(x)) over the last axis of a 2-D array."""
    s = x - x.max(axis=-1, keepdims=True)
    return np.asarray(s - np.log(np.exp(s).sum(axis=-1, keepdims=True)))


def log_softmax_backward(dy: Array, y: Array) -> Array:
    """Gradient of log-softmax over the last axis, from its output y."""
    return np.asarray(dy - np.exp(y) * dy.sum(axis=-1, keepdims=True))


def softmax_cross_entropy_sparse(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample cross-entropy of logits (N, C) with class indices (N,), and d(loss_i)/d(logits)."""
    logp = log_softmax_forward(logits)
    n = np.arange(logits.shape[0])
    loss = -logp[n, labels]
    grad = np.exp(logp)
    grad[n, labels] -= 1
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


def softmax_cross_entropy_dense(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample cross-entropy of logits (N, C) with target distributions (N, C), and its gradient."""
    logp = log_softmax_forward(logits)
    loss = -(labels * logp).sum(axis=-1)
    grad = np.exp(logp) * labels.sum(axis=-1, keepdims=True) - labels
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


# --- convolution and pooling (NCHW) --------------------------------------------
def _im2col(
    x: Array,
    kh: int,
    kw: int,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> tuple[Array, int, int]:
    n, c, h, w = x.shape
    pt, pb, pl, pr = padding
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (h + pt + pb - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + pl + pr - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    cols = np.empty((n, oh, ow, c, kh, kw), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            patch = xp[
                :,
                :,
                r0 : r0 + stride[0] * (oh - 1) + 1 : stride[0],
                c0 : c0 + stride[1] * (ow - 1) + 1 : stride[1],
            ]
            cols[:, :, :, :, i, j] = patch.transpose(0, 2, 3, 1)
    return cols.reshape(n * oh * ow, c * kh * kw), oh, ow


def conv2d_forward(
    x: Array,
    w: Array,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> Array:
    """Cross-correlation of x (N, C, H, W) with w (O, C, KH, KW); padding is (top, bottom, left, right)."""
    o, _, kh, kw = w.shape
    cols, oh, ow = _im2col(x, kh, kw, stride, padding, dilation)
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
    """Return (dx or None, dw) of `conv2d_forward`."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    cols, oh, ow = _im2col(x, kh, kw, stride, padding, dilation)
    dyr = dy.transpose(0, 2, 3, 1).reshape(-1, o)
    dw = (dyr.T @ cols).reshape(w.shape)
    if not need_dx:
        return None, dw
    dcols = (dyr @ w.reshape(o, -1)).reshape(n, oh, ow, c, kh, kw)
    pt, pb, pl, pr = padding
    dxp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            dxp[
                :,
                :,
                r0 : r0 + stride[0] * (oh - 1) + 1 : stride[0],
                c0 : c0 + stride[1] * (ow - 1) + 1 : stride[1],
            ] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dxp[:, :, pt : pt + h, pl : pl + wd].copy(), dw


# The Winograd spec lives in `_winograd_reference` (its einsums and matrices are a module's
# worth); it is this module's public API, so its functions say so.
conv2d_winograd_forward.__module__ = conv2d_winograd_backward.__module__ = __name__

# The planar layout (`_planar_conv`) changes how a CPU table arranges the work, not the
# result: its spec is the convolution's.
conv2d_planar_forward = conv2d_forward
conv2d_planar_backward = conv2d_backward
# So does the CPU's 1x1 schedule (`_pointwise_conv`: per-sample GEMMs on NCHW as stored).
conv2d_pointwise_forward = conv2d_forward
conv2d_pointwise_backward = conv2d_backward

# So does the stride-phase layout of 3x3 stride-2 filters (`_phase_conv`).
conv2d_phase_forward = conv2d_forward
conv2d_phase_backward = conv2d_backward


def conv2d_backward_input(
    dy: Array, w: Array, x_shape: tuple[int, int, int, int], stride: tuple[int, int],
    padding: tuple[int, int, int, int], dilation: tuple[int, int],
) -> Array:  # fmt: skip
    """Dx of `conv2d_forward` alone: it does not depend on x, only on its shape."""
    return grouped_conv2d_backward_input(dy, w, x_shape, stride, padding, dilation, 1)


def max_pool2d_forward(
    x: Array, kh: int, kw: int, sh: int, sw: int
) -> tuple[Array, Array]:
    """Max over (kh, kw) windows with strides (sh, sw), no padding; also the flat index of each max in its (H, W) plane."""
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    y = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    idx = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            v = x[:, :, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw]
            better = v > y
            y = np.where(better, v, y)
            flat = (np.arange(oh)[:, None] * sh + i) * w + (
                np.arange(ow)[None, :] * sw + j
            )
            idx = np.where(better, flat, idx)
    return y, idx


def max_pool2d_backward(
    dy: Array, idx: Array, x_shape: tuple[int, int, int, int]
) -> Array:
    """Route each output gradient to the input element that was the maximum."""
    n, c, h, w = x_shape
    dx = np.zeros((n * c, h * w), dtype=dy.dtype)
    rows = np.repeat(np.arange(n * c), idx[0, 0].size)
    np.add.at(dx, (rows, idx.reshape(-1)), dy.reshape(-1))
    return dx.reshape(x_shape)


def avg_pool2d_forward(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
    """Mean over (kh, kw) windows with strides (sh, sw), no padding."""
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    y = np.zeros((n, c, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            y += x[:, :, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw]
    return y / (kh * kw)


def avg_pool2d_backward(
    dy: Array, x_shape: tuple[int, int, int, int], kh: int, kw: int, sh: int, sw: int
) -> Array:
    """Spread each output gradient evenly over its window."""
    dx = np.zeros(x_shape, dtype=dy.dtype)
    oh, ow = dy.shape[2], dy.shape[3]
    g = dy / (kh * kw)
    for i in range(kh):
        for j in range(kw):
            dx[
                :, :, i : i + sh * (oh - 1) + 1 : sh, j : j + sw * (ow - 1) + 1 : sw
            ] += g
    return dx


# --- batch normalization (training statistics) -----------------------------------
def batch_norm_forward(
    x: Array, gamma: Array, beta: Array, eps: float, low: float = -np.inf,
    high: float = np.inf, residual: Array | None = None,
) -> tuple[Array, Array, Array]:  # fmt: skip
    """Normalize x (N, C, M) per channel with batch statistics, add `residual`, clip to [low, high]; return (y, mean, biased var)."""
    mean = x.mean(axis=(0, 2))
    var = x.var(axis=(0, 2))
    xhat = (x - mean[:, None]) / np.sqrt(var[:, None] + eps)
    z = xhat * gamma[:, None] + beta[:, None]
    if residual is not None:
        z = z + residual
    return (
        (np.clip(z, low, high) if low > -np.inf or high < np.inf else z).astype(
            x.dtype
        ),
        mean.astype(x.dtype),
        var.astype(x.dtype),
    )


def batch_norm_backward(
    dy: Array, x: Array, gamma: Array, mean: Array, var: Array, eps: float,
    beta: Array | None = None, low: float = -np.inf, high: float = np.inf,
) -> tuple[Array, Array, Array]:  # fmt: skip
    """Return (dx, dgamma, dbeta) of `batch_norm_forward`: with a clip, dy passes strictly inside (low, high)."""
    m = x.shape[0] * x.shape[2]
    invstd = 1 / np.sqrt(var + eps)
    xhat = (x - mean[:, None]) * invstd[:, None]
    if low > -np.inf or high < np.inf:
        assert beta is not None, "a clip needs the forward's beta"
        z = xhat * gamma[:, None] + beta[:, None]
        dy = np.where((z > low) & (z < high), dy, 0)
    dbeta = dy.sum(axis=(0, 2))
    dgamma = (dy * xhat).sum(axis=(0, 2))
    dx = (
        (gamma * invstd)[:, None]
        / m
        * (m * dy - dbeta[:, None] - xhat * dgamma[:, None])
    )
    return dx.astype(x.dtype), dgamma.astype(x.dtype), dbeta.astype(x.dtype)


def batch_norm_residual_backward(
    dy: Array, x: Array, y: Array, gamma: Array, mean: Array, var: Array, eps: float,
    low: float = -np.inf, high: float = np.inf,
) -> tuple[Array, Array, Array, Array]:  # fmt: skip
    """Return (dx, dresidual, dgamma, dbeta) of `batch_norm_forward` with a residual: the clip's mask from its output y."""
    if low > -np.inf or high < np.inf:
        dy = np.where((y <= low) | (y >= high), 0, dy).astype(x.dtype)
    dx, dgamma, dbeta = batch_norm_backward(dy, x, gamma, mean, var, eps)
    return dx, dy, dgamma, dbeta


# --- layer and group normalization (stats: row 0 the means, row 1 the 1 / std) -----
def _norm_rows(rows: Array, eps: float) -> tuple[Array, Array]:
    mean = rows.mean(axis=1)
    rstd = 1 / np.sqrt(rows.var(axis=1) + eps)
    return (rows - mean[:, None]) * rstd[:, None], np.stack([mean, rstd])


def _norm_rows_grad(g: Array, rows: Array, stats: Array) -> tuple[Array, Array]:
    """(dx, xhat) of normalized rows, from g = dy * gamma."""
    xhat = (rows - stats[0][:, None]) * stats[1][:, None]
    dx = stats[1][:, None] * (
        g
        - g.mean(axis=1, keepdims=True)
        - xhat * (g * xhat).mean(axis=1, keepdims=True)
    )
    return dx, xhat


def layer_norm_forward(
    x: Array, gamma: Array, beta: Array, eps: float
) -> tuple[Array, Array]:
    """Normalize each row of x (R, D); return (y, stats (2, R))."""
    xhat, stats = _norm_rows(x, eps)
    return (xhat * gamma + beta).astype(x.dtype), stats.astype(x.dtype)


def layer_norm_backward(
    dy: Array, x: Array, gamma: Array, stats: Array
) -> tuple[Array, Array, Array]:
    """Return (dx, dgamma, dbeta) of `layer_norm_forward`."""
    dx, xhat = _norm_rows_grad(dy * gamma, x, stats)
    return (
        dx.astype(x.dtype),
        (dy * xhat).sum(axis=0).astype(x.dtype),
        dy.sum(axis=0).astype(x.dtype),
    )


def group_norm_forward(
    x: Array, gamma: Array, beta: Array, groups: int, eps: float
) -> tuple[Array, Array]:
    """Normalize x (N, C, M) over each of `groups` channel groups; return (y, stats (2, N * groups))."""
    xhat, stats = _norm_rows(x.reshape(x.shape[0] * groups, -1), eps)
    y = xhat.reshape(x.shape) * gamma[:, None] + beta[:, None]
    return y.astype(x.dtype), stats.astype(x.dtype)


def group_norm_backward(
    dy: Array, x: Array, gamma: Array, stats: Array, groups: int
) -> tuple[Array, Array, Array]:
    """Return (dx, dgamma, dbeta) of `group_norm_forward`."""
    rows = x.reshape(x.shape[0] * groups, -1)
    dx, xhat = _norm_rows_grad((dy * gamma[:, None]).reshape(rows.shape), rows, stats)
    return (
        dx.reshape(x.shape).astype(x.dtype),
        (dy * xhat.reshape(x.shape)).sum(axis=(0, 2)).astype(x.dtype),
        dy.sum(axis=(0, 2)).astype(x.dtype),
    )


# --- smooth activations (codes: 0 gelu tanh form, 1 gelu erf form, 2 silu, 3 leaky relu, 4 erf) ---
_erf = np.vectorize(math.erf, otypes=[np.float64])


def smooth_act_forward(x: Array, code: int, alpha: float) -> Array:
    """Activation `code` on every element; `alpha` is leaky relu's negative slope."""
    xd = x.astype(np.float64)
    if code == 0:
        y = 0.5 * xd * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd**3)))
    elif code == 1:
        y = 0.5 * xd * (1 + _erf(xd / math.sqrt(2)))
    elif code == 2:
        y = xd / (1 + np.exp(-xd))
    elif code == 4:
        y = _erf(xd)
    else:
        y = np.where(xd > 0, xd, alpha * xd)
    return np.asarray(y).astype(x.dtype)


def smooth_act_backward(dy: Array, x: Array, code: int, alpha: float) -> Array:
    """Dy times the activation's derivative at its input x."""
    xd = x.astype(np.float64)
    if code == 0:
        c = math.sqrt(2 / math.pi)
        t = np.tanh(c * (xd + 0.044715 * xd**3))
        d = 0.5 * (1 + t) + 0.5 * xd * (1 - t * t) * c * (1 + 3 * 0.044715 * xd**2)
    elif code == 1:
        d = 0.5 * (1 + _erf(xd / math.sqrt(2))) + xd * np.exp(-0.5 * xd**2) / math.sqrt(
            2 * math.pi
        )
    elif code == 2:
        s = 1 / (1 + np.exp(-xd))
        d = s * (1 + xd * (1 - s))
    elif code == 4:
        d = 2 / math.sqrt(math.pi) * np.exp(-(xd**2))
    else:
        d = np.where(xd > 0, 1.0, alpha)
    return np.asarray(dy * d).astype(dy.dtype)


# --- batched matmul -------------------------------------------------------------------
def batch_matmul(a: Array, b: Array, ta: bool, tb: bool) -> Array:
    """op(a) @ op(b) for (B, M, K)-shaped stacks, op swapping the last two axes when set."""
    out = np.einsum(
        "bik,bkj->bij", a.swapaxes(1, 2) if ta else a, b.swapaxes(1, 2) if tb else b
    )
    return np.asarray(out, dtype=np.result_type(a, b))


# --- optimizer updates (in place) ---------------------------------------------------
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
    """MindSpore's SGD: weight decay, then momentum (the first step seeds `accum`), then the step."""
    g = grad + weight_decay * param if weight_decay != 0 else grad.copy()
    if momentum > 0:
        first = stat > 0
        accum[...] = np.where(first, g, momentum * accum + (1 - dampening) * g)
        stat[...] = 0
        g = g + momentum * accum if nesterov else accum.copy()
    param -= (lr * g).astype(param.dtype)


def momentum_update(
    param: Array,
    grad: Array,
    moment: Array,
    lr: float,
    momentum: float,
    weight_decay: float,
    nesterov: bool,
) -> None:
    """MindSpore's ApplyMomentum: moment = momentum * moment + g; step by lr * moment (or the Nesterov form)."""
    g = grad + weight_decay * param if weight_decay != 0 else grad
    moment[...] = momentum * moment + g
    step = lr * g + lr * momentum * moment if nesterov else lr * moment
    param -= step.astype(param.dtype)


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
    """Adam with bias correction folded into the step size; beta*_power are beta**t after this step."""
    g = grad + weight_decay * param if weight_decay != 0 else grad
    m[...] = beta1 * m + (1 - beta1) * g
    v[...] = beta2 * v + (1 - beta2) * g * g
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    num = beta1 * m + (1 - beta1) * g if nesterov else m
    param -= (alpha * num / (np.sqrt(v) + eps)).astype(param.dtype)


def adam_weight_decay_update(
    param: Array, grad: Array, m: Array, v: Array, *hyper: float
) -> None:
    """MindSpore's AdamWeightDecay, hyper = (lr, beta1, beta2, eps, weight_decay): unbiased moments; the decay joins the step."""
    lr, beta1, beta2, eps, weight_decay = hyper
    m[...] = beta1 * m + (1 - beta1) * grad
    v[...] = beta2 * v + (1 - beta2) * grad * grad
    step = lr * (m / (eps + np.sqrt(v)) + weight_decay * param)
    param -= step.astype(param.dtype)


def adam_amsgrad_update(
    param: Array, grad: Array, m: Array, v: Array, vhat: Array, *hyper: float
) -> None:
    """MindSpore's Adam with AMSGrad (ApplyAdamWithAmsgradV2) after the L2 decay of the gradient.

    hyper = (lr, beta1, beta2, eps, beta1_power, beta2_power, weight_decay), the powers beta ** t
    after this step; the step divides by the running maximum `vhat` of `v`.
    """
    lr, beta1, beta2, eps, beta1_power, beta2_power, weight_decay = hyper
    g = grad + weight_decay * param
    m[...] = beta1 * m + (1 - beta1) * g
    v[...] = beta2 * v + (1 - beta2) * g * g
    vhat[...] = np.maximum(vhat, v)
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    param -= (alpha * m / (np.sqrt(vhat) + eps)).astype(param.dtype)


def rmsprop_update(
    param: Array,
    grad: Array,
    mean_grad: Array,
    mean_square: Array,
    moment: Array,
    *hyper: float,
) -> None:
    """MindSpore's ApplyRMSProp (or ApplyCenteredRMSProp) after the L2 decay of the gradient.

    hyper = (lr, decay, momentum, eps, weight_decay, centered).
    """
    lr, decay, momentum, eps, weight_decay, centered = hyper
    g = grad + weight_decay * param
    mean_square[...] = decay * mean_square + (1 - decay) * g * g
    denom = mean_square.astype(np.float64)
    if centered:
        mean_grad[...] = decay * mean_grad + (1 - decay) * g
        denom = denom - mean_grad.astype(np.float64) ** 2
    moment[...] = momentum * moment + lr * g / np.sqrt(denom + eps)
    param -= moment


def adagrad_update(param: Array, grad: Array, accum: Array, *hyper: float) -> None:
    """MindSpore's ApplyAdagrad after the L2 decay, hyper = (lr, weight_decay, update_slots).

    accum += g² (when update_slots); p -= lr g / sqrt(accum).
    """
    lr, weight_decay, update_slots = hyper
    g = grad + weight_decay * param
    if update_slots:
        accum += g * g
    param -= (lr * g / np.sqrt(accum)).astype(param.dtype)


def lamb_update(param: Array, grad: Array, m: Array, v: Array, *hyper: float) -> None:
    """MindSpore's Lamb, hyper = (lr, beta1, beta2, eps, weight_decay, step >= 1).

    The bias-corrected Adam direction plus decay, scaled by ‖param‖ / ‖direction‖.
    """
    lr, beta1, beta2, eps, weight_decay, step = hyper
    m[...] = beta1 * m + (1 - beta1) * grad
    v[...] = beta2 * v + (1 - beta2) * grad * grad
    m_hat = m / (1 - beta1**step)
    v_hat = v / (1 - beta2**step)
    r = m_hat / (np.sqrt(v_hat) + eps) + weight_decay * param
    w_norm = float(np.linalg.norm(param.astype(np.float64)))
    r_norm = float(np.linalg.norm(r.astype(np.float64)))
    ratio = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
    param -= (lr * ratio * r).astype(param.dtype)


def adadelta_update(
    param: Array, grad: Array, accum: Array, accum_update: Array, *hyper: float
) -> None:
    """MindSpore's ApplyAdadelta after the L2 decay, hyper = (lr, rho, eps, weight_decay).

    accum ← rho accum + (1 - rho) g²; u = sqrt(accum_update + eps) g / sqrt(accum + eps);
    accum_update ← rho accum_update + (1 - rho) u²; p -= lr u.
    """
    lr, rho, eps, weight_decay = hyper
    g = grad + weight_decay * param
    accum[...] = rho * accum + (1 - rho) * g * g
    u = np.sqrt(accum_update + eps) * g / np.sqrt(accum + eps)
    accum_update[...] = rho * accum_update + (1 - rho) * u * u
    param -= (lr * u).astype(param.dtype)


def proximal_adagrad_update(
    param: Array, grad: Array, accum: Array, *hyper: float
) -> None:
    """MindSpore's ApplyProximalAdagrad after the L2 decay, hyper = (lr, l1, l2, weight_decay).

    accum += g²; with the rate r = lr / sqrt(accum), v = p - r g and
    p = sign(v) max(|v| - r l1, 0) / (1 + r l2).
    """
    lr, l1, l2, weight_decay = hyper
    g = grad + weight_decay * param
    accum += g * g
    rate = lr / np.sqrt(accum)
    v = param - rate * g
    shrunk = np.sign(v) * np.maximum(np.abs(v) - rate * l1, 0) if l1 > 0 else v
    param[...] = shrunk / (1 + rate * l2)


def rprop_update(
    param: Array, grad: Array, prev: Array, step_size: Array, *hyper: float
) -> None:
    """MindSpore's `nn.Rprop` after the L2 decay, hyper = (eta_minus, eta_plus, min_step, max_step, first, lr, weight_decay).

    Where g prev > 0 the step grows by eta_plus, where < 0 it shrinks by eta_minus and g is
    dropped (0); the step (lr on the first call) is clipped to [min_step, max_step]; p -= sign(g) step.
    """
    eta_minus, eta_plus, min_step, max_step, first, lr, weight_decay = hyper
    g = grad + weight_decay * param
    size = np.full_like(step_size, lr) if first else step_size
    turn = g * prev
    factor = np.where(turn > 0, eta_plus, np.where(turn < 0, eta_minus, 1.0))
    size = np.clip(size * factor, min_step, max_step)
    g = np.where(turn < 0, 0.0, g)
    param -= (np.sign(g) * size).astype(param.dtype)
    prev[...] = g
    step_size[...] = size


def asgd_update(param: Array, grad: Array, ax: Array, *hyper: float) -> None:
    """MindSpore's `nn.ASGD` step after the L2 decay, hyper = (eta, lambd, mu, weight_decay).

    p ← p (1 - lambd eta) - eta g; ax ← ax + mu (p - ax) (ax ← p when mu is 1).
    """
    eta, lambd, mu, weight_decay = hyper
    g = grad + weight_decay * param
    param[...] = param * (1 - lambd * eta) - eta * g
    if mu != 1:
        ax += (param - ax) * mu
    else:
        ax[...] = param


def ftrl_update(
    param: Array, grad: Array, accum: Array, linear: Array, *hyper: float
) -> None:
    """MindSpore's ApplyFtrl after the L2 decay, hyper = (lr, l1, l2, lr_power, weight_decay).

    accum' = accum + g²; linear += g - (accum'^-lr_power - accum^-lr_power) / lr * p;
    p = (sign(linear) l1 - linear) / (accum'^-lr_power / lr + 2 l2) where |linear| > l1, else 0.
    """
    lr, l1, l2, lr_power, weight_decay = hyper
    g = grad + weight_decay * param
    grown = (accum + g * g) ** -lr_power
    linear += g - (grown - accum**-lr_power) / lr * param
    accum += g * g
    solved = (np.sign(linear) * l1 - linear) / (grown / lr + 2 * l2)
    param[...] = np.where(np.abs(linear) > l1, solved, 0)


# --- recurrent layers and embedding lookup ----------------------------------------
# Modes: 0 RNN tanh, 1 RNN ReLU, 2 LSTM (gates i, f, g, o), 3 GRU (gates r, z, n).
# `xw` (T, B, G) is the input side x @ W_ih^T + b_ih of every position; `hs`, `cs`
# (T+1, B, H) hold the state by step (step 0 the initial state; the reverse
# direction's step s reads position T-1-s); `act` (T, B, S) what the backward needs,
# by position; positions at or past a row's `lengths` carry the state and output 0.
def _sig(x: Array) -> Array:
    return np.asarray(1 / (1 + np.exp(-x)))


def recurrent_forward(
    mode: int,
    xw: Array,
    h0: Array,
    c0: Array,
    w_hh: Array,
    b_hh: Array | None,
    lengths: Array,
    reverse: bool,
) -> tuple[Array, Array, Array, Array]:
    """One layer direction over all steps: (y (T, B, H), hs, cs, act)."""
    steps, rows, _ = xw.shape
    units = w_hh.shape[1]
    hs = np.zeros((steps + 1, rows, units), xw.dtype)
    cs = np.zeros_like(hs)
    hs[0], cs[0] = h0, c0
    act = np.zeros((steps, rows, (1 if mode < 2 else 4) * units), xw.dtype)
    y = np.zeros((steps, rows, units), xw.dtype)
    for s in range(steps):
        p = steps - 1 - s if reverse else s
        live = (p < lengths)[:, None]
        gh = hs[s] @ w_hh.T + (0 if b_hh is None else b_hh)
        gi = xw[p]
        c = cs[s]
        if mode == 2:
            i, f, o = (_sig(gi[:, k] + gh[:, k]) for k in _gate_cols(units, (0, 1, 3)))
            g = np.tanh((gi + gh)[:, 2 * units : 3 * units])
            c = f * cs[s] + i * g
            h = o * np.tanh(c)
            a = np.concatenate([i, f, g, o], axis=1)
        elif mode == 3:
            r, z = (_sig(gi[:, k] + gh[:, k]) for k in _gate_cols(units, (0, 1)))
            hn = gh[:, 2 * units :]
            n = np.tanh(gi[:, 2 * units :] + r * hn)
            h = n + z * (hs[s] - n)
            a = np.concatenate([r, z, n, hn], axis=1)
        else:
            pre = gi + gh
            h = np.tanh(pre) if mode == 0 else np.maximum(pre, 0)
            a = h
        hs[s + 1] = np.where(live, h, hs[s])
        cs[s + 1] = np.where(live, c if mode == 2 else 0, cs[s])
        act[p] = np.where(live, a, 0)
        y[p] = np.where(live, h, 0)
    return y, hs, cs, act


def _gate_cols(units: int, gates: tuple[int, ...]) -> list[slice]:
    return [slice(k * units, (k + 1) * units) for k in gates]


def recurrent_backward(
    mode: int,
    dy: Array,
    dh_n: Array,
    dc_n: Array,
    w_hh: Array,
    hs: Array,
    cs: Array,
    act: Array,
    lengths: Array,
    reverse: bool,
) -> tuple[Array, Array, Array, Array]:
    """Back through time: (dgi by position, dgh by step, dh0, dc0).

    dgi is the gradient of the input side's pre-activations (so dW_ih = dgi^T x),
    dgh of the recurrent side's (so dW_hh = dgh^T hs[:-1]); they differ only in
    the GRU's n gate, where the recurrent term is scaled by r.
    """
    steps, rows, units = dy.shape
    dh, dc = dh_n.copy(), dc_n.copy()
    dgi = np.zeros((steps, rows, w_hh.shape[0]), dy.dtype)
    dgh = np.zeros_like(dgi)
    for s in range(steps - 1, -1, -1):
        p = steps - 1 - s if reverse else s
        live = (p < lengths)[:, None]
        g = dh + dy[p]
        a = act[p]
        direct = np.zeros_like(dh)
        dc_prev = np.zeros_like(dc)
        if mode == 2:
            i, f, gg, o = (a[:, k] for k in _gate_cols(units, (0, 1, 2, 3)))
            tc = np.tanh(cs[s + 1])
            d_c = dc + g * o * (1 - tc * tc)
            d_in = np.concatenate(
                [
                    d_c * gg * i * (1 - i),
                    d_c * cs[s] * f * (1 - f),
                    d_c * i * (1 - gg * gg),
                    g * tc * o * (1 - o),
                ],
                axis=1,
            )
            d_rec = d_in
            dc_prev = d_c * f
        elif mode == 3:
            r, z, n, hn = (a[:, k] for k in _gate_cols(units, (0, 1, 2, 3)))
            d_n = g * (1 - z) * (1 - n * n)
            d_r = d_n * hn * r * (1 - r)
            d_z = g * (hs[s] - n) * z * (1 - z)
            d_in = np.concatenate([d_r, d_z, d_n], axis=1)
            d_rec = np.concatenate([d_r, d_z, d_n * r], axis=1)
            direct = g * z
        else:
            d_in = g * (1 - a * a) if mode == 0 else g * (a > 0)
            d_rec = d_in
        dgi[p] = np.where(live, d_in, 0)
        dgh[s] = np.where(live, d_rec, 0)
        dh = np.where(live, direct + dgh[s] @ w_hh, dh)
        dc = np.where(live, dc_prev, dc)
    return dgi, dgh, dh.astype(dy.dtype), dc.astype(dy.dtype)


def embedding_forward(table: Array, ids: Array) -> Array:
    """Rows `ids` (1-D integers in [0, vocab)) of `table` (vocab, E)."""
    return table[ids]


def embedding_backward(dy: Array, ids: Array, vocab_size: int) -> Array:
    """The table's gradient: row i of dy (N, E) added into row ids[i]."""
    dtable = np.zeros((vocab_size, dy.shape[1]), dy.dtype)
    np.add.at(dtable, ids, dy)
    return dtable


# --- grouped convolution ---------------------------------------------------------
def grouped_conv2d_forward(
    x: Array, w: Array, stride: tuple[int, int], padding: tuple[int, int, int, int],
    dilation: tuple[int, int], groups: int,
) -> Array:  # fmt: skip
    """`conv2d_forward` of each of `groups` equal channel slices; w is (O, C/groups, KH, KW)."""
    pairs = zip(np.split(x, groups, axis=1), np.split(w, groups, axis=0), strict=True)
    return np.concatenate(
        [conv2d_forward(xg, wg, stride, padding, dilation) for xg, wg in pairs], axis=1
    )


def grouped_conv2d_backward(
    dy: Array, x: Array, w: Array, stride: tuple[int, int], padding: tuple[int, int, int, int],
    dilation: tuple[int, int], groups: int, need_dx: bool,
) -> tuple[Array | None, Array]:  # fmt: skip
    """Return (dx or None, dw) of `grouped_conv2d_forward`."""
    slices = (
        np.split(dy, groups, axis=1),
        np.split(x, groups, axis=1),
        np.split(w, groups, axis=0),
    )
    parts = [
        conv2d_backward(
            np.ascontiguousarray(dg), xg, wg, stride, padding, dilation, True
        )
        for dg, xg, wg in zip(*slices, strict=True)
    ]
    dw = np.concatenate([p[1] for p in parts], axis=0)
    return (np.concatenate([p[0] for p in parts], axis=1) if need_dx else None), dw


def grouped_conv2d_backward_input(
    dy: Array, w: Array, x_shape: tuple[int, int, int, int], stride: tuple[int, int],
    padding: tuple[int, int, int, int], dilation: tuple[int, int], groups: int,
) -> Array:  # fmt: skip
    """Dx of `grouped_conv2d_forward` alone: it does not depend on x, only on its shape."""
    x = np.zeros(x_shape, dy.dtype)
    dx, _ = grouped_conv2d_backward(dy, x, w, stride, padding, dilation, groups, True)
    assert dx is not None
    return dx
