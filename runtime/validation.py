"""Argument checks for public entry points, usable by callback and plugin authors.

Every message names where the check ran, the argument, what was expected and what
was received; the exception class is the one MindSpore raises for the same mistake
(TypeError for a wrong type, ValueError for a wrong value).

Example:
    >>> check_positive_int(0, "epoch", "Model.train")
    Traceback (most recent call last):
    ...
    ValueError: For 'Model.train', the argument 'epoch' must be an int > 0, but got 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "ASYNC_SAVE_MODES",
    "check_async_save",
    "check_bool",
    "check_choice",
    "check_int",
    "check_non_negative_int",
    "check_number",
    "check_positive_int",
    "check_positive_number",
    "check_type",
]


# The background writers a checkpoint save may use besides True/False.
ASYNC_SAVE_MODES = ("thread", "process")


def _where(owner: str | None) -> str:
    return f"For '{owner}', the" if owner else "The"


def _received(value: Any) -> str:
    return f"{value!r} of type {type(value).__name__!r}"


def _check_int(value: Any, name: str, owner: str | None, bound: str, ok: bool) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"{_where(owner)} argument '{name}' must be an int {bound}, but got {_received(value)}."
        )
    if not ok:
        raise ValueError(
            f"{_where(owner)} argument '{name}' must be an int {bound}, but got {value!r}."
        )
    return value


def check_int(
    value: Any,
    name: str,
    owner: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
) -> int:
    """Return `value` if it is an int (not a bool) within the inclusive bounds."""
    bound = _bound_text(minimum, maximum)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"{_where(owner)} argument '{name}' must be an int{bound}, but got {_received(value)}."
        )
    if (minimum is not None and value < minimum) or (
        maximum is not None and value > maximum
    ):
        raise ValueError(
            f"{_where(owner)} argument '{name}' must be an int{bound}, but got {value!r}."
        )
    return value


def _bound_text(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f" in [{minimum}, {maximum}]"
    if minimum is not None:
        return f" >= {minimum}"
    return "" if maximum is None else f" <= {maximum}"


def check_positive_int(value: Any, name: str, owner: str | None = None) -> int:
    """Return `value` if it is an int > 0 (bool is not an int here); else raise TypeError or ValueError."""
    return _check_int(value, name, owner, "> 0", isinstance(value, int) and value > 0)


def check_non_negative_int(value: Any, name: str, owner: str | None = None) -> int:
    """Return `value` if it is an int >= 0; else raise TypeError or ValueError."""
    return _check_int(value, name, owner, ">= 0", isinstance(value, int) and value >= 0)


def check_bool(value: Any, name: str, owner: str | None = None) -> bool:
    """Return `value` if it is a bool; else raise TypeError."""
    if not isinstance(value, bool):
        raise TypeError(
            f"{_where(owner)} argument '{name}' must be a bool, but got {_received(value)}."
        )
    return value


def check_async_save(value: Any, owner: str | None = None) -> bool | str:
    """Return `value` if it is a bool or one of `ASYNC_SAVE_MODES`; else raise TypeError or ValueError.

    `async_save` of `save_checkpoint` and of `CheckpointConfig`: True or False, or the
    writer to use (`'thread'` or `'process'`).
    """
    check_type(value, "async_save", (bool, str), owner)
    return check_choice(value, "async_save", (False, True, *ASYNC_SAVE_MODES), owner)  # type: ignore[no-any-return]


def check_number(
    value: Any,
    name: str,
    owner: str | None = None,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    inclusive: bool = True,
) -> float:
    """Return `value` if it is an int or float (not bool) within the bounds; else raise TypeError or ValueError."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(
            f"{_where(owner)} argument '{name}' must be a number, but got {_received(value)}."
        )
    low_ok = minimum is None or (value >= minimum if inclusive else value > minimum)
    high_ok = maximum is None or (value <= maximum if inclusive else value < maximum)
    if not (low_ok and high_ok):
        lo = "-inf" if minimum is None else repr(minimum)
        hi = "inf" if maximum is None else repr(maximum)
        brackets = ("[", "]") if inclusive else ("(", ")")
        raise ValueError(
            f"{_where(owner)} argument '{name}' must be in {brackets[0]}{lo}, {hi}{brackets[1]}, but got {value!r}."
        )
    return float(value)


def check_positive_number(value: Any, name: str, owner: str | None = None) -> float:
    """Return `value` as a float if it is an int or float (not bool) > 0; else raise ValueError.

    A ValueError for a wrong type too: the checks it replaced (timeouts, intervals) raised
    one, and callers' messages and tests rely on it.
    """
    if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
        raise ValueError(
            f"{_where(owner)} argument '{name}' must be a number > 0, but got {value!r}."
        )
    return float(value)


def check_choice(
    value: Any, name: str, choices: Iterable[Any], owner: str | None = None
) -> Any:
    """Return `value` if it is one of `choices`; else raise ValueError listing them."""
    options = list(choices)
    if value not in options:
        listed = ", ".join(repr(c) for c in options)
        raise ValueError(
            f"{_where(owner)} argument '{name}' must be one of {listed}, but got {value!r}."
        )
    return value


def check_type(
    value: Any, name: str, expected: type | tuple[type, ...], owner: str | None = None
) -> Any:
    """Return `value` if it is an instance of `expected`; else raise TypeError naming the expected types."""
    if not isinstance(value, expected):
        kinds = expected if isinstance(expected, tuple) else (expected,)
        names = " or ".join(repr(k.__name__) for k in kinds)
        raise TypeError(
            f"{_where(owner)} argument '{name}' must be of type {names}, but got {_received(value)}."
        )
    return value
