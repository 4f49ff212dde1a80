"""BLAS calls numpy does not expose: a product accumulated into an existing matrix.

numpy's `@` always writes a new array. The optimizer steps folded into the
weight-gradient product need GEMM's `C = alpha * A @ B + beta * C` with C the
weight itself. This module calls numpy's own OpenBLAS for it (through ctypes,
the CBLAS entry point of the library numpy's wheel bundles): a second BLAS
library in the process (scipy's) would bring a second pool of spinning worker
threads: with 2 threads on a loaded 2-core machine, the MLP's training step
took 60 times longer with scipy's GEMM for the weight step than without the fold
(the two pools' workers took the cores from each other). Where numpy's BLAS cannot be found (another numpy build), the product
and the update run as two numpy operations: the same result, one more pass.
"""

from __future__ import annotations

import ctypes
import glob
import os
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["accumulate_product", "has_accumulating_gemm", "product_into"]

Array = npt.NDArray[Any]

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def _numpy_cblas() -> dict[np.dtype[Any], Any]:
    """The `cblas_?gemm` of the OpenBLAS numpy bundles (64-bit integers), by dtype; empty when not found."""
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in sorted(glob.glob(os.path.join(libs, "libscipy_openblas64_*.so*"))):
        try:
            lib = ctypes.CDLL(path)
            found = {}
            for dtype, name, scalar in (
                (np.float32, "scipy_cblas_sgemm64_", ctypes.c_float),
                (np.float64, "scipy_cblas_dgemm64_", ctypes.c_double),
            ):
                fn = getattr(lib, name)
                i, p = ctypes.c_int64, ctypes.c_void_p
                fn.argtypes = (
                    [ctypes.c_int] * 3 + [i] * 3 + [scalar, p, i, p, i, scalar, p, i]
                )
                fn.restype = None
                found[np.dtype(dtype)] = fn
            return found
        except (OSError, AttributeError):
            continue
    return {}


_GEMM = _numpy_cblas()


def has_accumulating_gemm() -> bool:
    """Whether `accumulate_product` runs as one GEMM (numpy's BLAS was found)."""
    return bool(_GEMM)


def _gemm_for(target: Array, *inputs: Array) -> Any:
    """The GEMM writing into `target` from `inputs`, or None: no BLAS, a dtype mismatch, a strided or read-only array."""
    arrays = (target, *inputs)
    if not target.flags.writeable or any(
        a.dtype != target.dtype or not a.flags.c_contiguous for a in arrays
    ):
        return None
    return _GEMM.get(target.dtype)


def accumulate_product(
    w: Array, x: Array, dz: Array, alpha: float, beta: float
) -> None:
    """W = beta * W + alpha * dz.T @ x, in place, for W (M, K), x (N, K), dz (N, M)."""
    gemm = _gemm_for(w, x, dz)
    if gemm is None:
        if beta != 1.0:
            w *= w.dtype.type(beta)
        w += (alpha * (dz.T @ x)).astype(w.dtype, copy=False)
        return
    n, m = dz.shape
    k = x.shape[1]
    if n == 0:
        w *= w.dtype.type(beta)
        return
    # Row-major: W (M x K) = alpha * op(dz) (M x N) @ x (N x K) + beta * W, op = transpose.
    gemm(
        _ROW_MAJOR, _TRANS, _NO_TRANS, m, k, n,
        alpha, dz.ctypes.data, m, x.ctypes.data, k,
        beta, w.ctypes.data, k,
    )  # fmt: skip


def product_into(
    c: Array, a: Array, b: Array, *, transpose_b: bool, beta: float
) -> None:
    """C = a @ op(b) + beta * C, in place, op(b) = b.T when `transpose_b`; a, b, C C-contiguous 2-D.

    One GEMM writing into C (a slice of a larger result, or a sum being
    accumulated), where numpy's `@` would write a new array to be copied or
    added. Falls back to numpy (the same sum, one more pass) without numpy's BLAS.
    """
    gemm = _gemm_for(c, a, b)
    m, k = a.shape
    n = b.shape[0] if transpose_b else b.shape[1]
    if gemm is None or min(m, n, k) == 0:
        product = a @ (b.T if transpose_b else b)
        if beta == 0.0:
            c[...] = product
        else:
            c *= c.dtype.type(beta)
            c += product
        return
    gemm(
        _ROW_MAJOR, _NO_TRANS, _TRANS if transpose_b else _NO_TRANS, m, n, k,
        1.0, a.ctypes.data, k, b.ctypes.data, b.shape[1],
        beta, c.ctypes.data, n,
    )  # fmt: skip
