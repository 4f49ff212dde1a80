"""The device kernels `DeviceArray`'s numpy methods run on, gathered for `bind_operations`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._generic import cast, elementwise, gather, reduce
from ._indexing import add_at, axis_index, scatter, take
from ._matmul import matmul as _matmul
from ._numpy import FUNCTIONS

__all__ = [
    "FUNCTIONS",
    "add_at",
    "axis_index",
    "cast",
    "elementwise",
    "gather",
    "matmul",
    "reduce",
    "scatter",
    "take",
]


def _operand(x: Any) -> tuple[Any, bool]:
    """(array the kernel reads, whether it reads it transposed) for one operand of `np.matmul`.

    A host operand may be a transposed view (a matmul gradient's `b.T` when `b` stayed on
    the host): it goes over as the C-contiguous array it views, and the kernel's flag
    transposes it, so neither side copies it first. Other strided host views are made
    contiguous on the way over; device arrays are always contiguous.
    """
    if isinstance(x, np.ndarray) and not x.flags.c_contiguous:
        return (
            (x.T, True) if x.T.flags.c_contiguous else (np.ascontiguousarray(x), False)
        )
    return x, False


def matmul(a: Any, b: Any) -> Any:
    """Return `a @ b` for 2-D arrays (`np.matmul` on device arrays, any host operand layout)."""
    (a, ta), (b, tb) = _operand(a), _operand(b)
    return _matmul(a, b, ta, tb)
