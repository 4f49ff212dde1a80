"""CUDA kernels for layer/group normalization, smooth activations and batched matmul.

The bodies come from `cadence.kernels._attention_math`, built here with
`cuda.jit(device=True)`: one thread per element (activations), per row
(normalization forward and input gradient), per gamma element (its gradient,
so no two threads add into the same sum) or per output element of the stack
(batched matmul). Every kernel is a grid-stride loop, so any launch size is
correct. Signatures and checks are shared with the CPU table
(`_attention_wrappers`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _attention_math as m
from .._attention_wrappers import ATTENTION_KERNELS, batch_matmul_shape, norm_kernels
from .._checks import check_same_shape
from ._array import DeviceArray, device_empty
from ._device import cuda, launch
from ._matmul import device_arg, flat, raw

__all__ = list(ATTENTION_KERNELS)

Array = Any

_device = cuda.jit(device=True)
_built: list[Any] = [_device(getattr(m, name)) for name in m.BODY_NAMES]
_smooth, _smooth_grad, _norm_fwd_row, _norm_bwd_row, _norm_param, _ = _built


@cuda.jit
def _smooth_loop(x: Any, out: Any, code: int, alpha: float) -> None:
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = _smooth(x[i], code, alpha)


@cuda.jit
def _smooth_grad_loop(dy: Any, x: Any, out: Any, code: int, alpha: float) -> None:
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = dy[i] * _smooth_grad(x[i], code, alpha)


def smooth_act_forward(x: Array, code: int, alpha: float) -> DeviceArray:
    """Activation `code` of `_attention_math.SMOOTH_ACT_CODES` on every element."""
    x = device_arg("x", x)
    out = device_empty(x.shape, x.dtype)
    _smooth_loop[launch(x.size)](flat(x), flat(out), code, float(alpha))
    return out


def smooth_act_backward(dy: Array, x: Array, code: int, alpha: float) -> DeviceArray:
    """Dy times the activation's derivative at its input x."""
    dy, x = device_arg("dy", dy), device_arg("x", x)
    check_same_shape(("dy", "x"), dy, x)
    out = device_empty(dy.shape, dy.dtype)
    _smooth_grad_loop[launch(x.size)](flat(dy), flat(x), flat(out), code, float(alpha))
    return out


@cuda.jit
def _norm_fwd(x: Any, g: Any, b: Any, eps: float, lay: Any, y: Any, st: Any) -> None:
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        _norm_fwd_row(x, g, b, eps, lay, y, st, i)


@cuda.jit
def _norm_bwd(dy: Any, x: Any, g: Any, st: Any, lay: Any, dx: Any) -> None:
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        _norm_bwd_row(dy, x, g, st, lay, dx, i)


@cuda.jit
def _norm_params(dy: Any, x: Any, st: Any, lay: Any, dp: Any) -> None:
    for c in range(cuda.grid(1), dp.shape[1], cuda.gridsize(1)):
        _norm_param(dy, x, st, lay, dp, c)


def _rows_forward(
    x: Array, gamma: Array, beta: Array, eps: float, layout: tuple[int, int]
) -> tuple[DeviceArray, DeviceArray]:
    x = device_arg("x", x, 2)
    gamma, beta = device_arg("gamma", gamma, 1), device_arg("beta", beta, 1)
    y = device_empty(x.shape, x.dtype)
    stats = device_empty((2, x.shape[0]), x.dtype)
    _norm_fwd[launch(x.shape[0])](
        raw(x), raw(gamma), raw(beta), float(eps), layout, raw(y), raw(stats)
    )
    return y, stats


def _rows_backward(
    dy: Array, x: Array, gamma: Array, stats: Array, layout: tuple[int, int]
) -> tuple[DeviceArray, DeviceArray]:
    dy, x = device_arg("dy", dy, 2), device_arg("x", x, 2)
    gamma, stats = device_arg("gamma", gamma, 1), device_arg("stats", stats, 2)
    dx = device_empty(x.shape, x.dtype)
    dparams = device_empty((2, gamma.size), x.dtype)
    _norm_bwd[launch(x.shape[0])](
        raw(dy), raw(x), raw(gamma), raw(stats), layout, raw(dx)
    )
    _norm_params[launch(gamma.size)](raw(dy), raw(x), raw(stats), layout, raw(dparams))
    return dx, dparams


layer_norm_forward, layer_norm_backward, group_norm_forward, group_norm_backward = (
    norm_kernels(_rows_forward, _rows_backward)
)


@cuda.jit
def _batch_gemm(a: Any, b: Any, c: Any, ta: bool, tb: bool) -> None:
    # One thread per output element of the whole stack: attention's matrices are
    # small (sequence x head width), so many of them fill the device together.
    _, rows, cols = c.shape
    k = a.shape[1] if ta else a.shape[2]
    for e in range(cuda.grid(1), c.size, cuda.gridsize(1)):
        s = e // (rows * cols)
        rem = e - s * rows * cols
        row = rem // cols
        col = rem - row * cols
        acc = 0.0
        for kk in range(k):
            x = a[s, kk, row] if ta else a[s, row, kk]
            y = b[s, col, kk] if tb else b[s, kk, col]
            acc += x * y
        c[s, row, col] = acc


def batch_matmul(a: Array, b: Array, ta: bool, tb: bool) -> DeviceArray:
    """op(a) @ op(b) for (B, M, K)-shaped stacks, op swapping the last two axes when set."""
    batch, rows, cols, _ = batch_matmul_shape(a, b, ta, tb)
    a, b = device_arg("a", a, 3), device_arg("b", b, 3)
    dt = np.result_type(a.dtype, b.dtype)
    a = a if a.dtype == dt else a.astype(dt)
    b = b if b.dtype == dt else b.astype(dt)
    c = device_empty((batch, rows, cols), dt)
    if c.size:
        _batch_gemm[launch(c.size)](raw(a), raw(b), raw(c), ta, tb)
    return c
