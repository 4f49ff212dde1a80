"""Blocks: the unit in which rows travel through a pipeline.

A block holds a run of consecutive rows column by column. A column is either one
numpy array whose first axis indexes the rows ("stacked": the fast case, which
batching only slices), or a list of per-row arrays when the rows' shapes or
dtypes differ ("ragged": only possible before a batch, which rejects it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

__all__ = [
    "Array",
    "Block",
    "Column",
    "Row",
    "block_len",
    "concat_blocks",
    "group_rows",
    "split_rows",
    "stack_column",
    "stack_rows",
]

Array: TypeAlias = npt.NDArray[Any]
Column: TypeAlias = Array | list[Array]
Block: TypeAlias = list[Column]
Row: TypeAlias = tuple[Array, ...]


def block_len(block: Block) -> int:
    """Return the number of rows in `block`."""
    return len(block[0])


def stack_column(items: Sequence[Array]) -> Column:
    """Stack per-row arrays into one array when shapes and dtypes agree, else keep the list."""
    first = items[0]
    shape, dtype = first.shape, first.dtype
    for item in items:
        if item.shape != shape or item.dtype != dtype:
            return list(items)
    return np.stack(items)


def stack_rows(rows: Sequence[Row]) -> Block:
    """Turn a list of rows into a block."""
    return [stack_column([row[j] for row in rows]) for j in range(len(rows[0]))]


def group_rows(rows: Iterable[Row], size: int) -> Iterator[Block]:
    """Group a stream of rows into blocks of `size` rows (the last may be shorter)."""
    pending: list[Row] = []
    for row in rows:
        pending.append(row)
        if len(pending) == size:
            yield stack_rows(pending)
            pending = []
    if pending:
        yield stack_rows(pending)


def split_rows(blocks: Iterable[Block]) -> Iterator[Row]:
    """Split blocks into rows; a row of a stacked column is a view (`col[i, ...]`, 0-d for scalars)."""
    for block in blocks:
        for i in range(block_len(block)):
            yield tuple(
                col[i] if isinstance(col, list) else col[i, ...] for col in block
            )


def concat_blocks(blocks: Sequence[Block]) -> Block:
    """Concatenate blocks row-wise; columns whose rows disagree in shape or dtype become lists."""
    if len(blocks) == 1:
        return blocks[0]
    out: Block = []
    for j in range(len(blocks[0])):
        parts = [b[j] for b in blocks]
        if all(isinstance(p, np.ndarray) for p in parts) and _same_row_layout(parts):  # type: ignore[arg-type]
            out.append(np.concatenate(parts))
        else:
            out.append(stack_column([r for p in parts for r in _rows_of(p)]))
    return out


def _same_row_layout(parts: Sequence[Array]) -> bool:
    first = parts[0]
    return all(p.shape[1:] == first.shape[1:] and p.dtype == first.dtype for p in parts)


def _rows_of(col: Column) -> list[Array]:
    return col if isinstance(col, list) else [col[i, ...] for i in range(len(col))]
