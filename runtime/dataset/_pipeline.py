"""The pipeline operations: batch, shuffle, map, repeat, take, skip, project/rename.

Each is a `Dataset` node over one child. Nodes that keep random access
(`shuffle`, `map`, `take`, `skip`, `project`) hand their child's `Access` on,
reordered, mapped or windowed; the others stream blocks or rows.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from ..validation import check_bool
from ._access import Access, MappedAccess, OrderedAccess, WindowAccess
from ._apply import apply_block, apply_row
from ._block import Block, Row, block_len, concat_blocks
from ._checks import (
    check_column_list,
    check_int,
    check_names_exist,
    check_unsupported,
)
from ._dataset import INFINITE, Dataset

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    import numpy.typing as npt

    from ._random import Pass

T = TypeVar("T")

__all__ = [
    "BatchDataset",
    "ColumnsDataset",
    "MapDataset",
    "RepeatDataset",
    "ShuffleDataset",
    "SkipDataset",
    "SubsetDataset",
    "TakeDataset",
]


class _OneChild(Dataset):
    """A node over one child that keeps its child's access and preferences by default."""

    def __init__(self, child: Dataset) -> None:
        super().__init__([child])
        self.child = child

    @property
    def _random_accessible(self) -> bool:
        return self.child._random_accessible

    @property
    def _prefers_rows(self) -> bool:
        return self.child._prefers_rows


class BatchDataset(_OneChild):
    """`Dataset.batch`: stacks `batch_size` consecutive rows per column."""

    def __init__(
        self,
        child: Dataset,
        batch_size: int,
        drop_remainder: bool,
        kwargs: dict[str, Any],
    ) -> None:
        owner = "Dataset.batch"
        if callable(batch_size):
            raise NotImplementedError(
                f"For '{owner}', a callable 'batch_size' is not supported by cadence yet; pass an int."
            )
        self.batch_size = check_int(
            batch_size, "batch_size", owner, minimum=1, maximum=2**31 - 1
        )
        self.drop_remainder = check_bool(drop_remainder, "drop_remainder", owner)
        _check_kwargs(
            owner,
            kwargs,
            ignored=("python_multiprocessing", "max_rowsize", "num_parallel_workers"),
        )
        super().__init__(child)

    _random_accessible = False

    _prefers_rows = True

    def _row_count(self) -> int | None:
        n = self.child._row_count()
        if n is None or n == INFINITE:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        size = self.batch_size
        pending: list[Block] = []
        have = 0
        for block in self.child._blocks(p.child(), size):
            n = block_len(block)
            if not pending and n == size:
                yield self._finish(block)
                continue
            pending.append(block)
            have += n
            while have >= size:
                merged = concat_blocks(pending)
                yield self._finish([c[:size] for c in merged])
                have -= size
                pending = [[c[size:] for c in merged]] if have else []
        if pending and not self.drop_remainder:
            yield self._finish(concat_blocks(pending))

    def _finish(self, block: Block) -> Row:
        out = []
        for j, col in enumerate(block):
            if isinstance(col, list):
                if not _text_of_one_shape(col):
                    raise RuntimeError(_inconsistent_batch(self._names()[j], col))
                col = np.stack(
                    col
                )  # numpy widens the items to the longest, as MindSpore's batch does
            out.append(col)
        return tuple(out)


def _text_of_one_shape(rows: list[Any]) -> bool:
    """Whether the rows are strings (or bytes) of one shape that differ only in length."""
    first = rows[0]
    return first.dtype.kind in "SU" and all(
        r.dtype.kind == first.dtype.kind and r.shape == first.shape for r in rows
    )


def _inconsistent_batch(name: str, rows: list[Any]) -> str:
    first = rows[0]
    for i, row in enumerate(rows):
        if row.shape != first.shape or row.dtype != first.dtype:
            return (
                f"Inconsistent batch: every row of a batch must have the same shape and dtype, but in column {name!r} "
                f"row 0 has shape {first.shape} ({first.dtype}) and row {i} has shape {row.shape} ({row.dtype}). "
                "Resize or pad the rows with `map` before `batch`."
            )
    return f"Inconsistent batch in column {name!r}."  # pragma: no cover - lists only hold disagreeing rows


def _check_kwargs(owner: str, kwargs: dict[str, Any], ignored: Sequence[str]) -> None:
    unknown = sorted(set(kwargs) - set(ignored) - _UNSUPPORTED)
    if unknown:
        raise TypeError(
            f"For '{owner}', got an unexpected keyword argument {unknown[0]!r}."
        )
    check_unsupported(owner, **{k: v for k, v in kwargs.items() if k in _UNSUPPORTED})


_UNSUPPORTED = frozenset(
    {
        "per_batch_map",
        "input_columns",
        "output_columns",
        "cache",
        "callbacks",
        "column_order",
    }
)


class ShuffleDataset(_OneChild):
    """`Dataset.shuffle`: MindSpore's buffer shuffle."""

    def __init__(self, child: Dataset, buffer_size: int) -> None:
        super().__init__(child)
        self.buffer_size = buffer_size

    @property
    def _prefers_rows(self) -> bool:
        return not self.child._random_accessible

    def _row_count(self) -> int | None:
        return self.child._row_count()

    def _access(self, p: Pass) -> Access | None:
        inner = self.child._access(p.child())
        if inner is None:
            return None
        return OrderedAccess(inner, shuffle_order(inner.n, self.buffer_size, p.rng()))

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        return buffer_shuffle(self.child._rows(p.child()), self.buffer_size, p.rng())


def buffer_shuffle(
    items: Iterator[T], size: int, rng: np.random.Generator
) -> Iterator[T]:
    """Yield `items` through a shuffle buffer of `size` (MindSpore's algorithm).

    The buffer fills with the first `size` items; then each new item replaces a
    randomly chosen buffered one, which is yielded; at the end the buffer empties in
    random order. Random-access pipelines run this on row indices, streaming ones
    on rows, so both give the same order for the same seed.
    """
    buffer = list(itertools.islice(items, size))
    picks: Iterator[int] = iter(())
    for item in items:
        j = next(picks, None)
        if j is None:
            picks = iter(rng.integers(0, size, size=1024).tolist())
            j = next(picks)
        yield buffer[j]
        buffer[j] = item
    for j in rng.permutation(len(buffer)).tolist():
        yield buffer[j]


def shuffle_order(
    n: int, buffer_size: int, rng: np.random.Generator
) -> np.ndarray[Any, np.dtype[np.intp]]:
    """Return the order in which a buffer shuffle of `buffer_size` emits rows `0 .. n-1`."""
    if buffer_size >= n:  # the same draws as `buffer_shuffle`, without the Python loop
        return rng.permutation(n).astype(np.intp)
    return np.fromiter(
        buffer_shuffle(iter(range(n)), buffer_size, rng), dtype=np.intp, count=n
    )


class MapDataset(_OneChild):
    """`Dataset.map`: applies operations to input columns, replacing them with output columns."""

    def __init__(
        self,
        child: Dataset,
        operations: Any,
        input_columns: Any,
        output_columns: Any,
        kwargs: dict[str, Any],
    ) -> None:
        owner = "Dataset.map"
        super().__init__(child)
        _check_kwargs(
            owner,
            kwargs,
            ignored=(
                "python_multiprocessing",
                "max_rowsize",
                "offload",
                "num_parallel_workers",
            ),
        )
        self.operations = _check_operations(operations, owner)
        names = child._names()
        inputs = (
            [names[0]]
            if input_columns is None
            else check_column_list(input_columns, "input_columns", owner)
        )
        check_names_exist(inputs, names, "input_columns", owner)
        outputs = (
            inputs
            if output_columns is None
            else check_column_list(output_columns, "output_columns", owner)
        )
        self.input_columns, self.output_columns = inputs, outputs
        self._in_idx = [names.index(c) for c in inputs]
        self._kept_idx = [i for i, n in enumerate(names) if n not in inputs]
        # Outputs take the place of the first input column; every input before it is kept.
        self._at = min(self._in_idx)
        kept = [names[i] for i in self._kept_idx]
        out_names = list(kept)
        out_names[self._at : self._at] = outputs
        if len(set(out_names)) != len(out_names):
            raise ValueError(
                f"For '{owner}', the output columns {outputs!r} collide with the other columns {kept!r}."
            )
        self._out_names = out_names

    def _names(self) -> list[str]:
        return list(self._out_names)

    def _row_count(self) -> int | None:
        return self.child._row_count()

    def _access(self, p: Pass) -> Access | None:
        inner = self.child._access(p.child())
        return None if inner is None else MappedAccess(inner, self._map_block)

    def _stream_blocks(self, p: Pass, size: int) -> Iterator[Block]:
        return (self._map_block(b) for b in self.child._blocks(p.child(), size))

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        if not self.child._prefers_rows:
            return super()._stream_rows(p)
        return (self._map_row(r) for r in self.child._rows(p.child()))

    def _map_block(self, block: Block) -> Block:
        outs = apply_block(self.operations, [block[i] for i in self._in_idx])
        return self._assemble(block, outs)

    def _map_row(self, row: Row) -> Row:
        outs = apply_row(self.operations, [row[i] for i in self._in_idx])
        return tuple(self._assemble(list(row), outs))

    def _assemble(self, old: list[Any], outs: list[Any]) -> list[Any]:
        if len(outs) != len(self.output_columns):
            raise RuntimeError(
                f"The map operations on {self.input_columns!r} returned {len(outs)} columns, but 'output_columns' "
                f"names {len(self.output_columns)}: {self.output_columns!r}. Pass 'output_columns' with one name per returned column."
            )
        new = [old[i] for i in self._kept_idx]
        new[self._at : self._at] = outs
        return new


def _check_operations(operations: Any, owner: str) -> list[Callable[..., Any]]:
    ops = list(operations) if isinstance(operations, list | tuple) else [operations]
    if not ops:
        raise ValueError(f"For '{owner}', the argument 'operations' must not be empty.")
    for op in ops:
        if not callable(op):
            raise TypeError(
                f"For '{owner}', every operation must be callable, but got {op!r} of type {type(op).__name__!r}."
            )
    return ops


class RepeatDataset(_OneChild):
    """`Dataset.repeat`: `repeat_count` passes of the child, -1 for forever."""

    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__(child)
        self.repeat_count = count

    _random_accessible = False

    def _row_count(self) -> int | None:
        n = self.child._row_count()
        if n is None or n == 0:
            return n
        if n == INFINITE or self.repeat_count == INFINITE:
            return INFINITE
        return n * self.repeat_count

    def _passes(self, p: Pass) -> Iterator[Pass]:
        counter = (
            itertools.count()
            if self.repeat_count == INFINITE
            else range(self.repeat_count)
        )
        return (p.child(r) for r in counter)

    def _stream_blocks(self, p: Pass, size: int) -> Iterator[Block]:
        for sub in self._passes(p):
            empty = True
            for block in self.child._blocks(sub, size):
                empty = False
                yield block
            if empty:  # an empty pass repeated forever must not hang
                return

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        for sub in self._passes(p):
            empty = True
            for row in self.child._rows(sub):
                empty = False
                yield row
            if empty:
                return


class TakeDataset(_OneChild):
    """`Dataset.take`: the first `count` rows (-1: all)."""

    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__(child)
        self.count = count

    def _row_count(self) -> int | None:
        n = self.child._row_count()
        if self.count == INFINITE or n is None:
            return n if self.count == INFINITE else None
        return self.count if n == INFINITE else min(n, self.count)

    def _access(self, p: Pass) -> Access | None:
        inner = self.child._access(p.child())
        if inner is None:
            return None
        return WindowAccess(
            inner, 0, inner.n if self.count == INFINITE else min(inner.n, self.count)
        )

    def _stream_blocks(self, p: Pass, size: int) -> Iterator[Block]:
        left = self.count
        for block in self.child._blocks(p.child(), size):
            if left == INFINITE:
                yield block
                continue
            n = block_len(block)
            if n >= left:
                yield [c[:left] for c in block]
                return
            left -= n
            yield block

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        rows = self.child._rows(p.child())
        return rows if self.count == INFINITE else itertools.islice(rows, self.count)


class SkipDataset(_OneChild):
    """`Dataset.skip`: all rows after the first `count`."""

    def __init__(self, child: Dataset, count: int) -> None:
        super().__init__(child)
        self.count = count

    def _row_count(self) -> int | None:
        n = self.child._row_count()
        if n is None or n == INFINITE:
            return n
        return max(0, n - self.count)

    def _access(self, p: Pass) -> Access | None:
        inner = self.child._access(p.child())
        if inner is None:
            return None
        offset = min(inner.n, self.count)
        return WindowAccess(inner, offset, inner.n - offset)

    def _stream_blocks(self, p: Pass, size: int) -> Iterator[Block]:
        left = self.count
        for block in self.child._blocks(p.child(), size):
            n = block_len(block)
            if left >= n:
                left -= n
                continue
            yield [c[left:] for c in block] if left else block
            left = 0

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        return itertools.islice(self.child._rows(p.child()), self.count, None)


class SubsetDataset(_OneChild):
    """One part of `Dataset.split(randomize=True)`: the child's rows at fixed positions, in that order."""

    def __init__(self, child: Dataset, positions: npt.NDArray[np.intp]) -> None:
        super().__init__(child)
        self._positions = positions

    def _row_count(self) -> int | None:
        return len(self._positions)

    def _access(self, p: Pass) -> Access | None:
        inner = self.child._access(p.child())
        if inner is None:  # `split` checked the child is random-access
            raise RuntimeError(
                "Dataset.split: the split dataset lost its random access."
            )
        return OrderedAccess(inner, self._positions)


class ColumnsDataset(_OneChild):
    """`Dataset.project` and `Dataset.rename`: selects, reorders and renames columns."""

    def __init__(self, child: Dataset, indices: list[int], names: list[str]) -> None:
        super().__init__(child)
        self._indices = indices
        self._column_names = names

    def _names(self) -> list[str]:
        return list(self._column_names)

    def _row_count(self) -> int | None:
        return self.child._row_count()

    def _select(self, block: Block) -> Block:
        return [block[i] for i in self._indices]

    def _access(self, p: Pass) -> Access | None:
        inner = self.child._access(p.child())
        return None if inner is None else MappedAccess(inner, self._select)

    def _stream_blocks(self, p: Pass, size: int) -> Iterator[Block]:
        return (self._select(b) for b in self.child._blocks(p.child(), size))

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        return (tuple(r[i] for i in self._indices) for r in self.child._rows(p.child()))
