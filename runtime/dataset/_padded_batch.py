"""`Dataset.padded_batch`: batch rows of different shapes by padding them to one shape per column."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._checks import check_names_exist
from ._pipeline import BatchDataset

if TYPE_CHECKING:
    from ._block import Array, Block, Column, Row
    from ._dataset import Dataset

__all__ = ["PaddedBatchDataset", "check_pad_info"]

PadSpec = tuple[tuple[int | None, ...] | None, Any]
"""A column's target shape (None, or None in a dimension: the longest in the batch) and pad value."""


def check_pad_info(pad_info: Any, names: list[str], owner: str) -> dict[str, PadSpec]:
    """Return `pad_info` checked: `{column: (shape or None, pad value)}`; `{}` pads every column with 0."""
    if not isinstance(pad_info, dict):
        raise TypeError(
            f"For '{owner}', the argument 'pad_info' must be a dict {{column: (shape, pad value)}}, "
            f"but got {pad_info!r} of type {type(pad_info).__name__!r}."
        )
    if not pad_info:
        return dict.fromkeys(names, (None, 0))
    check_names_exist([str(k) for k in pad_info], names, "pad_info", owner)
    specs: dict[str, PadSpec] = {}
    for name, spec in pad_info.items():
        if spec is None:
            specs[name] = (None, 0)
            continue
        if not isinstance(spec, tuple) or len(spec) != 2:
            raise TypeError(
                f"For '{owner}', the value of 'pad_info' for column {name!r} must be a tuple "
                f"(shape, pad value) or None, but got {spec!r}."
            )
        shape, value = spec
        if shape is not None and (
            not isinstance(shape, list | tuple)
            or not all(
                d is None or (isinstance(d, int) and not isinstance(d, bool) and d > 0)
                for d in shape
            )
        ):
            raise TypeError(
                f"For '{owner}', the shape in 'pad_info' for column {name!r} must be None or a list of "
                f"positive ints and None, but got {shape!r}."
            )
        if not isinstance(value, int | float | str | bytes | np.generic):
            raise TypeError(
                f"For '{owner}', the pad value in 'pad_info' for column {name!r} must be a number or a "
                f"string, but got {value!r} of type {type(value).__name__!r}."
            )
        specs[name] = (None if shape is None else tuple(shape), value)
    return specs


class PaddedBatchDataset(BatchDataset):
    """`Dataset.padded_batch`: `batch`, with the columns of `pad_info` padded (at the end of each dimension)."""

    def __init__(
        self, child: Dataset, pad_info: Any, batching: tuple[int, bool, dict[str, Any]]
    ) -> None:
        """Batch `child` as `BatchDataset(child, *batching)` does, padding as `pad_info` says."""
        super().__init__(child, *batching)
        names = child._names()
        specs = (
            {}
            if pad_info is None
            else check_pad_info(pad_info, names, "Dataset.padded_batch")
        )
        self.pad_info = pad_info
        self._pads = {names.index(n): s for n, s in specs.items()}

    def _finish(self, block: Block) -> Row:
        padded = [
            _pad_column(col, self._pads[j], self._names()[j])
            if j in self._pads
            else col
            for j, col in enumerate(block)
        ]
        return super()._finish(padded)


def _pad_column(col: Column, spec: PadSpec, name: str) -> Array:
    rows = list(col)
    rank = rows[0].ndim
    for r in rows:
        if r.ndim != rank:
            raise RuntimeError(
                f"Dataset.padded_batch: the rows of column {name!r} must have one rank to be padded, "
                f"but one has shape {rows[0].shape} and another {r.shape}."
            )
    shape, value = spec
    if shape is not None and len(shape) != rank:
        raise RuntimeError(
            f"Dataset.padded_batch: the pad shape {list(shape)} of column {name!r} has rank {len(shape)}, "
            f"but the column's rows have rank {rank}."
        )
    longest = np.max([r.shape for r in rows], axis=0) if rank else ()
    wanted = (None,) * rank if shape is None else shape
    target = tuple(
        int(m) if w is None else w for w, m in zip(wanted, longest, strict=True)
    )
    dtype = rows[0].dtype
    if (dtype.kind in "SU") != isinstance(value, str | bytes):
        raise RuntimeError(
            f"Dataset.padded_batch: column {name!r} holds {dtype} values, which the pad value "
            f"{value!r} cannot pad."
        )
    if dtype.kind in "SU":
        dtype = np.result_type(*rows, np.asarray(value))
    out = np.full((len(rows), *target), value, dtype=dtype)
    for i, r in enumerate(rows):
        if any(have > want for have, want in zip(r.shape, target, strict=True)):
            raise RuntimeError(
                f"Dataset.padded_batch: a row of column {name!r} has shape {r.shape}, larger than the pad "
                f"shape {list(target)}; padding never cuts a row."
            )
        where: tuple[Any, ...] = (i, *[slice(0, k) for k in r.shape])
        out[where] = r
    return out
