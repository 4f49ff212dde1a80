"""The dtype namespace, as `mindspore.dtype` (`from cadence import dtype as mstype`)."""

from __future__ import annotations

from typing import Any

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


def dtype_to_nptype(type_: Type) -> type:
    """The numpy scalar type of `type_` (`dtype_to_nptype(float32)` is `numpy.float32`), as MindSpore's."""
    if not isinstance(type_, Type):
        raise TypeError(
            f"For 'dtype_to_nptype', the argument 'type_' must be a cadence dtype such as "
            f"cadence.float32, but got {type_!r}."
        )
    return type_.np_dtype.type


def dtype_to_pytype(type_: Type) -> type:
    """The Python type holding one element of `type_`: bool, int or float."""
    kind = dtype_to_nptype(type_)(0).item()
    return type(kind)


def pytype_to_dtype(obj: Any) -> Type:
    """The dtype MindSpore gives a Python type: bool -> bool_, int -> int64, float -> float64 (a dtype is kept)."""
    if isinstance(obj, Type):
        return obj
    found = {bool: bool_, int: int64, float: float64}.get(obj)
    if found is None:
        raise TypeError(
            f"For 'pytype_to_dtype', the argument 'obj' must be bool, int, float or a dtype, but got {obj!r}."
        )
    return found


__all__ += ["dtype_to_nptype", "dtype_to_pytype", "pytype_to_dtype"]
