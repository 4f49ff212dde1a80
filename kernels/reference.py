"""Plain-numpy version of every kernel: the readable spec and the test oracle.

Every function here has a counterpart of the same name and signature in each
target's kernel table (`cadence.kernels.cpu_kernels()`); plugin authors test
their kernels against these. Inputs are C-contiguous float arrays; functions
may overwrite arguments documented as scratch (`z` of `bias_act_forward`) and
update optimizer state in place, exactly as the target kernels do.

Activation codes (`act`): 0 identity, 1 relu, 2 sigmoid, 3 tanh.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ._names import KERNEL_NAMES

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
    x: Array, gamma: Array, beta: Array, eps: float
) -> tuple[Array, Array, Array]:
    """Normalize x (N, C, M) per channel with batch statistics; return (y, mean, biased var)."""
    mean = x.mean(axis=(0, 2))
    var = x.var(axis=(0, 2))
    xhat = (x - mean[:, None]) / np.sqrt(var[:, None] + eps)
    return (
        (xhat * gamma[:, None] + beta[:, None]).astype(x.dtype),
        mean.astype(x.dtype),
        var.astype(x.dtype),
    )


def batch_norm_backward(
    dy: Array, x: Array, gamma: Array, mean: Array, var: Array, eps: float
) -> tuple[Array, Array, Array]:
    """Return (dx, dgamma, dbeta) of `batch_norm_forward`."""
    m = x.shape[0] * x.shape[2]
    invstd = 1 / np.sqrt(var + eps)
    xhat = (x - mean[:, None]) * invstd[:, None]
    dbeta = dy.sum(axis=(0, 2))
    dgamma = (dy * xhat).sum(axis=(0, 2))
    dx = (
        (gamma * invstd)[:, None]
        / m
        * (m * dy - dbeta[:, None] - xhat * dgamma[:, None])
    )
    return dx.astype(x.dtype), dgamma.astype(x.dtype), dbeta.astype(x.dtype)


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
