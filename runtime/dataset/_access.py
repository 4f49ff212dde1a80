"""Random access to the rows of one pass of a pipeline.

A pipeline whose rows can be fetched by index (in-memory sources, map-style
generator sources, and `map`/`shuffle`/`take`/`skip`/`project`/`rename` over them)
hands out an `Access` for each pass. Batching then costs one slice (unshuffled)
or one fancy-index gather (shuffled) per column and batch, with no per-row
Python work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ._block import stack_rows

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from ._block import Array, Block, Row

__all__ = [
    "Access",
    "ColumnsAccess",
    "MappedAccess",
    "OrderedAccess",
    "ReadAccess",
    "WindowAccess",
    "spans",
]

IndexArray = npt.NDArray[np.intp]


class Access:
    """Rows `0 .. n-1` of one pass, fetched by index or by range."""

    n: int

    def gather(self, idx: IndexArray) -> Block:
        """Return the rows at positions `idx` as a block."""
        raise NotImplementedError

    def span(self, start: int, stop: int) -> Block:
        """Return rows `start .. stop-1` as a block."""
        return self.gather(np.arange(start, stop, dtype=np.intp))


def spans(access: Access, size: int) -> Iterator[Block]:
    """Yield the rows of `access` in order, `size` rows per block."""
    n = access.n
    for start in range(0, n, size):
        yield access.span(start, min(start + size, n))


class ColumnsAccess(Access):
    """Rows of in-memory columns, optionally read through a permutation.

    Args:
        columns: Arrays whose first axis indexes the rows.
        n: Number of rows this pass reads.
        order: Source row of each position, or None for rows `0 .. n-1` in order.
    """

    def __init__(self, columns: list[Array], n: int, order: IndexArray | None) -> None:
        self.columns = columns
        self.n = n
        self.order = order
        self._stride = _progression(order)

    def gather(self, idx: IndexArray) -> Block:
        """Return the rows at positions `idx` (one gather per column)."""
        rows = idx if self.order is None else self.order[idx]
        return [np.take(col, rows, axis=0) for col in self.columns]

    def span(self, start: int, stop: int) -> Block:
        """Return a range of rows: views of the columns when unshuffled (strided for a shard)."""
        if self.order is None:
            return [col[start:stop] for col in self.columns]
        if self._stride is not None and stop > start:
            first, step = self._stride
            a = first + start * step
            return [
                col[a : a + (stop - start - 1) * step + 1 : step]
                for col in self.columns
            ]
        rows = self.order[start:stop]
        return [np.take(col, rows, axis=0) for col in self.columns]


class ReadAccess(Access):
    """Rows read one by one from files as they are fetched (`ImageFolderDataset`, `MindDataset`).

    Args:
        read: Returns the source row of an index.
        order: Source row of each position.
    """

    def __init__(self, read: Callable[[int], Row], order: IndexArray) -> None:
        self.read = read
        self.order = order
        self.n = len(order)

    def gather(self, idx: IndexArray) -> Block:
        """Return the rows at positions `idx`, each read from its file."""
        return stack_rows([self.read(int(i)) for i in self.order[idx]])

    def span(self, start: int, stop: int) -> Block:
        """Return a range of rows, each read from its file."""
        return stack_rows([self.read(int(i)) for i in self.order[start:stop]])


def _progression(order: IndexArray | None) -> tuple[int, int] | None:
    """`(first, step)` when `order` is `first, first + step, ...` (an unshuffled shard), else None.

    Its rows are then a strided view of the columns: no copy per batch (a
    rank's 128 MNIST rows are 400 KB copied each step otherwise).
    """
    if order is None or len(order) < 2:
        return None
    first, step = int(order[0]), int(order[1] - order[0])
    if step < 1 or int(order[-1]) != first + step * (len(order) - 1):
        return None
    if not np.array_equal(order, np.arange(first, first + step * len(order), step)):
        return None
    return first, step


class MappedAccess(Access):
    """Rows of another access with a block function applied (map, project, rename).

    Args:
        inner: The access to read.
        fn: Turns a block of `inner` into a block with the same number of rows.
    """

    def __init__(self, inner: Access, fn: Callable[[Block], Block]) -> None:
        self.inner = inner
        self.fn = fn
        self.n = inner.n

    def gather(self, idx: IndexArray) -> Block:
        """Return `fn` of the inner rows at `idx`."""
        return self.fn(self.inner.gather(idx))

    def span(self, start: int, stop: int) -> Block:
        """Return `fn` of the inner rows in the range."""
        return self.fn(self.inner.span(start, stop))


class OrderedAccess(Access):
    """Rows of another access in a given order (shuffle).

    Args:
        inner: The access to read.
        order: Inner position of each row.
    """

    def __init__(self, inner: Access, order: IndexArray) -> None:
        self.inner = inner
        self.order = order
        self.n = len(order)

    def gather(self, idx: IndexArray) -> Block:
        """Return the inner rows at `order[idx]`."""
        return self.inner.gather(self.order[idx])

    def span(self, start: int, stop: int) -> Block:
        """Return the inner rows at `order[start:stop]`."""
        return self.inner.gather(self.order[start:stop])


class WindowAccess(Access):
    """A contiguous window of another access (take, skip).

    Args:
        inner: The access to read.
        offset: Inner position of row 0.
        n: Number of rows in the window.
    """

    def __init__(self, inner: Access, offset: int, n: int) -> None:
        self.inner = inner
        self.offset = offset
        self.n = n

    def gather(self, idx: IndexArray) -> Block:
        """Return the inner rows at `idx + offset`."""
        return self.inner.gather(idx + self.offset)

    def span(self, start: int, stop: int) -> Block:
        """Return the inner rows of the shifted range."""
        return self.inner.span(start + self.offset, stop + self.offset)
