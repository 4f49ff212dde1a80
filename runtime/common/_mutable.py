"""`mutable` (`mindspore.mutable`, also `mindspore.common.mutable`).

In graph mode MindSpore compiles a graph per constant value of a scalar or
sequence argument; `mutable` marks the argument as a variable so one graph
serves every value. cadence compiles no graphs, so the value is returned as it
is; only its type is checked, as MindSpore checks it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..compute._tensor import Tensor

__all__ = ["mutable"]

T = TypeVar("T")

_ACCEPTED = "bool, int, float, Tensor, tuple, list, dict or their nestings"


def _check_nesting(value: Any, seen: set[int]) -> None:
    if isinstance(value, bool | int | float | Tensor):
        return
    if not isinstance(value, tuple | list | dict):
        raise TypeError(
            f"For 'mutable', the argument 'input_data' must be a {_ACCEPTED}, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
    if id(value) in seen:
        raise ValueError(
            "For 'mutable', the argument 'input_data' must not contain itself."
        )
    seen.add(id(value))
    for item in value.values() if isinstance(value, dict) else value:
        _check_nesting(item, seen)
    seen.discard(id(value))


def mutable(input_data: T, dynamic_len: bool = False) -> T:
    """Return `input_data` itself, as `mindspore.mutable` marks a graph argument variable.

    Args:
        input_data: A bool, int, float, Tensor, tuple, list or dict, or a nesting of them.
        dynamic_len: With True, `input_data` must be a tuple or list (MindSpore then lets
            its length vary between calls of a compiled graph).

    Raises:
        TypeError: For another type anywhere in `input_data`, a `dynamic_len` that is not a
            bool, or `dynamic_len=True` with something other than a tuple or list.
        ValueError: If `input_data` contains itself.

    Example:
        >>> import cadence as ms
        >>> ms.mutable((ms.Tensor(1), 2))
        (Tensor(shape=[], dtype=Int64, value= 1), 2)
    """
    if not isinstance(dynamic_len, bool):
        raise TypeError(
            f"For 'mutable', the argument 'dynamic_len' must be a bool, "
            f"but got {dynamic_len!r} of type {type(dynamic_len).__name__!r}."
        )
    _check_nesting(input_data, set())
    if dynamic_len and not isinstance(input_data, tuple | list):
        raise TypeError(
            f"For 'mutable', 'dynamic_len=True' needs a tuple or list as 'input_data', "
            f"but got {type(input_data).__name__!r}."
        )
    return input_data
