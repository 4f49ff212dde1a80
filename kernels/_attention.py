"""CPU kernels for layer/group normalization, smooth activations and batched matmul.

The loop bodies come from `_attention_math`, compiled here with `numba.jit`
and inlined into one loop per kernel; batched matmuls go to numpy's matmul,
which calls BLAS per matrix of the stack. Registered in the CPU table
(`_cpu`). Cached on disk, keyed on this file and `_attention_math` (see `_numba_cache`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from . import _attention_math as m, _numba_cache
from ._attention_wrappers import ATTENTION_KERNELS, batch_matmul_shape, norm_kernels
from ._checks import check_float_array, check_same_shape

__all__ = list(ATTENTION_KERNELS)

Array = npt.NDArray[Any]

_body = numba.jit(error_model="numpy", inline="always")
_built: list[Any] = [_body(getattr(m, name)) for name in m.BODY_NAMES]
_smooth, _smooth_grad, _norm_fwd_row, _norm_bwd_row, _, _norm_param_row = _built
_CACHE = _numba_cache.install(__file__, m.__file__)
_kernel = numba.jit(nogil=True, cache=_CACHE, error_model="numpy")
# The normalization loops are sums over rows: reassociation lets LLVM vectorize them
# (one add chain at a time, they waited on the add's latency).
_norm_kernel = numba.jit(
    nogil=True, cache=_CACHE, error_model="numpy", fastmath={"reassoc", "contract"}
)


@_norm_kernel
def _norm_fwd(x: Array, params: Any, eps: float, lay: Any, y: Array, st: Array) -> None:
    # params is (gamma, beta): one argument, so the signature fits a line.
    for i in range(x.shape[0]):
        _norm_fwd_row(x, params[0], params[1], eps, lay, y, st, i)


def _rows_forward(
    x: Array, gamma: Array, beta: Array, eps: float, layout: tuple[int, int]
) -> tuple[Array, Array]:
    y = np.empty_like(x)
    stats = np.empty((2, x.shape[0]), x.dtype)
    _norm_fwd(x, (gamma, beta), float(eps), layout, y, stats)
    return y, stats


@_norm_kernel
def _norm_bwd(
    dy: Array, x: Array, g: Array, st: Array, lay: Any, dx: Array, dp: Array
) -> None:
    acc = np.zeros(dp.shape, np.float64)
    for i in range(x.shape[0]):
        _norm_bwd_row(dy, x, g, st, lay, dx, i)
        _norm_param_row(dy, x, st, lay, acc, i)
    for c in range(g.size):
        dp[0, c] = acc[0, c]
        dp[1, c] = acc[1, c]


def _rows_backward(
    dy: Array, x: Array, gamma: Array, stats: Array, layout: tuple[int, int]
) -> tuple[Array, Array]:
    dx = np.empty_like(x)
    dparams = np.empty((2, gamma.size), x.dtype)
    _norm_bwd(dy, x, gamma, stats, layout, dx, dparams)
    return dx, dparams


layer_norm_forward, layer_norm_backward, group_norm_forward, group_norm_backward = (
    norm_kernels(_rows_forward, _rows_backward)
)


@_kernel
def _smooth_loop(x: Array, out: Array, code: int, alpha: float) -> None:
    for i in range(x.size):
        out[i] = _smooth(x[i], code, alpha)


@_kernel
def _smooth_grad_loop(dy: Array, x: Array, out: Array, code: int, alpha: float) -> None:
    for i in range(x.size):
        out[i] = dy[i] * _smooth_grad(x[i], code, alpha)


def smooth_act_forward(x: Array, code: int, alpha: float) -> Array:
    """Activation `code` of `_attention_math.SMOOTH_ACT_CODES` on every element."""
    check_float_array("x", x)
    out = np.empty_like(x)
    _smooth_loop(x.reshape(-1), out.reshape(-1), code, alpha)
    return out


def smooth_act_backward(dy: Array, x: Array, code: int, alpha: float) -> Array:
    """Dy times the activation's derivative at its input x."""
    check_float_array("dy", dy)
    check_same_shape(("dy", "x"), dy, x)
    out = np.empty_like(dy)
    _smooth_grad_loop(dy.reshape(-1), x.reshape(-1), out.reshape(-1), code, alpha)
    return out


def batch_matmul(a: Array, b: Array, ta: bool, tb: bool) -> Array:
    """op(a) @ op(b) for (B, M, K)-shaped stacks, op swapping the last two axes when set."""
    batch_matmul_shape(a, b, ta, tb)
    out: Array = np.matmul(a.swapaxes(1, 2) if ta else a, b.swapaxes(1, 2) if tb else b)
    return out
