"""`TupleIterator` and `DictIterator`, as returned by `create_tuple_iterator` / `create_dict_iterator`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..compute._tensor import Tensor
from ..validation import check_bool
from ._checks import check_column_list, check_int, check_names_exist
from ._random import new_pass

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ._block import Array, Row
    from ._dataset import Dataset

__all__ = ["DictIterator", "TupleIterator"]


class _Iterator:
    """Runs passes over a dataset, `num_epochs` of them (-1: no limit).

    `next()` raises StopIteration at the end of each pass; the following `next()`
    starts the next pass, so `for` loops over the same iterator walk the epochs.
    """

    _owner = "Dataset.create_tuple_iterator"

    def __init__(
        self, dataset: Dataset, num_epochs: int, output_numpy: bool, do_copy: bool
    ) -> None:
        check_int(num_epochs, "num_epochs", self._owner, minimum=-1)
        if num_epochs == 0:
            raise ValueError(
                f"For '{self._owner}', the argument 'num_epochs' must be -1 (no limit) or >= 1, but got 0."
            )
        self._output_numpy = check_bool(output_numpy, "output_numpy", self._owner)
        check_bool(do_copy, "do_copy", self._owner)
        self._dataset = dataset
        self._epochs_left = num_epochs
        self._rows: Iterator[Row] | None = None

    def __iter__(self) -> Iterator[Any]:
        return self  # type: ignore[return-value]

    def _next_row(self) -> Row:
        rows = self._rows
        if rows is None:
            if self._epochs_left == 0:
                raise StopIteration
            if self._epochs_left > 0:
                self._epochs_left -= 1
            rows = self._rows = self._dataset._rows(new_pass())
        try:
            return next(rows)
        except StopIteration:
            self._rows = None
            raise

    def _convert(self, array: Array) -> Any:
        # Strings and bytes stay numpy arrays, as MindSpore yields them: a Tensor holds numbers.
        if self._output_numpy or array.dtype.kind in "SU":
            return array
        return Tensor(array)

    def get_col_names(self) -> list[str]:
        """Return the names of the columns this iterator yields."""
        return self._dataset.get_col_names()


class TupleIterator(_Iterator):
    """Yields each row as a list of `cadence.Tensor` (numpy arrays with `output_numpy=True`).

    Args:
        dataset: The dataset to iterate.
        columns: The columns to yield, in order; None for all.
        num_epochs: Number of passes, -1 for no limit.
        output_numpy: Yield numpy arrays instead of Tensors.
        do_copy: Accepted for compatibility (see `Dataset.create_tuple_iterator`).
    """

    def __init__(
        self,
        dataset: Dataset,
        columns: str | Sequence[str] | None,
        num_epochs: int,
        output_numpy: bool,
        do_copy: bool,
    ) -> None:
        super().__init__(dataset, num_epochs, output_numpy, do_copy)
        names = dataset.get_col_names()
        self._names = names
        self._select: list[int] | None = None
        if columns is not None:
            cols = check_column_list(columns, "columns", self._owner)
            check_names_exist(cols, names, "columns", self._owner)
            self._select = [names.index(c) for c in cols]
            self._names = cols

    def __next__(self) -> list[Any]:
        row = self._next_row()
        if self._select is not None:
            row = tuple(row[i] for i in self._select)
        return [self._convert(a) for a in row]

    def get_col_names(self) -> list[str]:
        """Return the names of the columns this iterator yields."""
        return list(self._names)


class DictIterator(_Iterator):
    """Yields each row as a dict `{column name: Tensor}` (numpy arrays with `output_numpy=True`).

    Args:
        dataset: The dataset to iterate.
        num_epochs: Number of passes, -1 for no limit.
        output_numpy: Yield numpy arrays instead of Tensors.
        do_copy: Accepted for compatibility (see `Dataset.create_tuple_iterator`).
    """

    _owner = "Dataset.create_dict_iterator"

    def __init__(
        self, dataset: Dataset, num_epochs: int, output_numpy: bool, do_copy: bool
    ) -> None:
        super().__init__(dataset, num_epochs, output_numpy, do_copy)
        self._names = dataset.get_col_names()

    def __next__(self) -> dict[str, Any]:
        row = self._next_row()
        return {
            name: self._convert(a) for name, a in zip(self._names, row, strict=True)
        }
