"""`ReadOnly`: a read-only attribute backed by `self._<name>`, for settings MindSpore exposes as properties."""

from __future__ import annotations

from typing import Any, Generic, NoReturn, Self, TypeVar, overload

__all__ = ["ReadOnly"]

T = TypeVar("T")


class ReadOnly(Generic[T]):
    """Reads `self._<name>`; assigning raises AttributeError, as for a property without a setter.

    One line per setting instead of a five-line property each: `CheckpointConfig`
    has eighteen of them.

    Example:
        >>> class Config:
        ...     steps = ReadOnly[int]("Steps between saves.")
        ...     def __init__(self) -> None:
        ...         self._steps = 5
        >>> Config().steps
        5
    """

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> Self: ...

    @overload
    def __get__(self, obj: object, objtype: type | None = None) -> T: ...

    def __get__(self, obj: object | None, objtype: type | None = None) -> Any:
        return self if obj is None else getattr(obj, f"_{self._name}")

    def __set__(self, obj: object, value: Any) -> NoReturn:
        raise AttributeError(
            f"property {self._name!r} of {type(obj).__name__!r} object has no setter"
        )
