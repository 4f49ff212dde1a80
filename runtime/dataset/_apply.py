"""Applying `map` operations to rows and to blocks.

cadence's own operations (`TensorOperation`) work on a whole block at once
(their `_apply_block`), so mapping them costs no per-row Python; any other
callable is called once per row, with numpy arrays, as in MindSpore.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._block import Array, Column, stack_column
from ._transform import TensorOperation

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["apply_block", "apply_row", "to_outputs"]


def to_outputs(result: Any, op: Callable[..., Any]) -> list[Array]:
    """Return the columns an operation returned: a tuple is several columns, anything else one."""
    items = result if isinstance(result, tuple) else (result,)
    out: list[Array] = []
    for item in items:
        data = item.asnumpy() if hasattr(item, "asnumpy") else item
        arr = np.asarray(data)
        if arr.dtype == object:
            raise TypeError(
                f"The map operation {op!r} returned {item!r}, which is not numeric array data."
            )
        out.append(arr)
    return out


def apply_row(ops: Sequence[Callable[..., Any]], args: list[Array]) -> list[Array]:
    """Apply `ops` in order to the input columns of one row."""
    for op in ops:
        args = _call(op, args)
    return args


def apply_block(ops: Sequence[Callable[..., Any]], cols: list[Column]) -> list[Column]:
    """Apply `ops` in order to the input columns of a block."""
    for op in ops:
        if (
            isinstance(op, TensorOperation)
            and op._block_capable()
            and all(isinstance(c, np.ndarray) for c in cols)
        ):
            try:
                cols = list(op._apply_block(*cols))  # type: ignore[arg-type]
            except Exception as exc:
                exc.add_note(f"(in the map operation {op!r})")
                raise
        else:
            cols = _per_row(op, cols)
    return cols


def _per_row(op: Callable[..., Any], cols: list[Column]) -> list[Column]:
    n = len(cols[0])
    results = [
        _call(op, [c[i] if isinstance(c, list) else c[i, ...] for c in cols])
        for i in range(n)
    ]
    width = len(results[0])
    for r in results:
        if len(r) != width:
            raise RuntimeError(
                f"The map operation {op!r} returned {width} columns for one row and {len(r)} for another; it must return the same number for every row."
            )
    return [stack_column([r[j] for r in results]) for j in range(width)]


def _call(op: Callable[..., Any], args: list[Array]) -> list[Array]:
    try:
        result = op(*args)
    except Exception as exc:
        exc.add_note(
            f"(in the map operation {op!r}, called with arrays of shapes {[a.shape for a in args]})"
        )
        raise
    return to_outputs(result, op)
