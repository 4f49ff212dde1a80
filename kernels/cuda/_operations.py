"""The device kernels `DeviceArray`'s numpy methods run on, gathered for `bind_operations`."""

from __future__ import annotations

from typing import Any

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


def matmul(a: Any, b: Any) -> Any:
    """Return `a @ b` (`np.matmul` on device arrays), or None where it falls back to the host.

    Vectors and a stack of matrices times one matrix are a single 2-D product (the stack's
    rows laid end to end); a matrix times a stack, or two stacks, fall back (the runtime's
    `matmul` sends float stacks to the batched kernel before numpy sees them).
    """
    if min(a.ndim, b.ndim) == 0 or b.ndim > 2:
        return None
    a2 = a.reshape(1, -1) if a.ndim == 1 else a.reshape(-1, a.shape[-1])
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    return _matmul(a2, b2).reshape(a.shape[:-1] + b.shape[1:])
