"""Argument checks shared by the dataset classes and operations.

Messages name the call, the argument, what was expected and what was received.
The exception class is MindSpore's: TypeError for a wrong type, ValueError for a
wrong value.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..validation import check_bool, check_int

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "USAGES",
    "check_column_list",
    "check_dataset_dir",
    "check_int",
    "check_names_exist",
    "check_optional_bool",
    "check_unsupported",
    "check_usage",
]

USAGES: Final = ("train", "test", "all")
"""The `usage` values of the file datasets (MNIST, CIFAR-10)."""


def _received(value: Any) -> str:
    return f"{value!r} of type {type(value).__name__!r}"


def check_optional_bool(value: Any, name: str, owner: str) -> bool | None:
    """Return `value` if it is a bool or None."""
    return None if value is None else check_bool(value, name, owner)


def check_column_list(value: Any, name: str, owner: str) -> list[str]:
    """Return a column argument (a str or a non-empty list/tuple of unique str) as a list."""
    if isinstance(value, str):
        return [value]
    if (
        not isinstance(value, list | tuple)
        or not value
        or not all(isinstance(v, str) for v in value)
    ):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a str or a non-empty list of str, but got {_received(value)}."
        )
    if len(set(value)) != len(value):
        raise ValueError(
            f"For '{owner}', the argument '{name}' must not repeat a column, but got {list(value)!r}."
        )
    return list(value)


def check_unsupported(owner: str, **kwargs: Any) -> None:
    """Raise NotImplementedError for a MindSpore argument cadence accepts only at its default (None)."""
    for name, value in kwargs.items():
        if value is not None:
            raise NotImplementedError(
                f"For '{owner}', the argument '{name}' is not supported by cadence yet; leave it at None (got {value!r})."
            )


def check_names_exist(
    columns: Sequence[str], available: Sequence[str], name: str, owner: str
) -> None:
    """Raise ValueError if a requested column is not among `available`."""
    for col in columns:
        if col not in available:
            raise ValueError(
                f"For '{owner}', the column {col!r} in '{name}' does not exist; the dataset's columns are {list(available)!r}."
            )


def check_usage(usage: Any, owner: str) -> str:
    """Return `usage` ("train", "test" or "all"; None means "all")."""
    if usage is None:
        return "all"
    if usage not in USAGES:
        raise ValueError(
            f"For '{owner}', the argument 'usage' must be one of {list(USAGES)!r} or None, but got {usage!r}."
        )
    return str(usage)


def check_dataset_dir(dataset_dir: Any, owner: str) -> Path:
    """Return `dataset_dir` as a Path, checking it is an existing directory."""
    if not isinstance(dataset_dir, str | Path):
        raise TypeError(
            f"For '{owner}', the argument 'dataset_dir' must be a str or Path, but got {type(dataset_dir).__name__!r}."
        )
    directory = Path(dataset_dir)
    if not directory.is_dir():
        raise ValueError(
            f"For '{owner}', the directory {str(directory)!r} given as 'dataset_dir' does not exist or is not a directory."
        )
    return directory
