"""`MindDataset`: the rows of MindRecord files (`cadence.mindrecord`), read from disk as they are needed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..mindrecord._files import MindRecordFiles, find_files
from ._checks import check_column_list, check_int, check_names_exist, check_unsupported
from ._shard import Reading, source_order
from ._sources import FileRowsDataset

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ..mindrecord._schema import Field
    from ._block import Row

__all__ = ["MindDataset"]


class MindDataset(FileRowsDataset):
    """MindRecord files (written by `cadence.mindrecord.FileWriter` or by MindSpore), as `mindspore.dataset.MindDataset`.

    Columns are the schema's fields in sorted name order (or `columns_list`'s
    order). Each row holds: int32/int64/float32/float64 scalars as 0-d arrays of
    that dtype; strings as 0-d numpy str arrays; bytes as a numpy bytes array of
    shape (1,) (`vision.Decode` takes it); arrays with their shape. Headers and
    indexes are read when the dataset is created; rows are read from disk as they
    are needed.

    Args:
        dataset_files: One data file (the others of its dataset are found
            through its header, in the same directory) or a list of data files.
        columns_list: The columns to read, in order; None for all.
        num_parallel_workers: Accepted for compatibility.
        shuffle: Read rows in a new random order each pass; None means True.
            MindSpore's `Shuffle` levels are not supported.
        num_shards: Split the rows into this many shards (data-parallel
            training), read the one `shard_id` names.
        shard_id: The shard to read, in [0, num_shards - 1].
        sampler: A `DistributedSampler`, `RandomSampler` or `SequentialSampler`
            (then `shuffle`, `num_samples` and the shard arguments stay None).
        padded_sample: A row (dict with every column of `columns_list`) appended
            `num_padded` times, so the rows divide evenly into `num_shards`.
        num_padded: How many padded rows, an int >= 0.
        num_samples: Rows to read per pass (per shard), None for all.
        cache: Not supported (must be None).

    Raises:
        TypeError, ValueError: For a bad argument (naming it).
        FileNotFoundError: If a data file is missing.
        cadence.mindrecord.MindRecordError: If a header, page or `.db` index is
            damaged or missing, naming the file and what is wrong.
        RuntimeError: For padding arguments MindSpore also rejects.

    Example:
        See docs/datasets.md ("MindRecord files").
    """

    def __init__(
        self,
        dataset_files: str | Path | Sequence[str],
        columns_list: list[str] | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | None = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        sampler: Any = None,
        padded_sample: dict[str, Any] | None = None,
        num_padded: int | None = None,
        num_samples: int | None = None,
        cache: Any = None,
    ) -> None:
        super().__init__()
        owner = "MindDataset"
        check_unsupported(owner, cache=cache)
        self._files = MindRecordFiles(find_files(dataset_files, owner))
        schema = self._files.schema
        if columns_list is None:
            self._columns = schema.names
        else:
            if not isinstance(columns_list, list):
                raise TypeError(
                    f"For '{owner}', the argument 'columns_list' must be a list of str or None, "
                    f"but got {columns_list!r} of type {type(columns_list).__name__!r}."
                )
            self._columns = check_column_list(columns_list, "columns_list", owner)
            check_names_exist(self._columns, schema.names, "columns_list", owner)
        self._fields = [schema.by_name[n] for n in self._columns]
        self._padded = _padded_rows(
            padded_sample, num_padded, columns_list, self._fields, owner
        )
        total = len(self._files) + len(self._padded)
        reading = Reading(
            num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler
        )
        self._order = source_order(total, owner, reading)
        shard = self._order.shard
        if self._padded and shard is not None and total % shard.num_shards:
            raise RuntimeError(
                f"For '{owner}', the {len(self._files)} rows and {len(self._padded)} padded rows ({total}) must divide "
                f"evenly into {shard.num_shards} shards; adjust 'num_padded'."
            )

    def _names(self) -> list[str]:
        return list(self._columns)

    def _read(self, index: int) -> Row:
        if index >= len(self._files):
            return self._padded[index - len(self._files)]
        values = self._files.read(index, self._columns)
        return tuple(_column_value(f, values[f.name]) for f in self._fields)


def _column_value(field: Field, value: Any) -> np.ndarray[Any, Any]:
    if field.shape is not None:
        return np.asarray(value, dtype=field.type)
    if field.type == "bytes":
        return np.array([bytes(value)])
    if field.type == "string":
        return np.array(str(value))
    return np.array(value, dtype=field.type)


def _padded_rows(
    padded_sample: Any,
    num_padded: Any,
    columns_list: Any,
    fields: list[Field],
    owner: str,
) -> list[Row]:
    """Return the padded rows MindSpore appends (checked as MindSpore checks them)."""
    if padded_sample is None:
        if num_padded is not None:
            raise RuntimeError(
                f"For '{owner}', 'num_padded' is given ({num_padded!r}) but 'padded_sample' is not."
            )
        return []
    if not isinstance(padded_sample, dict):
        raise TypeError(
            f"For '{owner}', the argument 'padded_sample' must be a dict, but got {type(padded_sample).__name__!r}."
        )
    if num_padded is None:
        raise RuntimeError(
            f"For '{owner}', 'padded_sample' is given, so 'num_padded' must be given too."
        )
    count = check_int(num_padded, "num_padded", owner, minimum=0)
    if columns_list is None:
        raise RuntimeError(
            f"For '{owner}', 'padded_sample' is given, so 'columns_list' must be given too."
        )
    missing = [f.name for f in fields if f.name not in padded_sample]
    if missing:
        raise ValueError(
            f"For '{owner}', 'padded_sample' must have a value for every column of 'columns_list', but lacks {missing!r}."
        )
    row = tuple(_padded_value(f, padded_sample[f.name], owner) for f in fields)
    return [row] * count


def _padded_value(field: Field, value: Any, owner: str) -> np.ndarray[Any, Any]:
    try:
        array = _column_value(field, value)
        if field.shape is not None:
            array = array.reshape(field.shape)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"For '{owner}', the value of column {field.name!r} in 'padded_sample' does not fit its type "
            f"{field.type!r}{'' if field.shape is None else f' and shape {list(field.shape)}'}: {exc}"
        ) from None
    array.flags.writeable = False
    return array
