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
    """Return `a @ b` for 2-D arrays (`np.matmul` on device arrays)."""
    return _matmul(a, b)
