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
from ._parallel import in_spans

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
def _norm_fwd(
    x: Array, params: Any, eps: float, lay: Any, y: Array, st: Array, r0: int, r1: int
) -> None:
    # params is (gamma, beta): one argument, so the signature fits a line.
    for i in range(r0, r1):
        _norm_fwd_row(x, params[0], params[1], eps, lay, y, st, i)


def _block_rows(x: Array) -> int:
    # Rows a thread takes at least: about 32k elements (a layer norm's 256 rows of 128).
    return max(1, 32768 // max(int(x.shape[1]), 1))


def _rows_forward(
    x: Array, gamma: Array, beta: Array, eps: float, layout: tuple[int, int]
) -> tuple[Array, Array]:
    y = np.empty_like(x)
    stats = np.empty((2, x.shape[0]), x.dtype)
    args = (x, (gamma, beta), float(eps), layout, y, stats)
    in_spans(_norm_fwd, x.shape[0], _block_rows(x), *args)
    return y, stats


@_norm_kernel
def _norm_bwd(
    dy: Array, x: Array, g: Array, st: Array, lay: Any, dx: Array, acc: Array, r0: int, r1: int
) -> None:  # fmt: skip
    for i in range(r0, r1):
        _norm_bwd_row(dy, x, g, st, lay, dx, i)
        _norm_param_row(dy, x, st, lay, acc, i)


def _rows_backward(
    dy: Array, x: Array, gamma: Array, stats: Array, layout: tuple[int, int]
) -> tuple[Array, Array]:
    dx = np.empty_like(x)
    # gamma's and beta's gradients: each block of rows sums into its own float64
    # array, added in row order afterwards (the same result on every run).
    partial: dict[int, Array] = {}

    def block(r0: int, r1: int) -> None:
        acc = np.zeros((2, gamma.size), np.float64)
        _norm_bwd(dy, x, gamma, stats, layout, dx, acc, r0, r1)
        partial[r0] = acc

    in_spans(block, x.shape[0], _block_rows(x))
    dparams = sum(partial[r0] for r0 in sorted(partial))
    return dx, np.asarray(dparams, x.dtype)


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
