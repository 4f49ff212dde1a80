"""The tiled matmul every CUDA layer kernel builds on, and the argument helpers they share.

Matmuls are a shared-memory tiled kernel, not cuBLAS (numba-cuda ships no BLAS).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .._checks import check_float_array
from ._array import DeviceArray, device_empty, to_device
from ._device import SIMULATOR, cuda, launch
from ._generic import fill

__all__ = ["TILED_BY_DEFAULT", "device_arg", "flat", "matmul", "raw"]

Array = Any


def device_arg(name: str, a: Any, ndim: int | None = None) -> DeviceArray:
    """Check a kernel argument and return it as a `DeviceArray` (copying numpy input over)."""
    check_float_array(name, a, ndim)
    return a if isinstance(a, DeviceArray) else to_device(a)


def flat(a: DeviceArray) -> Any:
    """The numba array of `a`, one-dimensional."""
    return a.device_array.reshape(a.size)


def raw(a: DeviceArray) -> Any:
    """The numba array of `a`."""
    return a.device_array


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


def _operand(x: Array, transposed: bool) -> tuple[Array, bool]:
    """(array the kernel reads, whether it reads it transposed) for one matmul operand.

    A host operand may be a transposed view (a matmul gradient's `b.T` when `b` stayed
    on the host): it goes over as the C-contiguous array it views, and the flag flips,
    so nothing copies it first. Other strided host views are made contiguous on the
    way over; device arrays are always contiguous.
    """
    if isinstance(x, np.ndarray) and x.ndim == 2 and not x.flags.c_contiguous:
        if x.T.flags.c_contiguous:
            return x.T, not transposed
        return np.ascontiguousarray(x), transposed
    return x, transposed


def matmul(
    a: Array, b: Array, ta: bool = False, tb: bool = False, tiled: bool | None = None
) -> DeviceArray:
    """Return op(a) @ op(b) for 2-D arrays, op transposing when `ta` / `tb` is set.

    Host operands of any layout are copied over (see `_operand`). `tiled` picks the
    shared-memory kernel (default on a GPU) or the simple one.
    """
    (a, ta), (b, tb) = _operand(a, ta), _operand(b, tb)
    a, b = device_arg("a", a, 2), device_arg("b", b, 2)
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
        _gemm_simple[launch(c.size)](raw(a), raw(b), raw(c), ta, tb)
        return c
    grid = (
        min(-(-n // TILE), 2 if SIMULATOR else 1024),
        min(-(-m // TILE), 2 if SIMULATOR else 1024),
    )
    _GEMM[c.dtype][grid, (TILE, TILE)](raw(a), raw(b), raw(c), ta, tb)
    return c
