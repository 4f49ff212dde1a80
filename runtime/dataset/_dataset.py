"""`Dataset`: the base of every dataset, with MindSpore's pipeline methods.

A pipeline is a chain of immutable nodes: each operation (`batch`, `map`,
`shuffle`, ...) returns a new dataset wrapping the old one. Iterating starts a
*pass*: rows are pulled from the source in blocks (see `_block`), and where the
chain below allows random access (see `_access`), a batch is one slice or one
gather per column.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from ..validation import check_bool
from ._access import Access, spans
from ._block import Block, Row, block_len, group_rows, split_rows
from ._checks import check_column_list, check_int, check_names_exist
from ._random import PEEK_PASS, draw_permutation

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ._combine import ConcatDataset, ZipDataset
    from ._filter import FilterDataset
    from ._iterators import DictIterator, TupleIterator
    from ._padded_batch import PaddedBatchDataset
    from ._pipeline import (
        BatchDataset,
        ColumnsDataset,
        MapDataset,
        RepeatDataset,
        ShuffleDataset,
        SkipDataset,
        TakeDataset,
    )
    from ._random import Pass

__all__ = ["INFINITE", "ROW_CHUNK", "Dataset"]

INFINITE = -1
"""Row count of a pipeline that repeats forever."""

ROW_CHUNK = 64
"""Rows fetched at once when a pipeline without batch is iterated row by row."""

_INT32_MAX = 2**31 - 1


class Dataset:
    """Base class of every dataset; not meant to be subclassed by users.

    Use a source (`NumpySlicesDataset`, `GeneratorDataset`, `MnistDataset`, ...)
    and chain operations on it, as in MindSpore.

    Args:
        children: The datasets this one reads from.
    """

    def __init__(self, children: Sequence[Dataset] = ()) -> None:
        self.children: list[Dataset] = list(children)
        self._counted: int | None = None

    # --- the node protocol (internal) -----------------------------------------------
    def _names(self) -> list[str]:
        """Return the column names."""
        return self.children[0]._names()

    def _row_count(self) -> int | None:
        """Return the rows per pass, `INFINITE`, or None when unknown without iterating."""
        raise NotImplementedError

    @property
    def _random_accessible(self) -> bool:
        """Whether `_access` returns an `Access` (decided without starting a pass)."""
        return False

    @property
    def _prefers_rows(self) -> bool:
        """Whether this node produces rows more cheaply than blocks."""
        return False

    def _access(self, p: Pass) -> Access | None:
        """Return random access to the rows of pass `p`, or None."""
        return None

    def _blocks(self, p: Pass, size: int) -> Iterator[Block]:
        """Yield the rows of pass `p` as blocks of about `size` rows."""
        access = self._access(p)
        if access is not None:
            return spans(access, size)
        return self._stream_blocks(p, size)

    def _rows(self, p: Pass) -> Iterator[Row]:
        """Yield the rows of pass `p` one by one."""
        access = self._access(p)
        if access is not None:
            return split_rows(spans(access, ROW_CHUNK))
        return self._stream_rows(p)

    def _stream_blocks(self, p: Pass, size: int) -> Iterator[Block]:
        return group_rows(self._stream_rows(p), size)

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        return split_rows(self._stream_blocks(p, ROW_CHUNK))

    # --- operations ---------------------------------------------------------------
    def batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_workers: int | None = None,
        **kwargs: Any,
    ) -> BatchDataset:
        """Combine `batch_size` consecutive rows into one, stacking each column.

        Args:
            batch_size: Rows per batch, an int in [1, 2**31 - 1].
            drop_remainder: Drop the last batch if it has fewer than `batch_size` rows.
            num_parallel_workers: Accepted for compatibility; batching runs in the
                calling thread.
            **kwargs: `pad_info` (MindSpore 1.x's) pads as `padded_batch` does;
                `per_batch_map`, `input_columns` and `output_columns` are not
                supported (must stay None);
                `python_multiprocessing` and `max_rowsize` are accepted and ignored.

        Returns:
            The batched dataset: each row holds arrays with a leading batch axis.

        Raises:
            TypeError: If `batch_size` is not an int or `drop_remainder` not a bool.
            ValueError: If `batch_size` is out of range.
            RuntimeError: While iterating, if rows of one batch differ in shape or dtype.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> data = ds.NumpySlicesDataset({"x": np.zeros((10, 3))}, shuffle=False)
            >>> data.batch(4, drop_remainder=True).get_dataset_size()
            2
        """
        from ._padded_batch import PaddedBatchDataset
        from ._pipeline import BatchDataset

        pad_info = kwargs.pop("pad_info", None)
        if pad_info is not None:  # MindSpore 1.x's spelling of padded_batch
            kwargs["num_parallel_workers"] = num_parallel_workers
            return PaddedBatchDataset(
                self, pad_info, (batch_size, drop_remainder, kwargs)
            )
        return BatchDataset(self, batch_size, drop_remainder, kwargs)

    def padded_batch(
        self,
        batch_size: int,
        drop_remainder: bool = False,
        num_parallel_workers: int | None = None,
        pad_info: dict[str, Any] | None = None,
    ) -> PaddedBatchDataset:
        """Batch as `batch` does, first padding rows of different shapes to one shape per column.

        Args:
            batch_size: Rows per batch, an int in [1, 2**31 - 1].
            drop_remainder: Drop the last batch if it has fewer than `batch_size` rows.
            num_parallel_workers: Accepted for compatibility.
            pad_info: `{column: (shape, pad_value)}`: pad that column's rows at
                the end of each dimension up to `shape` (None, or None in a
                dimension: the longest row of the batch) with `pad_value`; a
                column's value may also be None, meaning `(None, 0)`. `{}` pads
                every column with 0; None pads nothing (as `batch`).

        Raises:
            TypeError: If an argument has the wrong type.
            ValueError: If `batch_size` is out of range or `pad_info` names a missing column.
            RuntimeError: While iterating, if a row is larger than its pad shape,
                or the ranks of a column's rows differ from each other or the pad shape.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> data = ds.GeneratorDataset(lambda: ((np.arange(n),) for n in (1, 3)), ["x"])
            >>> next(data.padded_batch(2, pad_info={"x": (None, -1)}).create_tuple_iterator(output_numpy=True))[0]
            array([[ 0, -1, -1],
                   [ 0,  1,  2]])
        """
        from ._padded_batch import PaddedBatchDataset

        batching = (
            batch_size,
            drop_remainder,
            {"num_parallel_workers": num_parallel_workers},
        )
        return PaddedBatchDataset(self, pad_info, batching)

    def zip(self, datasets: Dataset | tuple[Dataset, ...]) -> ZipDataset:
        """Put the columns of `datasets` after this dataset's, row by row; as long as the shortest.

        Args:
            datasets: A dataset or a tuple of datasets; column names must not repeat.

        Raises:
            TypeError: If `datasets` is not a Dataset or a tuple of them.
            ValueError: If two datasets share a column name.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> a = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False)
            >>> b = ds.NumpySlicesDataset({"y": np.arange(3)}, shuffle=False)
            >>> a.zip(b).get_col_names(), a.zip(b).get_dataset_size()
            (['x', 'y'], 3)
        """
        from ._combine import ZipDataset, datasets_argument

        owner = "Dataset.zip"
        return ZipDataset([self, *datasets_argument(datasets, (tuple,), owner)], owner)

    def concat(self, datasets: Dataset | list[Dataset]) -> ConcatDataset:
        """Append the rows of `datasets` after this dataset's (also spelled `+`).

        Args:
            datasets: A dataset or a list of datasets with the same columns.

        Raises:
            TypeError: If `datasets` is not a Dataset or a list of them.
            ValueError: If the column names differ, or the list is empty.
            RuntimeError: While iterating, if a column's dtype or rank differs between datasets.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> a = ds.NumpySlicesDataset({"x": np.arange(2)}, shuffle=False)
            >>> [int(r[0]) for r in (a + a).create_tuple_iterator(output_numpy=True)]
            [0, 1, 0, 1]
        """
        from ._combine import ConcatDataset, datasets_argument

        owner = "Dataset.concat"
        return ConcatDataset(
            [self, *datasets_argument(datasets, (list,), owner)], owner
        )

    def __add__(self, datasets: Dataset) -> ConcatDataset:
        """`a + b` is `a.concat(b)`."""
        return self.concat(datasets)

    def filter(
        self,
        predicate: Any,
        input_columns: str | Sequence[str] | None = None,
        num_parallel_workers: int | None = None,
    ) -> FilterDataset:
        """Keep the rows for which `predicate(*columns)` is true.

        Args:
            predicate: Called with the `input_columns` of each row (numpy arrays);
                its result's truth keeps the row.
            input_columns: The columns passed; default all, in order.
            num_parallel_workers: Accepted for compatibility.

        Raises:
            TypeError: If `predicate` is not callable or `input_columns` not a str or list of str.
            ValueError: If a column does not exist.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> data = ds.NumpySlicesDataset({"x": np.arange(6)}, shuffle=False)
            >>> [int(r[0]) for r in data.filter(lambda x: x % 2 == 0).create_tuple_iterator(output_numpy=True)]
            [0, 2, 4]
        """
        from ._filter import FilterDataset

        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def shuffle(self, buffer_size: int) -> ShuffleDataset:
        """Shuffle rows through a buffer of `buffer_size` rows, as MindSpore does.

        The first `buffer_size` rows fill the buffer; each output row is drawn at
        random from it and replaced by the next input row. A buffer at least as
        large as the dataset gives a uniform shuffle. Every pass draws a new order;
        the orders are reproducible through `cadence.set_seed` or
        `cadence.dataset.config.set_seed`.

        Args:
            buffer_size: An int in [2, 2**31 - 1].

        Raises:
            TypeError: If `buffer_size` is not an int.
            ValueError: If `buffer_size` is out of range.
        """
        from ._pipeline import ShuffleDataset

        return ShuffleDataset(
            self,
            check_int(
                buffer_size,
                "buffer_size",
                "Dataset.shuffle",
                minimum=2,
                maximum=_INT32_MAX,
            ),
        )

    def map(
        self,
        operations: Any,
        input_columns: str | Sequence[str] | None = None,
        output_columns: str | Sequence[str] | None = None,
        num_parallel_workers: int | None = None,
        **kwargs: Any,
    ) -> MapDataset:
        """Apply operations to columns of every row.

        Args:
            operations: One operation or a list applied in order: cadence's
                `vision`/`transforms` operations or any callable taking the input
                columns (numpy arrays) and returning an array or a tuple of arrays.
            input_columns: The columns fed to the first operation; default the
                first column.
            output_columns: Names of the columns the last operation returns;
                default `input_columns`. Required when their number differs. They
                take the place of the input columns.
            num_parallel_workers: Accepted for compatibility; maps run in the
                calling thread.
            **kwargs: MindSpore's `python_multiprocessing`, `max_rowsize`,
                `offload`, `cache` and `callbacks` are accepted; `cache` and
                `callbacks` must stay None.

        Raises:
            TypeError: If an operation is not callable or a column argument is not str/list of str.
            ValueError: If a column does not exist or output names collide.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> data = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False)
            >>> [int(r[0].asnumpy()) for r in data.map(lambda x: x * 10, "x")]
            [0, 10, 20]
        """
        from ._pipeline import MapDataset

        return MapDataset(self, operations, input_columns, output_columns, kwargs)

    def repeat(self, count: int | None = None) -> RepeatDataset:
        """Repeat the dataset `count` times; None or -1 repeats forever.

        Each repetition is a new pass (new shuffle orders). A batch after
        `repeat` may span two repetitions, as in MindSpore.

        Raises:
            TypeError: If `count` is not an int or None.
            ValueError: If `count` is 0 or below -1.
        """
        from ._pipeline import RepeatDataset

        if count is None:
            count = INFINITE
        check_int(count, "count", "Dataset.repeat", minimum=-1, maximum=_INT32_MAX)
        if count == 0:
            raise ValueError(
                "For 'Dataset.repeat', the argument 'count' must be -1 (forever) or >= 1, but got 0."
            )
        return RepeatDataset(self, count)

    def take(self, count: int = -1) -> TakeDataset:
        """Keep only the first `count` rows (-1 keeps all).

        Raises:
            TypeError: If `count` is not an int.
            ValueError: If `count` is 0 or below -1.
        """
        from ._pipeline import TakeDataset

        check_int(count, "count", "Dataset.take", minimum=-1, maximum=_INT32_MAX)
        if count == 0:
            raise ValueError(
                "For 'Dataset.take', the argument 'count' must be -1 (all) or >= 1, but got 0."
            )
        return TakeDataset(self, count)

    def skip(self, count: int) -> SkipDataset:
        """Drop the first `count` rows.

        Raises:
            TypeError: If `count` is not an int.
            ValueError: If `count` is negative.
        """
        from ._pipeline import SkipDataset

        return SkipDataset(
            self,
            check_int(count, "count", "Dataset.skip", minimum=0, maximum=_INT32_MAX),
        )

    def split(
        self, sizes: list[int] | list[float], randomize: bool = True
    ) -> tuple[Dataset, ...]:
        """Cut the dataset into consecutive parts of the given sizes.

        Args:
            sizes: Row counts that add up to `get_dataset_size()`, or shares in (0, 1]
                that add up to 1 (each rounded; the first part takes the rounding
                difference).
            randomize: Draw the rows of each part at random (once, from the dataset
                seed), not in order; needs a random-access pipeline (in-memory and
                map-style sources, and `map`/`take`/`skip`/`project` over them).

        Returns:
            One dataset per size. Each keeps its rows on every pass.

        Raises:
            TypeError: If `sizes` is not a list or `randomize` not a bool.
            ValueError: If `sizes` is empty, mixes ints and floats, or holds shares
                outside (0, 1] or not adding up to 1; if `randomize` meets a pipeline
                without random access.
            RuntimeError: If the counts do not add up to the dataset size, or a share
                rounds to no row.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> data = ds.NumpySlicesDataset({"x": np.arange(10)}, shuffle=False)
            >>> train, test = data.split([0.7, 0.3], randomize=False)
            >>> train.get_dataset_size(), test.get_dataset_size()
            (7, 3)
        """
        from ._pipeline import SubsetDataset

        owner = "Dataset.split"
        check_bool(randomize, "randomize", owner)
        total = self.get_dataset_size()
        counts = split_counts(sizes, total, owner)
        if not randomize:
            starts = np.cumsum([0, *counts[:-1]]).tolist()
            return tuple(
                self.skip(start).take(n)
                for start, n in zip(starts, counts, strict=True)
            )
        if not self._random_accessible:
            raise ValueError(
                f"For '{owner}', randomize=True needs a pipeline with random access (an in-memory or "
                "map-style source, map/take/skip/project over it), but this one streams its rows; "
                "pass randomize=False, or shuffle the source instead."
            )
        order = draw_permutation(total)
        bounds = np.cumsum([0, *counts]).tolist()
        return tuple(
            SubsetDataset(self, order[lo:hi]) for lo, hi in itertools.pairwise(bounds)
        )

    def project(self, columns: str | Sequence[str]) -> ColumnsDataset:
        """Keep only `columns`, in the given order.

        Raises:
            TypeError: If `columns` is not a str or list of str.
            ValueError: If a column does not exist.
        """
        from ._pipeline import ColumnsDataset

        cols = check_column_list(columns, "columns", "Dataset.project")
        names = self._names()
        check_names_exist(cols, names, "columns", "Dataset.project")
        return ColumnsDataset(self, [names.index(c) for c in cols], cols)

    def rename(
        self, input_columns: str | Sequence[str], output_columns: str | Sequence[str]
    ) -> ColumnsDataset:
        """Rename `input_columns` to `output_columns` (same length).

        Raises:
            TypeError: If an argument is not a str or list of str.
            ValueError: If a column does not exist, the lengths differ or names collide.
        """
        from ._pipeline import ColumnsDataset

        old = check_column_list(input_columns, "input_columns", "Dataset.rename")
        new = check_column_list(output_columns, "output_columns", "Dataset.rename")
        names = self._names()
        check_names_exist(old, names, "input_columns", "Dataset.rename")
        if len(old) != len(new):
            raise ValueError(
                f"For 'Dataset.rename', 'input_columns' and 'output_columns' must have the same length, but got {old!r} and {new!r}."
            )
        mapping = dict(zip(old, new, strict=True))
        renamed = [mapping.get(n, n) for n in names]
        if len(set(renamed)) != len(renamed):
            raise ValueError(
                f"For 'Dataset.rename', the renamed columns {renamed!r} contain a duplicate."
            )
        return ColumnsDataset(self, list(range(len(names))), renamed)

    # --- queries ------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Return the number of rows (batches after `batch`) one pass yields; -1 if it repeats forever.

        For a generator source without `__len__` the pipeline is iterated once
        to count, as MindSpore does; the count is remembered.
        """
        n = self._row_count()
        if n is not None:
            return n
        if self._counted is None:
            if self._prefers_rows:
                self._counted = sum(1 for _ in self._rows(PEEK_PASS))
            else:
                self._counted = sum(block_len(b) for b in self._blocks(PEEK_PASS, 1024))
        return self._counted

    def get_col_names(self) -> list[str]:
        """Return the column names, in row order."""
        return list(self._names())

    def get_batch_size(self) -> int:
        """Return the batch size of the last `batch` in the pipeline, 1 without one."""
        return self._last_setting("batch_size")

    def get_repeat_count(self) -> int:
        """Return the count of the last `repeat` in the pipeline (-1 forever), 1 without one."""
        return self._last_setting("repeat_count")

    def _last_setting(self, attribute: str) -> int:
        # The int `attribute` of the nearest node up the pipeline that has one, else 1.
        node: Dataset | None = self
        while node is not None:
            value = getattr(node, attribute, None)
            if isinstance(value, int):
                return value
            node = node.children[0] if node.children else None
        return 1

    def output_shapes(self) -> list[list[int]]:
        """Return the shape of each column of the first row (batch).

        Raises:
            RuntimeError: If the dataset has no rows.
        """
        return [list(a.shape) for a in self._first_row("output_shapes")]

    def output_types(self) -> list[np.dtype[Any]]:
        """Return the numpy dtype of each column of the first row (batch).

        Raises:
            RuntimeError: If the dataset has no rows.
        """
        return [a.dtype for a in self._first_row("output_types")]

    def _first_row(self, caller: str) -> Row:
        for row in self._rows(PEEK_PASS):
            return row
        raise RuntimeError(
            f"For 'Dataset.{caller}', the dataset has no rows to read shapes and types from."
        )

    # --- iteration ----------------------------------------------------------------
    def create_tuple_iterator(
        self,
        columns: str | Sequence[str] | None = None,
        num_epochs: int = -1,
        output_numpy: bool = False,
        do_copy: bool = True,
    ) -> TupleIterator:
        """Return an iterator yielding each row as a list of `cadence.Tensor` (or numpy arrays).

        The iterator runs `num_epochs` passes (-1: forever): a `for` loop over it
        ends at the end of a pass, and the next loop starts the next pass.

        Args:
            columns: The columns to output, in order; default all.
            num_epochs: Number of passes, -1 for no limit.
            output_numpy: Yield numpy arrays instead of Tensors.
            do_copy: Accepted for compatibility. cadence never hands out memory
                that a later row overwrites: arrays are fresh, or read-only views
                of the dataset's own copy of the data (copy with `.copy()` to
                modify in place).

        Raises:
            TypeError: If an argument has the wrong type.
            ValueError: If a column does not exist or `num_epochs` is 0 or below -1.

        Example:
            >>> import numpy as np
            >>> import cadence.dataset as ds
            >>> data = ds.NumpySlicesDataset(([1, 2], [3, 4]), shuffle=False)
            >>> [[int(t.asnumpy()) for t in row] for row in data.create_tuple_iterator()]
            [[1, 3], [2, 4]]
        """
        from ._iterators import TupleIterator

        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(
        self, num_epochs: int = -1, output_numpy: bool = False, do_copy: bool = True
    ) -> DictIterator:
        """Return an iterator yielding each row as a dict `{column name: Tensor}`.

        Arguments as in `create_tuple_iterator`.
        """
        from ._iterators import DictIterator

        return DictIterator(self, num_epochs, output_numpy, do_copy)

    def __iter__(self) -> Iterator[list[Any]]:
        """Iterate one pass, each row a list of Tensors (as `create_tuple_iterator`)."""
        return iter(self.create_tuple_iterator(num_epochs=1))

    def reset(self) -> None:
        """Mark the end of an epoch (called by the training loop, as in MindSpore).

        Each iteration of a dataset already starts a fresh pass with a new
        shuffle order, so there is nothing to rewind.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(columns={self._names()!r})"


def split_counts(sizes: Any, total: int, owner: str) -> list[int]:
    """Row counts of `Dataset.split`'s parts, checked as MindSpore checks them."""
    if not isinstance(sizes, list):
        raise TypeError(
            f"For '{owner}', the argument 'sizes' must be a list of int or of float, but got {sizes!r}."
        )
    if not sizes:
        raise ValueError(f"For '{owner}', the argument 'sizes' must not be empty.")
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in sizes)
    if ints:
        if any(v < 1 for v in sizes):
            raise ValueError(
                f"For '{owner}', every size must be >= 1, but got {sizes!r}."
            )
        if sum(sizes) != total:
            raise RuntimeError(
                f"For '{owner}', the sizes {sizes!r} add up to {sum(sizes)}, not to the dataset size {total}."
            )
        return list(sizes)
    if not all(isinstance(v, float) for v in sizes):
        raise ValueError(
            f"For '{owner}', 'sizes' must be all ints or all floats, but got {sizes!r}."
        )
    if any(not 0 < v <= 1 for v in sizes):
        raise ValueError(
            f"For '{owner}', every share in 'sizes' must be in (0, 1], but got {sizes!r}."
        )
    if abs(sum(sizes) - 1) > 1e-6:
        raise ValueError(
            f"For '{owner}', the shares in 'sizes' must add up to 1, but got {sizes!r} (sum {sum(sizes)!r})."
        )
    counts = [round(v * total) for v in sizes]
    counts[0] += total - sum(counts)
    if any(n < 1 for n in counts):
        small = sizes[next(i for i, n in enumerate(counts) if n < 1)]
        raise RuntimeError(
            f"For '{owner}', the share {small!r} of {total} rows is no row; give larger shares."
        )
    return counts
