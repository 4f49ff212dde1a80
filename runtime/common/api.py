"""MindSpore's `mindspore.common.api` path: the `jit`, `ms_function` and `jit_class` decorators.

MindSpore compiles a decorated function into a graph. cadence runs every
function eagerly and its kernels are compiled already, so both decorators return
the function unchanged: results are the same, and the options they take
(`mode`, `input_signature`, `jit_config`, `capture_mode`, ...) are accepted and
ignored. `jit_class` (which lets graph code use a class's instances) returns the
class unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["jit", "jit_class", "ms_function"]

C = TypeVar("C", bound=type)

F = TypeVar("F", bound="Callable[..., Any]")


def _decorate(owner: str, function: Any) -> Any:
    if function is not None and not callable(function):
        raise TypeError(
            f"For '{owner}', the argument 'function' must be callable or None, "
            f"but got {function!r} of type {type(function).__name__!r}."
        )
    if function is None:
        return lambda fn: _decorate(owner, fn)
    return function


@overload
def jit(function: F, /, **options: Any) -> F: ...
@overload
def jit(function: None = None, /, **options: Any) -> Callable[[F], F]: ...
def jit(function: Any = None, /, **options: Any) -> Any:
    """Mark a function for graph compilation, as `mindspore.jit`; cadence runs it as it is.

    Usable bare (`@jit`) or with MindSpore's options (`@jit(jit_level="O1")`).

    Example:
        >>> import cadence as ms
        >>> @ms.jit
        ... def double(x):
        ...     return x * 2
        >>> double(ms.Tensor([1.0]))
        Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00])
    """
    return _decorate("jit", function)


@overload
def ms_function(function: F, /, **options: Any) -> F: ...
@overload
def ms_function(function: None = None, /, **options: Any) -> Callable[[F], F]: ...
def ms_function(function: Any = None, /, **options: Any) -> Any:
    """The name `jit` had before MindSpore 2.0 (`@ms_function`); runs the function as it is."""
    return _decorate("ms_function", function)


def jit_class(cls: C) -> C:
    """Mark a class usable in graph code, as `mindspore.jit_class`; cadence returns the class as it is.

    Raises:
        TypeError: If `cls` is not a class, or is a Cell (MindSpore checks the same).

    Example:
        >>> import cadence as ms
        >>> @ms.jit_class
        ... class Scale:
        ...     def __init__(self, factor):
        ...         self.factor = factor
        >>> Scale(2.0).factor
        2.0
    """
    if not isinstance(cls, type):
        raise TypeError(
            f"For 'jit_class', the argument 'cls' must be a class, but got {cls!r} of type {type(cls).__name__!r}."
        )
    from ..nn import Cell

    if issubclass(cls, Cell):
        raise TypeError(
            f"For 'jit_class', the argument 'cls' must be a user-defined class, not a Cell, but got {cls!r}."
        )
    return cls
