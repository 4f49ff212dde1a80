"""Source datasets over Python data: `NumpySlicesDataset` and `GeneratorDataset`."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from ._access import Access, ColumnsAccess, IndexArray
from ._block import Array, Block, Row, stack_rows
from ._checks import (
    check_column_list,
    check_int,
    check_optional_bool,
    check_unsupported,
)
from ._dataset import Dataset
from ._dtypes import to_numpy_dtype
from ._shard import Shard, check_sharding

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Sequence

    from ._random import Pass

__all__ = ["GeneratorDataset", "InMemoryDataset", "NumpySlicesDataset"]


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
        num_samples: Rows per pass (None: all); with a shard, rows of the shard.
        shuffle: Whether each pass reads the rows in a new random order.
        shard: The shard to read (see `cadence.dataset.DistributedSampler`), or None for all rows.
    """

    def __init__(
        self,
        columns: Sequence[Array],
        names: Sequence[str],
        num_samples: int | None,
        shuffle: bool,
        shard: Shard | None = None,
    ) -> None:
        super().__init__()
        self._columns = [_readonly(c) for c in columns]
        self._column_names = list(names)
        total = len(self._columns[0])
        rows = total if shard is None else shard.count(total)
        self._n = rows if num_samples is None else min(rows, num_samples)
        self._shuffle = shuffle
        self._shard = shard
        self._passes = 0

    def _names(self) -> list[str]:
        return list(self._column_names)

    def _row_count(self) -> int:
        return self._n

    @property
    def _random_accessible(self) -> bool:
        return True

    def _access(self, p: Pass) -> Access:
        order = None
        if self._shard is not None:
            order = _shard_order(
                self._shard, len(self._columns[0]), self._shuffle, self._passes
            )
            self._passes += 1
            return ColumnsAccess(self._columns, self._n, order[: self._n])
        if self._shuffle:
            order = (
                p.rng().permutation(len(self._columns[0]))[: self._n].astype(np.intp)
            )
        return ColumnsAccess(self._columns, self._n, order)


def _shard_order(shard: Shard, rows: int, shuffle: bool, pass_index: int) -> IndexArray:
    """Return the row indices of `shard` for one pass (the same order on every rank)."""
    order = (
        shard.shared_order(rows, pass_index)
        if shuffle
        else np.arange(rows, dtype=np.intp)
    )
    return order[shard.positions(rows)]


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
        sampler: None, or a `DistributedSampler` (then leave `shuffle` at None).
        num_shards: Split the rows into this many shards (data-parallel ranks).
        shard_id: The shard to read, in [0, num_shards - 1]; given with `num_shards`.

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
        shuffled = check_optional_bool(shuffle, "shuffle", owner)
        plan = check_sharding(
            owner,
            sampler=sampler,
            num_shards=num_shards,
            shard_id=shard_id,
            shuffle=shuffled,
            num_samples=check_num_samples(num_samples, owner),
        )
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
        super().__init__(columns, names, plan.num_samples, plan.shuffle, plan.shard)


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
        sampler: None, or a `DistributedSampler` (then leave `shuffle` at None).
        num_shards: Split the rows into this many shards (data-parallel
            ranks); needs a random-accessible source.
        shard_id: The shard to read, in [0, num_shards - 1]; given with `num_shards`.
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
        shuffled = check_optional_bool(shuffle, "shuffle", owner)
        plan = check_sharding(
            owner,
            sampler=sampler,
            num_shards=num_shards,
            shard_id=shard_id,
            shuffle=shuffled,
            num_samples=check_num_samples(num_samples, owner),
        )
        self._num_samples = plan.num_samples
        self._shard = plan.shard
        self._passes = 0
        if sampler is not None:
            shuffled = plan.shuffle
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
        if self._shard is not None and not self._indexable:
            raise ValueError(
                f"For '{owner}', sharding ('num_shards'/'shard_id' or a sampler) needs a random-accessible source "
                f"(__getitem__ and __len__), so that every shard has as many rows; {type(source).__name__!r} is "
                "only iterable."
            )
        if shuffled and not self._indexable:
            raise ValueError(
                f"For '{owner}', 'shuffle=True' needs a random-accessible source (__getitem__ and __len__); "
                f"{type(source).__name__!r} is only iterable. Use `.shuffle(buffer_size)` on the dataset instead."
            )
        self._shuffle = self._indexable and shuffled is not False

    def _names(self) -> list[str]:
        return list(self._column_names)

    @property
    def _random_accessible(self) -> bool:
        return self._indexable

    @property
    def _prefers_rows(self) -> bool:
        return True

    def _row_count(self) -> int | None:
        if not self._indexable:
            return None
        n = len(self._source)
        if self._shard is not None:
            n = self._shard.count(n)
        return n if self._num_samples is None else min(n, self._num_samples)

    def _access(self, p: Pass) -> Access | None:
        if not self._indexable:
            return None
        n = self._row_count()
        assert n is not None
        if self._shard is not None:
            order = _shard_order(
                self._shard, len(self._source), self._shuffle, self._passes
            )
            self._passes += 1
            return _ItemAccess(self._source, order[:n], self._convert)
        order = (
            p.rng().permutation(len(self._source))[:n]
            if self._shuffle
            else np.arange(n)
        )
        return _ItemAccess(self._source, order.astype(np.intp), self._convert)

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
