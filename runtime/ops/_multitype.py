"""`MultitypeFuncGraph`, `HyperMap` and `Map`: the function-dispatch helpers of MindSpore's composite ops.

Custom training cells use them to apply one function to every gradient
(`hyper_map(F.partial(clip_grad, 1, 1.0), grads)`), choosing the overload by the
types of the arguments, as MindSpore's graph compiler does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, final

from ..compute._tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["HyperMap", "Map", "MultitypeFuncGraph"]

# MindSpore's type names in `register(...)`, and the Python values each matches.
_TYPE_NAMES: Final[dict[str, Callable[[Any], bool]]] = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "Number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "Bool": lambda v: isinstance(v, bool),
    "String": lambda v: isinstance(v, str),
    "Tuple": lambda v: isinstance(v, tuple),
    "List": lambda v: isinstance(v, list),
    "Dictionary": lambda v: isinstance(v, dict),
    "Function": callable,
    "None": lambda v: v is None,
}


@final
class MultitypeFuncGraph:
    """A function with one implementation per tuple of argument types, as `mindspore.ops.MultitypeFuncGraph`.

    Args:
        name: The function's name (used in error messages).
        read_value: Accepted for MindSpore compatibility.

    Example:
        >>> from cadence import ops
        >>> scale = ops.MultitypeFuncGraph("scale")
        >>> @scale.register("Number", "Number")
        ... def _(a, b):
        ...     return a * b
        >>> scale(2, 3)
        6
    """

    def __init__(self, name: str, read_value: bool = False) -> None:
        if not isinstance(name, str):
            raise TypeError(
                f"For 'MultitypeFuncGraph', the argument 'name' must be a str, but got {name!r}."
            )
        self.name = name
        self._overloads: list[tuple[tuple[str, ...], Callable[..., Any]]] = []

    def register(
        self, *type_names: str
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Return a decorator registering an implementation for arguments of these MindSpore type names."""
        unknown = [t for t in type_names if t not in _TYPE_NAMES]
        if unknown:
            raise ValueError(
                f"For 'MultitypeFuncGraph.register', the type names must be among {sorted(_TYPE_NAMES)}, "
                f"but got {unknown!r}."
            )

        def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._overloads.append((type_names, fn))
            return fn

        return decorate

    def __call__(self, *args: Any) -> Any:
        for names, fn in self._overloads:
            if len(names) == len(args) and all(
                _TYPE_NAMES[n](a) for n, a in zip(names, args, strict=True)
            ):
                return fn(*args)
        got = tuple(type(a).__name__ for a in args)
        registered = [names for names, _ in self._overloads]
        raise TypeError(
            f"For '{self.name}', no registered overload takes arguments of types {got}; "
            f"registered: {registered}."
        )


def _map(fn: Callable[..., Any], seqs: tuple[Any, ...], deep: bool) -> Any:
    if seqs and all(isinstance(s, tuple | list) for s in seqs):
        lengths = {len(s) for s in seqs}
        if len(lengths) != 1:
            raise ValueError(
                f"For 'HyperMap', the sequences must have the same length, but got lengths {sorted(lengths)}."
            )
        if deep:
            return tuple(_map(fn, items, deep) for items in zip(*seqs, strict=True))
        return tuple(fn(*items) for items in zip(*seqs, strict=True))
    return fn(*seqs)


class _Mapper:
    _deep: bool

    def __init__(
        self, ops: Callable[..., Any] | None = None, reverse: bool = False
    ) -> None:
        if ops is not None and not callable(ops):
            raise TypeError(
                f"For '{type(self).__name__}', the argument 'ops' must be callable or None, but got {ops!r}."
            )
        self.ops = ops

    def __call__(self, *args: Any) -> Any:
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        return _map(fn, seqs, self._deep)


@final
class HyperMap(_Mapper):
    """Apply a function to the elements of tuples (recursively into nested tuples), as `mindspore.ops.HyperMap`.

    Args:
        ops: The function; None means the first call argument is the function.
        reverse: Accepted for MindSpore compatibility (the order of application does not change results here).
    """

    _deep = True


@final
class Map(_Mapper):
    """Apply a function to the elements of tuples (one level), as `mindspore.ops.Map`.

    Args:
        ops: The function; None means the first call argument is the function.
        reverse: Accepted for MindSpore compatibility.
    """

    _deep = False
