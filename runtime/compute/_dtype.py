"""Data types with MindSpore's names (`cadence.float32`, `cadence.int32`, ...).

A `Type` pairs MindSpore's spelling (its repr, e.g. `Float32`) with the numpy
dtype that stores the data. Types are singletons: compare with `==` or `is`.
"""

from __future__ import annotations

from typing import Any, Final, final

import numpy as np

__all__ = [
    "Type",
    "bool_",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "int8",
    "int16",
    "int32",
    "int64",
    "to_numpy",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
]


@final
class Type:
    """A tensor element type; its repr is MindSpore's name (`Float32`).

    Args:
        name: MindSpore's spelling, e.g. `"Float32"`.
        np_dtype: The numpy dtype that stores elements of this type.
    """

    __slots__ = ("_name", "_np")

    def __init__(self, name: str, np_dtype: Any) -> None:
        self._name = name
        self._np: np.dtype[Any] = np.dtype(np_dtype)

    @property
    def name(self) -> str:
        """MindSpore's spelling of the type."""
        return self._name

    @property
    def np_dtype(self) -> np.dtype[Any]:
        """The numpy dtype that stores elements of this type."""
        return self._np

    def __repr__(self) -> str:
        return self._name

    def __str__(self) -> str:
        return self._name

    def __reduce__(self) -> tuple[Any, ...]:
        return (from_numpy, (self._np,))


# Every type is defined through `_define`, which also makes it the answer of `from_numpy`
# for its numpy dtype: the list of types exists once.
_BY_NUMPY: Final[dict[np.dtype[Any], Type]] = {}


def _define(name: str, np_type: type[np.generic]) -> Type:
    t = Type(name, np_type)
    _BY_NUMPY[t.np_dtype] = t
    return t


float16: Final = _define("Float16", np.float16)
float32: Final = _define("Float32", np.float32)
float64: Final = _define("Float64", np.float64)
int8: Final = _define("Int8", np.int8)
int16: Final = _define("Int16", np.int16)
int32: Final = _define("Int32", np.int32)
int64: Final = _define("Int64", np.int64)
uint8: Final = _define("UInt8", np.uint8)
uint16: Final = _define("UInt16", np.uint16)
uint32: Final = _define("UInt32", np.uint32)
uint64: Final = _define("UInt64", np.uint64)
bool_: Final = _define("Bool", np.bool_)


def from_numpy(np_dtype: Any) -> Type:
    """Return the cadence type storing elements as `np_dtype`.

    Raises:
        TypeError: If numpy's dtype has no cadence counterpart (strings, objects, complex).
    """
    key = np.dtype(np_dtype)
    try:
        return _BY_NUMPY[key]
    except KeyError:
        raise TypeError(
            f"The numpy dtype {key!r} has no cadence type; supported: {sorted(str(k) for k in _BY_NUMPY)}."
        ) from None


def to_numpy(dtype: Any) -> np.dtype[Any]:
    """Return the numpy dtype for a cadence `Type`, a numpy dtype or a Python type.

    Raises:
        TypeError: If `dtype` names no supported type.
    """
    if isinstance(dtype, Type):
        return dtype.np_dtype
    if dtype is bool:
        return np.dtype(np.bool_)
    try:
        out: np.dtype[Any] = from_numpy(dtype).np_dtype
        return out
    except TypeError:
        raise TypeError(
            f"`dtype` must be a cadence type such as cadence.float32, but got {dtype!r}."
        ) from None
