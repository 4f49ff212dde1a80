"""`Primitive` and the factory that builds MindSpore's operator classes from one table.

MindSpore code creates an operator object with its attributes, then calls it on
tensors: `ops.ReduceMean(keep_dims=True)(x, 1)`. Each class here is built by
`primitive(name, impl, ...)` from an implementation written on cadence's
functional ops, so the classes are differentiable wherever those ops are, and
their constructors check their attributes as MindSpore's do.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Final

from ..compute import _dtype

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Self

__all__ = ["REQUIRED", "Primitive", "Sizes", "primitive"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Final = _Required()
"""Marks a constructor attribute without a default (`ops.Pad(paddings)`)."""


class Sizes(int):
    """Marks a size attribute whose default is an int but which also takes a tuple (`stride=Sizes(1)`)."""

    def __repr__(self) -> str:
        return int.__repr__(self)


class Primitive:
    """Base of the operator classes (`ops.Abs`, `ops.ReduceMean`, ...): an operator with fixed attributes.

    An instance is called like a function on tensors. Its attributes are
    readable by name (`op.keep_dims`) and in `op.attrs`; `add_prim_attr`
    records more, as MindSpore's does (they change nothing here).
    """

    name: str
    """The operator's name, as MindSpore spells it (`"ReduceMean"`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.attrs: dict[str, Any] = {}

    def add_prim_attr(self, name: str, value: Any) -> Self:
        """Record an attribute and return the operator."""
        self.attrs[name] = value
        return self

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no computation.")

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.attrs.items())
        return f"Prim[{self.name}]" + (f"<{shown}>" if shown else "")


class _TableOperator(Primitive):
    """The base `primitive` builds on: its constructor takes the table's attributes."""

    _call_kwargs: dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError  # replaced in every class `primitive` builds

    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: the attributes are instance
        # attributes already; this tells the type checker they exist.
        attrs = self.__dict__.get("attrs", {})
        if name in attrs:
            return attrs[name]
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )


def _check_attr(op: str, name: str, value: Any, default: Any) -> Any:
    """Check `value` against the kind of its default; MindSpore raises TypeError for a wrong type."""
    if default is REQUIRED or value is default or value is None:
        return value
    kind: tuple[type, ...]
    if isinstance(default, Sizes):  # an int or a tuple of ints, checked by the op
        items = value if isinstance(value, tuple | list) else (value,)
        ok = all(isinstance(i, int) and not isinstance(i, bool) for i in items)
        kind = (int, tuple)
    elif isinstance(default, bool):
        ok, kind = isinstance(value, bool), (bool,)
    elif isinstance(default, int):
        ok, kind = isinstance(value, int) and not isinstance(value, bool), (int,)
    elif isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        kind = (float,)
    elif isinstance(default, tuple):  # an axis: an int or a tuple/list of ints
        items = value if isinstance(value, tuple | list) else (value,)
        ok = all(isinstance(i, int) and not isinstance(i, bool) for i in items)
        kind = (int, tuple)
    elif isinstance(default, _dtype.Type):
        ok, kind = isinstance(value, _dtype.Type), (_dtype.Type,)
    elif (
        default is None
    ):  # optional with no kind of its own (`Unstack`'s num): the op checks it
        return value
    else:
        ok, kind = isinstance(value, type(default)), (type(default),)
    if not ok:
        expected = " or ".join(k.__name__ for k in kind)
        raise TypeError(
            f"For '{op}', the argument '{name}' must be {expected}, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
    return tuple(value) if isinstance(value, list) else value


def primitive(
    name: str, impl: Callable[..., Any], doc: str, **attrs: Any
) -> type[_TableOperator]:
    """Build the operator class `name`: constructor attributes `attrs` (name: default), calls `impl`.

    `impl(*inputs, **attributes)` computes the result; the constructor takes
    the attributes positionally or by keyword, in the order given here (which
    is MindSpore's), and checks each against the kind of its default.
    """
    params = [
        inspect.Parameter(
            key,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if default is REQUIRED else default,
        )
        for key, default in attrs.items()
    ]
    signature = inspect.Signature(params)

    def __init__(self: _TableOperator, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        Primitive.__init__(self, name)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(
                f"For '{name}', the arguments do not match `{name}{signature}`: {exc}."
            ) from None
        bound.apply_defaults()
        for key, value in bound.arguments.items():
            checked = _check_attr(name, key, value, attrs[key])
            self.attrs[key] = checked
            setattr(self, key, checked)
        # The keyword arguments of every call, built once: a call costs about one
        # function call more than the functional op (`add_prim_attr` adds none).
        self._call_kwargs = dict(self.attrs)

    def __call__(self: _TableOperator, *inputs: Any) -> Any:  # noqa: N807
        return impl(*inputs, **self._call_kwargs)

    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *params]
    )
    call_signature = inspect.signature(impl)
    __call__.__signature__ = call_signature.replace(  # type: ignore[attr-defined]
        parameters=[
            inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
            *(p for p in call_signature.parameters.values() if p.name not in attrs),
        ]
    )
    namespace = {
        "__init__": __init__,
        "__call__": __call__,
        "__doc__": doc,
        "__module__": "cadence.ops",
        "__qualname__": name,
    }
    return type(name, (_TableOperator,), namespace)
