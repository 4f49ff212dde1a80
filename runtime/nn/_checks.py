"""Argument validation shared by the cells."""

from __future__ import annotations

from typing import Any

from .. import validation

__all__ = ["check_bool", "check_positive_int", "check_reduction", "pair"]


def check_positive_int(owner: str, name: str, value: Any) -> int:
    """Return `value` if it is an int > 0; raise TypeError / ValueError naming the argument."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be an int, but got {value!r}."
        )
    if value <= 0:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be positive, but got {value!r}."
        )
    return value


def check_bool(owner: str, name: str, value: Any) -> bool:
    """Return `value` if it is a bool; raise TypeError naming the argument (`cadence.validation`'s check)."""
    return validation.check_bool(value, name, owner)


def check_reduction(owner: str, reduction: Any) -> str:
    """Return `reduction` if it is 'mean', 'sum' or 'none'."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(
            f"For '{owner}', the argument 'reduction' must be 'mean', 'sum' or 'none', but got {reduction!r}."
        )
    return str(reduction)


def pair(owner: str, name: str, value: Any) -> tuple[int, int]:
    """Return an int or a pair of ints as a pair of positive ints."""
    items = (
        (value, value)
        if isinstance(value, int)
        else tuple(value)
        if isinstance(value, (tuple, list))
        else None
    )
    if items is None or len(items) != 2:
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be an int or a tuple of two ints, but got {value!r}."
        )
    for v in items:
        check_positive_int(owner, name, v)
    return int(items[0]), int(items[1])
