"""MindSpore's `mindspore.numpy` namespace, the array creators model-zoo scripts call (`ms.numpy.zeros`).

Only the creation functions are here (`zeros`, `ones`, `full`, `zeros_like`,
`ones_like`, `arange`); the arithmetic is `cadence.ops`'s and `Tensor`'s. dtypes
may be given as cadence dtypes, numpy dtypes or names ('float32'), as in MindSpore.

Layer rule: builds on the compute package only (plus `cadence._util`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._util import fixup_module_metadata
from ..compute import _dtype
from ..compute._tensor import Tensor

__all__ = ["arange", "full", "ones", "ones_like", "zeros", "zeros_like"]


def _shape(shape: Any, owner: str) -> tuple[int, ...]:
    items = (shape,) if isinstance(shape, int) else shape
    if not isinstance(items, tuple | list) or any(
        not isinstance(n, int) or isinstance(n, bool) or n < 0 for n in items
    ):
        raise ValueError(
            f"For '{owner}', the argument 'shape' must be an int >= 0 or a tuple/list of them, "
            f"but got {shape!r}."
        )
    return tuple(items)


def _np_dtype(dtype: Any) -> Any:
    return None if dtype is None else _dtype.to_numpy(dtype)


def zeros(shape: Any, dtype: Any = _dtype.float32) -> Tensor:
    """A tensor of zeros of `shape` (Float32 by default)."""
    return Tensor(np.zeros(_shape(shape, "zeros"), _np_dtype(dtype)))


def ones(shape: Any, dtype: Any = _dtype.float32) -> Tensor:
    """A tensor of ones of `shape` (Float32 by default)."""
    return Tensor(np.ones(_shape(shape, "ones"), _np_dtype(dtype)))


def _default_dtype(value: Any) -> Any:
    """MindSpore's dtype for a Python value: Bool, Int32 or Float32 (None: the array's own)."""
    if isinstance(value, bool):
        return _dtype.bool_
    if isinstance(value, int):
        return _dtype.int32
    return _dtype.float32 if isinstance(value, float) else None


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Tensor:
    """A tensor of `shape` filled with `fill_value` (by default Bool, Int32 or Float32 after its Python type)."""
    value = fill_value.asnumpy() if isinstance(fill_value, Tensor) else fill_value
    chosen = _default_dtype(fill_value) if dtype is None else dtype
    return Tensor(np.full(_shape(shape, "full"), value, _np_dtype(chosen)))


def zeros_like(a: Any, dtype: Any = None) -> Tensor:
    """Zeros with `a`'s shape and dtype (or `dtype`)."""
    return Tensor(np.zeros_like(np.asarray(a), _np_dtype(dtype)))


def ones_like(a: Any, dtype: Any = None) -> Tensor:
    """Ones with `a`'s shape and dtype (or `dtype`)."""
    return Tensor(np.ones_like(np.asarray(a), _np_dtype(dtype)))


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None) -> Tensor:
    """Evenly spaced values in [start, stop) (Int32 for ints, Float32 for floats, as MindSpore)."""
    out = (
        np.arange(start, stop, step) if stop is not None else np.arange(0, start, step)
    )
    chosen = dtype or _default_dtype(out.dtype.type(0).item())
    return Tensor(out.astype(_np_dtype(chosen)))


fixup_module_metadata(__name__, globals())
del fixup_module_metadata
