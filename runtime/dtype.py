"""The dtype namespace, as `mindspore.dtype` (`from cadence import dtype as mstype`)."""

from __future__ import annotations

from .compute._dtype import (
    Type as Type,
    __all__ as _all_dtype_names,
    bool_ as bool_,
    float16 as float16,
    float32 as float32,
    float64 as float64,
    int8 as int8,
    int16 as int16,
    int32 as int32,
    int64 as int64,
    uint8 as uint8,
    uint16 as uint16,
    uint32 as uint32,
    uint64 as uint64,
)

# The data types and `Type`; the numpy conversions stay cadence's own.
__all__ = [n for n in _all_dtype_names if n not in ("from_numpy", "to_numpy")]
