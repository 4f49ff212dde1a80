"""Datasets over several children: `zip` (columns side by side) and `concat` (rows one after the other).

Both keep random access when every child has it, so a zipped or concatenated
in-memory pipeline still batches by slices and gathers.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from ._access import Access
from ._block import Block, Row, concat_blocks
from ._dataset import INFINITE, Dataset

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ._access import IndexArray
    from ._random import Pass

__all__ = ["ConcatDataset", "ZipDataset", "datasets_argument"]


def datasets_argument(value: Any, kinds: tuple[type, ...], owner: str) -> list[Dataset]:
    """Return the datasets of a `zip`/`concat` argument: one dataset, or a `kinds` container of them."""
    if isinstance(value, Dataset):
        return [value]
    items: Any = value
    if not any(isinstance(items, k) for k in kinds) or not all(
        isinstance(d, Dataset) for d in items
    ):
        spelled = " or ".join(k.__name__ for k in kinds)
        raise TypeError(
            f"For '{owner}', the argument 'datasets' must be a Dataset or a {spelled} of Datasets, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
    datasets: list[Dataset] = list(items)
    return datasets


class _ManyChildren(Dataset):
    """A node over several children, each read in its own sub-pass; random access when all have it."""

    @property
    def _random_accessible(self) -> bool:
        return all(c._random_accessible for c in self.children)

    @property
    def _prefers_rows(self) -> bool:
        return any(c._prefers_rows for c in self.children)

    def _child_accesses(self, p: Pass) -> list[Access] | None:
        if not self._random_accessible:
            return None
        inner = [c._access(p.child(i)) for i, c in enumerate(self.children)]
        return [a for a in inner if a is not None]

    def _child_rows(self, p: Pass) -> list[Iterator[Row]]:
        return [c._rows(p.child(i)) for i, c in enumerate(self.children)]


class ZipDataset(_ManyChildren):
    """`Dataset.zip` and `dataset.zip`: the columns of every child side by side, as long as the shortest child.

    Raises:
        ValueError: If fewer than two datasets are given or two share a column name.
    """

    def __init__(self, children: Sequence[Dataset], owner: str) -> None:
        if len(children) < 2:
            raise ValueError(
                f"For '{owner}', zip needs at least two datasets, but got {len(children)}."
            )
        super().__init__(children)
        names = [n for c in children for n in c._names()]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(
                f"For '{owner}', the zipped datasets must have different column names, but {repeated!r} "
                f"appear more than once in {names!r}; rename them first (`Dataset.rename`)."
            )
        self._widths = [len(c._names()) for c in children]

    def _names(self) -> list[str]:
        return [n for c in self.children for n in c._names()]

    def _row_count(self) -> int | None:
        counts = [c._row_count() for c in self.children]
        if None in counts:
            return None
        finite = [n for n in counts if n != INFINITE and n is not None]
        return min(finite) if finite else INFINITE

    def _access(self, p: Pass) -> Access | None:
        inner = self._child_accesses(p)
        return None if inner is None else _ZipAccess(inner)

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        streams = self._child_rows(p)
        return (tuple(itertools.chain(*parts)) for parts in zip(*streams, strict=False))


class _ZipAccess(Access):
    def __init__(self, inner: list[Access]) -> None:
        self.inner = inner
        self.n = min(a.n for a in inner)

    def gather(self, idx: IndexArray) -> Block:
        return [col for a in self.inner for col in a.gather(idx)]

    def span(self, start: int, stop: int) -> Block:
        return [col for a in self.inner for col in a.span(start, stop)]


class ConcatDataset(_ManyChildren):
    """`Dataset.concat` and `+`: the rows of every child, one child after the other.

    Raises:
        ValueError: If the children's column names differ.
        RuntimeError: While iterating, if a child's rows differ from the first
            child's in a column's dtype or rank.
    """

    def __init__(self, children: Sequence[Dataset], owner: str) -> None:
        if len(children) < 2:
            raise ValueError(
                f"For '{owner}', concat needs at least one dataset to append, but got none."
            )
        super().__init__(children)
        names = children[0]._names()
        for child in children[1:]:
            if child._names() != names:
                raise ValueError(
                    f"For '{owner}', the concatenated datasets must have the same columns, but one has "
                    f"{names!r} and another {child._names()!r}."
                )

    def _row_count(self) -> int | None:
        counts = [c._row_count() for c in self.children]
        if None in counts:
            return None
        if INFINITE in counts:
            return INFINITE
        return sum(n for n in counts if n is not None)

    def _access(self, p: Pass) -> Access | None:
        inner = self._child_accesses(p)
        return None if inner is None else _ConcatAccess(inner, self._names())

    def _stream_rows(self, p: Pass) -> Iterator[Row]:
        first: Row | None = None
        for rows in self._child_rows(p):
            head = next(rows, None)
            if head is None:
                continue
            if first is None:
                first = head
            else:
                _check_alike(first, head, self._names())
            yield head
            yield from rows


def _layout(value: Any) -> tuple[Any, int]:
    """A column's dtype and rank; strings of any length count as one dtype, as they batch together."""
    return ("text" if value.dtype.kind in "SU" else value.dtype, np.ndim(value))


def _check_alike(first: Sequence[Any], other: Sequence[Any], names: list[str]) -> None:
    """Raise if a child's first row differs from the first child's in a column's dtype or rank."""
    for name, a, b in zip(names, first, other, strict=True):
        if _layout(a) != _layout(b):
            raise RuntimeError(
                f"Dataset.concat: the datasets' rows must agree in each column's dtype and rank, but column "
                f"{name!r} is {a.dtype} of rank {np.ndim(a)} in the first dataset and {b.dtype} of rank "
                f"{np.ndim(b)} in another."
            )


class _ConcatAccess(Access):
    def __init__(self, inner: list[Access], names: list[str]) -> None:
        self.inner = inner
        self.offsets = np.cumsum([0, *(a.n for a in inner)])
        self.n = int(self.offsets[-1])
        heads = [a.span(0, 1) for a in inner if a.n]
        for head in heads[1:]:
            _check_alike([c[0] for c in heads[0]], [c[0] for c in head], names)

    def _pieces(self, rows: IndexArray) -> Iterator[Block]:
        """The blocks of `rows`, one per run of consecutive rows of one child."""
        owners = np.searchsorted(self.offsets, rows, side="right") - 1
        breaks = np.flatnonzero(np.diff(owners)) + 1
        for run, who in zip(
            np.split(rows, breaks), owners[np.r_[0, breaks]].tolist(), strict=True
        ):
            yield self.inner[who].gather(run - self.offsets[who])

    def gather(self, idx: IndexArray) -> Block:
        if len(idx) == 0:
            return self.inner[0].gather(idx)
        return concat_blocks(list(self._pieces(idx)))

    def span(self, start: int, stop: int) -> Block:
        parts = []
        for who, access in enumerate(self.inner):
            lo = max(start, int(self.offsets[who]))
            hi = min(stop, int(self.offsets[who + 1]))
            if lo < hi:
                base = int(self.offsets[who])
                parts.append(access.span(lo - base, hi - base))
        return concat_blocks(parts) if parts else self.inner[0].span(0, 0)
