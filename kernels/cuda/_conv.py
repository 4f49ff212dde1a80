"""CUDA kernels for convolution, pooling and batch normalization.

Convolution is im2col + the tiled matmul of `_matmul`; the backward recomputes
the columns (no cache across calls, unlike the CPU) and scatters into dx
with atomic adds, as do the pooling backward passes. Batch normalization
runs one thread per channel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _rowwise
from ._array import DeviceArray, device_empty, to_device
from ._device import cuda, launch
from ._generic import fill
from ._matmul import device_arg, matmul, raw

Array = Any


@cuda.jit
def _im2col(
    x: Any,
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
    cols: Any,
) -> None:
    h, w = x.shape[2], x.shape[3]
    rows, width = cols.shape
    for e in range(cuda.grid(1), rows * width, cuda.gridsize(1)):
        row = e // width
        col = e - row * width
        b = row // (oh * ow)
        r = row - b * oh * ow
        oy = r // ow
        ox = r - oy * ow
        ch = col // (kh * kw)
        r2 = col - ch * kh * kw
        i = r2 // kw
        j = r2 - i * kw
        iy = oy * sh - pt + i * dh
        ix = ox * sw - pl + j * dw
        if 0 <= iy < h and 0 <= ix < w:
            cols[row, col] = x[b, ch, iy, ix]
        else:
            cols[row, col] = 0


@cuda.jit
def _col2im(
    dcols: Any,
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
    dx: Any,
) -> None:
    h, w = dx.shape[2], dx.shape[3]
    rows, width = dcols.shape
    for e in range(cuda.grid(1), rows * width, cuda.gridsize(1)):
        row = e // width
        col = e - row * width
        b = row // (oh * ow)
        r = row - b * oh * ow
        oy = r // ow
        ox = r - oy * ow
        ch = col // (kh * kw)
        r2 = col - ch * kh * kw
        i = r2 // kw
        j = r2 - i * kw
        iy = oy * sh - pt + i * dh
        ix = ox * sw - pl + j * dw
        if 0 <= iy < h and 0 <= ix < w:
            cuda.atomic.add(dx, (b, ch, iy, ix), dcols[row, col])


def _geometry(
    x: DeviceArray,
    w: DeviceArray,
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


def _columns(
    x: DeviceArray,
    w: DeviceArray,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> tuple[DeviceArray, int, int]:
    oh, ow = _geometry(x, w, stride, padding, dilation)
    kh, kw = w.shape[2], w.shape[3]
    cols = device_empty((x.shape[0] * oh * ow, x.shape[1] * kh * kw), x.dtype)
    if cols.size:
        _im2col[launch(cols.size)](
            raw(x),
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
            raw(cols),
        )
    return cols, oh, ow


def conv2d_forward(
    x: Array,
    w: Array,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> Array:
    """im2col + the tiled matmul, then NHWC -> NCHW."""
    x, w = device_arg("x", x, 4), device_arg("w", w, 4)
    o = w.shape[0]
    cols, oh, ow = _columns(x, w, stride, padding, dilation)
    y = matmul(cols, w.reshape(o, -1), tb=True)
    return y.reshape(x.shape[0], oh, ow, o).transpose(0, 3, 1, 2)


def conv2d_backward(
    dy: Array,
    x: Array,
    w: Array,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
    need_dx: bool,
) -> tuple[Array | None, Array]:
    """Return (dx or None, dw): matmuls over im2col columns, col2im with atomics for dx."""
    dy, x, w = device_arg("dy", dy, 4), device_arg("x", x, 4), device_arg("w", w, 4)
    o, _, kh, kw = w.shape
    cols, oh, ow = _columns(x, w, stride, padding, dilation)
    dyr = dy.transpose(0, 2, 3, 1).reshape(-1, o)
    dw = matmul(dyr, cols, ta=True).reshape(w.shape)
    if not need_dx:
        return None, dw
    dcols = matmul(dyr, w.reshape(o, -1))
    dx = fill(device_empty(x.shape, x.dtype), 0)
    if dcols.size:
        _col2im[launch(dcols.size)](
            raw(dcols),
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
            raw(dx),
        )
    return dx, dw


# The planar layout is a CPU arrangement of the host BLAS calls; the device kernels above
# have their own, so here the two names run the same convolution.
conv2d_planar_forward = conv2d_forward
conv2d_planar_backward = conv2d_backward


# --- pooling (no padding) ------------------------------------------------------------------
@cuda.jit
def _max_pool(x: Any, kh: int, kw: int, sh: int, sw: int, y: Any, idx: Any) -> None:
    n, c, _h, w = x.shape
    oh, ow = y.shape[2], y.shape[3]
    for e in range(cuda.grid(1), n * c * oh * ow, cuda.gridsize(1)):
        plane = e // (oh * ow)
        r = e - plane * oh * ow
        b = plane // c
        ch = plane - b * c
        oy = r // ow
        ox = r - oy * ow
        best = -math.inf
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


@cuda.jit
def _max_pool_grad(dy: Any, idx: Any, dx: Any) -> None:
    n, c, oh, ow = dy.shape
    for e in range(cuda.grid(1), n * c * oh * ow, cuda.gridsize(1)):
        plane = e // (oh * ow)
        r = e - plane * oh * ow
        b = plane // c
        ch = plane - b * c
        oy = r // ow
        ox = r - oy * ow
        cuda.atomic.add(dx, (b, ch, idx[b, ch, oy, ox]), dy[b, ch, oy, ox])


@cuda.jit
def _avg_pool(x: Any, kh: int, kw: int, sh: int, sw: int, y: Any) -> None:
    n, c = x.shape[0], x.shape[1]
    oh, ow = y.shape[2], y.shape[3]
    for e in range(cuda.grid(1), n * c * oh * ow, cuda.gridsize(1)):
        plane = e // (oh * ow)
        r = e - plane * oh * ow
        b = plane // c
        ch = plane - b * c
        oy = r // ow
        ox = r - oy * ow
        s = 0.0
        for i in range(kh):
            for j in range(kw):
                s += x[b, ch, oy * sh + i, ox * sw + j]
        y[b, ch, oy, ox] = s / (kh * kw)


@cuda.jit
def _avg_pool_grad(dy: Any, kh: int, kw: int, sh: int, sw: int, dx: Any) -> None:
    n, c, oh, ow = dy.shape
    for e in range(cuda.grid(1), n * c * oh * ow, cuda.gridsize(1)):
        plane = e // (oh * ow)
        r = e - plane * oh * ow
        b = plane // c
        ch = plane - b * c
        oy = r // ow
        ox = r - oy * ow
        g = dy[b, ch, oy, ox] / (kh * kw)
        for i in range(kh):
            for j in range(kw):
                cuda.atomic.add(dx, (b, ch, oy * sh + i, ox * sw + j), g)


def max_pool2d_forward(
    x: Array, kh: int, kw: int, sh: int, sw: int
) -> tuple[Array, Array]:
    """Max over windows, and the flat (H*W) index of each maximum."""
    x = device_arg("x", x, 4)
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    y = device_empty((n, c, oh, ow), x.dtype)
    idx = device_empty((n, c, oh, ow), np.int64)
    if y.size:
        _max_pool[launch(y.size)](raw(x), kh, kw, sh, sw, raw(y), raw(idx))
    return y, idx


def max_pool2d_backward(
    dy: Array, idx: Array, x_shape: tuple[int, int, int, int]
) -> Array:
    """Route each output gradient to the input element that was the maximum."""
    dy = device_arg("dy", dy, 4)
    idx = idx if isinstance(idx, DeviceArray) else to_device(idx)
    n, c, h, w = x_shape
    dx = fill(device_empty((n, c, h * w), dy.dtype), 0)
    if dy.size:
        _max_pool_grad[launch(dy.size)](raw(dy), raw(idx), raw(dx))
    return dx.reshape(x_shape)


def avg_pool2d_forward(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
    """Mean over windows."""
    x = device_arg("x", x, 4)
    n, c, h, w = x.shape
    y = device_empty((n, c, (h - kh) // sh + 1, (w - kw) // sw + 1), x.dtype)
    if y.size:
        _avg_pool[launch(y.size)](raw(x), kh, kw, sh, sw, raw(y))
    return y


def avg_pool2d_backward(
    dy: Array, x_shape: tuple[int, int, int, int], kh: int, kw: int, sh: int, sw: int
) -> Array:
    """Spread each output gradient evenly over its window."""
    dy = device_arg("dy", dy, 4)
    dx = fill(device_empty(tuple(x_shape), dy.dtype), 0)
    if dy.size:
        _avg_pool_grad[launch(dy.size)](raw(dy), kh, kw, sh, sw, raw(dx))
    return dx


# --- batch normalization: one thread per channel ----------------------------------------------
_bn_channel_fwd: Any = cuda.jit(device=True)(_rowwise.batch_norm_channel_forward)
_bn_channel_bwd: Any = cuda.jit(device=True)(_rowwise.batch_norm_channel_backward)


@cuda.jit
def _bn_fwd(
    x: Any, gamma: Any, beta: Any, eps: float, y: Any, mean: Any, var: Any
) -> None:
    for ch in range(cuda.grid(1), x.shape[1], cuda.gridsize(1)):
        _bn_channel_fwd(x, gamma, beta, eps, y, mean, var, ch)


@cuda.jit
def _bn_bwd(
    dy: Any,
    x: Any,
    gamma: Any,
    mean: Any,
    var: Any,
    eps: float,
    dx: Any,
    dgamma: Any,
    dbeta: Any,
) -> None:
    for ch in range(cuda.grid(1), x.shape[1], cuda.gridsize(1)):
        _bn_channel_bwd(dy, x, gamma, mean, var, eps, dx, dgamma, dbeta, ch)


def batch_norm_forward(
    x: Array, gamma: Array, beta: Array, eps: float
) -> tuple[Array, Array, Array]:
    """Normalize x (N, C, M) per channel with batch statistics; return (y, mean, biased var)."""
    x, gamma, beta = (
        device_arg("x", x, 3),
        device_arg("gamma", gamma, 1),
        device_arg("beta", beta, 1),
    )
    c = x.shape[1]
    y = device_empty(x.shape, x.dtype)
    mean = device_empty((c,), x.dtype)
    var = device_empty((c,), x.dtype)
    _bn_fwd[launch(c)](
        raw(x), raw(gamma), raw(beta), float(eps), raw(y), raw(mean), raw(var)
    )
    return y, mean, var


def batch_norm_backward(
    dy: Array, x: Array, gamma: Array, mean: Array, var: Array, eps: float
) -> tuple[Array, Array, Array]:
    """Return (dx, dgamma, dbeta)."""
    dy, x = device_arg("dy", dy, 3), device_arg("x", x, 3)
    gamma, mean, var = (
        device_arg("gamma", gamma, 1),
        device_arg("mean", mean, 1),
        device_arg("var", var, 1),
    )
    c = x.shape[1]
    dx = device_empty(x.shape, x.dtype)
    dgamma = device_empty((c,), x.dtype)
    dbeta = device_empty((c,), x.dtype)
    _bn_bwd[launch(c)](
        raw(dy),
        raw(x),
        raw(gamma),
        raw(mean),
        raw(var),
        float(eps),
        raw(dx),
        raw(dgamma),
        raw(dbeta),
    )
    return dx, dgamma, dbeta
