"""Source datasets over Python data (`NumpySlicesDataset`, `GeneratorDataset`) and the in-memory bases of the file readers."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from ._access import Access, ColumnsAccess, IndexArray, ReadAccess
from ._block import Array, Block, Row, stack_rows
from ._checks import (
    check_column_list,
    check_dataset_dir,
    check_int,
    check_optional_bool,
    check_unsupported,
    check_usage,
)
from ._dataset import Dataset
from ._dtypes import to_numpy_dtype
from ._shard import Reading, RowOrder, source_order

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence
    from pathlib import Path

    from ._random import Pass

__all__ = [
    "FileRowsDataset",
    "GeneratorDataset",
    "ImageDirectoryDataset",
    "InMemoryDataset",
    "NumpySlicesDataset",
]


def check_num_samples(value: Any, owner: str) -> int | None:
    """Return `num_samples` (None: all rows, else an int >= 1)."""
    return None if value is None else check_int(value, "num_samples", owner, minimum=1)


class InMemoryDataset(Dataset):
    """A source whose columns are numpy arrays held in memory (base of the array-backed sources).

    The arrays are made read-only: batches are views or gathers of them, so
    nothing a user does to an output can change the dataset.

    Args:
        columns: One array per column; the first axis indexes the rows.
        names: The column names.
        owner: The public class, named in argument errors.
        reading: Rows per pass, shuffling, shards or a sampler (see `_shard.source_order`).
    """

    def __init__(
        self,
        columns: Sequence[Array],
        names: Sequence[str],
        owner: str,
        reading: Reading,
    ) -> None:
        super().__init__()
        self._columns = [_readonly(c) for c in columns]
        self._column_names = list(names)
        self._order = source_order(len(self._columns[0]), owner, reading)

    def _names(self) -> list[str]:
        return list(self._column_names)

    def _row_count(self) -> int:
        return self._order.count

    _random_accessible = True

    def _access(self, p: Pass) -> Access:
        return ColumnsAccess(self._columns, self._order.count, self._order.order(p))


class FileRowsDataset(Dataset):
    """A source whose rows are read from files one by one, as they are fetched (`_read`).

    A subclass sets `_order` (from `source_order`) and says how one row is read.
    """

    _order: RowOrder

    def _row_count(self) -> int:
        return self._order.count

    _random_accessible = True

    _prefers_rows = True

    def _access(self, p: Pass) -> Access:
        return ReadAccess(self._read, self._order.positions(p))

    def _read(self, index: int) -> Row:
        """Return source row `index`."""
        raise NotImplementedError


class ImageDirectoryDataset(InMemoryDataset):
    """Labelled images read whole from the files of one directory when created (MNIST, CIFAR-10).

    Columns `image` (uint8, HWC) and `label` (uint32). A subclass says how its
    files are found and read (`_read`); the arguments are the same for all.
    """

    def __init__(
        self,
        dataset_dir: str | Path,
        usage: str | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | None = None,
        sampler: Any = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache: Any = None,
    ) -> None:
        """Read the files `usage` names in `dataset_dir`.

        Args:
            dataset_dir: The directory.
            usage: `"train"`, `"test"` or `"all"`; None means `"all"`.
            num_samples: Rows to read per pass (per shard), None for all.
            num_parallel_workers: Accepted for compatibility.
            shuffle: Read rows in a new random order each pass; None means True.
            sampler: A `DistributedSampler`, `RandomSampler` or `SequentialSampler`
                (then `shuffle`, `num_samples` and the shard arguments stay None).
            num_shards: Split the rows into this many shards (data-parallel
                training), read the one `shard_id` names.
            shard_id: The shard to read, in [0, num_shards - 1].
            cache: Not supported (must be None).
        """
        owner = type(self).__name__
        check_unsupported(owner, cache=cache)
        directory = check_dataset_dir(dataset_dir, owner)
        images, labels = self._read(directory, check_usage(usage, owner), owner)
        reading = Reading(
            num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler
        )
        super().__init__(
            [images, labels.astype(np.uint32)], ["image", "label"], owner, reading
        )

    def _read(self, directory: Path, usage: str, owner: str) -> tuple[Array, Array]:
        """Return all images (N, H, W, C) and labels (N,) of `usage` in `directory`."""
        raise NotImplementedError


def _readonly(array: Array) -> Array:
    view = array.view()
    view.flags.writeable = False
    return view


class NumpySlicesDataset(InMemoryDataset):
    """A dataset sliced from Python data along its first axis, as `mindspore.dataset.NumpySlicesDataset`.

    Args:
        data: A dict (one column per key), a tuple (one column per element),
            or a list or numpy array (one column). The data is copied.
        column_names: Column names; default the dict's keys, else
            `column_0`, `column_1`, ...
        num_samples: Rows to read per pass (None: all).
        num_parallel_workers: Accepted for compatibility.
        shuffle: Read rows in a new random order each pass; None means True, as
            in MindSpore.
        sampler: A `DistributedSampler`, `RandomSampler` or `SequentialSampler`
            (then `shuffle`, `num_samples` and the shard arguments stay None).
        num_shards: Split the rows into this many shards (data-parallel
            training), read the one `shard_id` names.
        shard_id: The shard to read, in [0, num_shards - 1].

    Raises:
        TypeError: If `data` is of an unsupported type or holds non-numeric objects.
        ValueError: If columns differ in length, are empty or 0-d.
        RuntimeError: If `column_names` does not name every column, as in MindSpore.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> data = {"x": np.float32(np.random.rand(64, 10)), "y": np.random.randint(0, 5, (64,))}
        >>> dataset = ds.NumpySlicesDataset(data=data).batch(32)
        >>> dataset.get_dataset_size(), dataset.get_col_names()
        (2, ['x', 'y'])
    """

    def __init__(
        self,
        data: Any,
        column_names: str | Sequence[str] | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
    ) -> None:
        owner = "NumpySlicesDataset"
        columns, default_names = _slices_columns(data, owner)
        names = (
            default_names
            if column_names is None
            else check_column_list(column_names, "column_names", owner)
        )
        if len(names) != len(columns):
            raise RuntimeError(
                f"For '{owner}', 'column_names' names {len(names)} columns {names!r}, but the data has {len(columns)} columns."
            )
        reading = Reading(
            num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler
        )
        super().__init__(columns, names, owner, reading)


def _slices_columns(data: Any, owner: str) -> tuple[list[Array], list[str]]:
    if isinstance(data, dict):
        names = [str(k) for k in data]
        values = list(data.values())
    elif isinstance(data, tuple):
        values, names = list(data), []
    elif isinstance(data, list | np.ndarray):
        values, names = [data], []
    else:
        raise TypeError(
            f"For '{owner}', the argument 'data' must be a list, tuple, dict or numpy array, but got {type(data).__name__!r}."
        )
    if not values:
        raise ValueError(
            f"For '{owner}', the argument 'data' must hold at least one column, but it is empty."
        )
    columns = [_column(v, i, owner) for i, v in enumerate(values)]
    lengths = [len(c) for c in columns]
    if len(set(lengths)) != 1:
        raise ValueError(
            f"For '{owner}', every column must have the same number of rows, but the lengths are {lengths}."
        )
    if lengths[0] == 0:
        raise ValueError(f"For '{owner}', the data has no rows.")
    return columns, names or [f"column_{i}" for i in range(len(columns))]


def _column(value: Any, index: int, owner: str) -> Array:
    data = value.asnumpy() if hasattr(value, "asnumpy") else value
    try:
        array = np.array(data)
    except ValueError as exc:
        raise TypeError(
            f"For '{owner}', column {index} is not rectangular array data: {exc}"
        ) from None
    if array.dtype == object:
        raise TypeError(
            f"For '{owner}', column {index} holds Python objects, not numeric array data (rows of unequal length?)."
        )
    if array.ndim == 0:
        raise ValueError(
            f"For '{owner}', column {index} is a scalar ({array.item()!r}); a column needs one entry per row."
        )
    return array


class GeneratorDataset(Dataset):
    """A dataset whose rows come from Python code, as `mindspore.dataset.GeneratorDataset`.

    Args:
        source: A random-accessible object (`__getitem__` and `__len__`, e.g. a
            list or a map-style dataset class), an iterable (iterated afresh each
            pass), or a generator function (called each pass). Each item is a
            tuple or list of columns, or a single array/number for one column.
        column_names: The column names (required).
        column_types: Optional dtypes per column (cadence or numpy dtypes); rows
            are cast to them.
        schema: Not supported (must be None).
        num_samples: Rows to read per pass (None: all).
        num_parallel_workers: Accepted for compatibility.
        shuffle: Random order each pass; only for random-accessible sources,
            where None means True (as in MindSpore); None means False otherwise.
        sampler: A cadence sampler, for a random-accessible source (then
            `shuffle`, `num_samples` and the shard arguments stay None).
        num_shards: Split the rows of a random-accessible source into this
            many shards (data-parallel training), read the one `shard_id` names.
        shard_id: The shard to read, in [0, num_shards - 1].
        python_multiprocessing: Accepted for compatibility.
        max_rowsize: Accepted for compatibility.

    Raises:
        TypeError: If `source` is neither random-accessible, iterable nor callable.
        ValueError: If `column_names` is missing, or `shuffle=True` for a source
            that is not random-accessible.
        RuntimeError: While iterating, if an item has the wrong number of columns.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> def gen():
        ...     for i in range(3):
        ...         yield np.array([i, i]), np.int32(i)
        >>> data = ds.GeneratorDataset(gen, column_names=["x", "y"])
        >>> [row[1].asnumpy().item() for row in data]
        [0, 1, 2]
    """

    def __init__(
        self,
        source: Any,
        column_names: str | Sequence[str] | None = None,
        column_types: Sequence[Any] | None = None,
        schema: Any = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        python_multiprocessing: bool = True,
        max_rowsize: int | None = None,
    ) -> None:
        owner = "GeneratorDataset"
        super().__init__()
        check_unsupported(owner, schema=schema)
        if column_names is None:
            raise ValueError(
                f"For '{owner}', 'column_names' must name the columns the source yields, but got None."
            )
        self._column_names = check_column_list(column_names, "column_names", owner)
        self._types = _column_types(column_types, len(self._column_names), owner)
        self._num_samples = check_num_samples(num_samples, owner)
        shuffled = check_optional_bool(shuffle, "shuffle", owner)
        self._source = source
        self._indexable = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if (
            not self._indexable
            and not hasattr(source, "__iter__")
            and not callable(source)
        ):
            raise TypeError(
                f"For '{owner}', 'source' must be random-accessible (__getitem__ and __len__), iterable or a generator "
                f"function, but got {source!r} of type {type(source).__name__!r}."
            )
        if shuffled and not self._indexable:
            raise ValueError(
                f"For '{owner}', 'shuffle=True' needs a random-accessible source (__getitem__ and __len__); "
                f"{type(source).__name__!r} is only iterable. Use `.shuffle(buffer_size)` on the dataset instead."
            )
        self._shuffle = self._indexable and shuffled is not False
        self._order: RowOrder | None = None
        if self._indexable:
            reading = Reading(
                num_samples,
                shuffle,
                num_shards,
                shard_id,
                num_parallel_workers,
                sampler,
            )
            self._order = source_order(len(source), owner, reading)
        elif num_shards is not None or shard_id is not None or sampler is not None:
            raise ValueError(
                f"For '{owner}', 'num_shards', 'shard_id' and 'sampler' need a random-accessible source "
                f"(__getitem__ and __len__); {type(source).__name__!r} is only iterable."
            )

    def _names(self) -> list[str]:
        return list(self._column_names)

    @property
    def _random_accessible(self) -> bool:
        return self._indexable

    _prefers_rows = True

    def _row_count(self) -> int | None:
        return None if self._order is None else self._order.count

    def _access(self, p: Pass) -> Access | None:
        if self._order is None:
            return None
        order = self._order.order(p)
        if order is None:
            order = np.arange(self._order.count, dtype=np.intp)
        return _ItemAccess(self._source, order, self._convert)

    def _rows(self, p: Pass) -> Iterator[Row]:
        access = self._access(p)
        if isinstance(access, _ItemAccess):
            return (access.row(int(i)) for i in access.order)
        return self._stream_rows(p)

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        src = self._source
        items: Iterable[Any] = src() if not hasattr(src, "__iter__") else iter(src)
        if self._num_samples is not None:
            items = itertools.islice(items, self._num_samples)
        return (self._convert(item) for item in items)

    def _convert(self, item: Any) -> Row:
        if isinstance(item, dict):
            raise TypeError(
                f"GeneratorDataset: the source yielded a dict {item!r}; yield a tuple of arrays, one per column."
            )
        values = item if isinstance(item, tuple | list) else (item,)
        if len(values) != len(self._column_names):
            raise RuntimeError(
                f"GeneratorDataset: the source yielded {len(values)} columns, but 'column_names' names "
                f"{len(self._column_names)}: {self._column_names!r}."
            )
        row = tuple(
            np.array(v.asnumpy() if hasattr(v, "asnumpy") else v) for v in values
        )
        if self._types is not None:
            row = tuple(
                a.astype(t, copy=False) for a, t in zip(row, self._types, strict=True)
            )
        return row


def _column_types(value: Any, count: int, owner: str) -> list[np.dtype[Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != count:
        raise TypeError(
            f"For '{owner}', 'column_types' must be a list with one dtype per column ({count}), but got {value!r}."
        )
    return [to_numpy_dtype(t, "column_types", owner) for t in value]


class _ItemAccess(Access):
    """Rows of a random-accessible Python source, fetched with `source[i]`."""

    def __init__(
        self, source: Any, order: IndexArray, convert: Callable[[Any], Row]
    ) -> None:
        self.source = source
        self.order = order
        self.convert = convert
        self.n = len(order)

    def row(self, index: int) -> Row:
        return self.convert(self.source[index])

    def gather(self, idx: IndexArray) -> Block:
        return stack_rows([self.row(int(i)) for i in self.order[idx]])

    def span(self, start: int, stop: int) -> Block:
        return stack_rows([self.row(int(i)) for i in self.order[start:stop]])
