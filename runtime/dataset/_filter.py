"""`Dataset.filter`: keep the rows a predicate accepts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._checks import check_column_list, check_int, check_names_exist
from ._dataset import Dataset

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from ._block import Row
    from ._random import Pass

__all__ = ["FilterDataset"]


class FilterDataset(Dataset):
    """The rows of `child` for which `predicate(*input columns)` is true.

    How many rows pass is known only by iterating, so the row count is counted
    (once) when asked for, as MindSpore does, and the node streams.

    Raises:
        TypeError: If `predicate` is not callable or `input_columns` not a str or list of str.
        ValueError: If a column of `input_columns` does not exist.
    """

    def __init__(
        self,
        child: Dataset,
        predicate: Any,
        input_columns: Any,
        num_parallel_workers: Any,
    ) -> None:
        owner = "Dataset.filter"
        if not callable(predicate):
            raise TypeError(
                f"For '{owner}', the argument 'predicate' must be callable, but got {predicate!r} of type "
                f"{type(predicate).__name__!r}."
            )
        if (
            num_parallel_workers is not None
        ):  # checked, then unused: filters run in the calling thread
            check_int(num_parallel_workers, "num_parallel_workers", owner, minimum=1)
        names = child._names()
        columns = (
            names
            if input_columns is None
            else check_column_list(input_columns, "input_columns", owner)
        )
        check_names_exist(columns, names, "input_columns", owner)
        super().__init__([child])
        self.predicate: Callable[..., Any] = predicate
        self.input_columns = columns
        self._idx = [names.index(c) for c in columns]

    def _row_count(self) -> int | None:
        return None

    _prefers_rows = True

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        return (r for r in self.children[0]._rows(p.child()) if self._keep(r))

    def _keep(self, row: Row) -> bool:
        try:
            return bool(self.predicate(*(row[i] for i in self._idx)))
        except Exception as exc:
            exc.add_note(
                f"(in the filter predicate {self.predicate!r} on columns {self.input_columns!r}; "
                "it must return a bool, or a value whose truth is clear, for each row)"
            )
            raise
