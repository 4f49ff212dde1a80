"""Converting dtype arguments (cadence types, numpy dtypes, names) to numpy dtypes."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["to_numpy_dtype"]


def to_numpy_dtype(value: Any, name: str, owner: str) -> np.dtype[Any]:
    """Return the numpy dtype for a cadence type (`cadence.int32`), numpy dtype, numpy type or name.

    Raises:
        TypeError: If `value` names no numeric or bool dtype.
    """
    np_dtype = getattr(value, "np_dtype", None)  # a cadence `Type`
    if isinstance(np_dtype, np.dtype):
        return np_dtype
    if value is bool:
        return np.dtype(np.bool_)
    dtype: np.dtype[Any] | None
    try:
        dtype = (
            np.dtype(value)
            if value is not None and not isinstance(value, int | float)
            else None
        )
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in "biuf":
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a numeric dtype such as cadence.int32 or numpy.float32, but got {value!r}."
        )
    result: np.dtype[Any] = dtype
    return result
