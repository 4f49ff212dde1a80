"""MindSpore's `mindspore.ops.primitive` path: `Primitive` and the `constexpr` decorator.

MindSpore evaluates a `constexpr` function while compiling a graph, on constant
arguments (shapes, dtypes). cadence runs eagerly, so the function simply runs when
called, with the same result.
"""

from __future__ import annotations

from typing import Any

from ._primitive import Primitive

__all__ = ["Primitive", "constexpr"]


def constexpr(
    fn: Any = None, get_instance: bool = True, name: str | None = None,
    reuse_result: bool = True, check: bool = True,
) -> Any:  # fmt: skip
    """Mark `fn` as computed from constants, as `mindspore.ops.constexpr`; usable bare or with options.

    Returns `fn` itself (the options concern graph compilation, which cadence does not do).
    """
    if fn is None:
        return constexpr
    if not callable(fn):
        raise TypeError(
            f"For 'constexpr', the argument 'fn' must be callable, but got {fn!r} of type "
            f"{type(fn).__name__!r}."
        )
    return fn
