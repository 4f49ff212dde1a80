"""`FileWriter`: rows of Python data into MindRecord files, as `mindspore.mindrecord.FileWriter`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ..validation import check_bool, check_int
from ._blob import pack_blob
from ._files import check_file_name
from ._header import (
    DEFAULT_HEADER_SIZE,
    DEFAULT_PAGE_SIZE,
    HEADER_SIZE_RANGE,
    PAGE_SIZE_RANGE,
    Header,
    read_header,
)
from ._schema import check_name_list, check_schema
from ._shard_out import ShardOut

if TYPE_CHECKING:
    from pathlib import Path

    from ._schema import Schema

__all__ = ["FileWriter"]

_MAX_SHARDS = 1000


class FileWriter:
    """Write rows (dicts of Python values) into MindRecord files that MindSpore 2.10 reads, and back.

    Each of `shard_num` data files gets a SQLite index `<file>.db` beside it.
    With `shard_num` > 1 the files are `file_name0`, `file_name1`, ... (zero-padded
    to the same width), and each `write_raw_data` call spreads its rows over them
    in contiguous runs. Rows go to temporary files; `commit` writes the headers
    and indexes and only then moves the files into place, so an interrupted
    write never leaves a file that looks complete.

    Args:
        file_name: The data file (the first of them when `shard_num` > 1).
        shard_num: Number of data files, in [1, 1000].
        overwrite: Replace existing files of the same names (at `commit`);
            otherwise an existing file is an error.

    Raises:
        TypeError, ValueError: For a bad argument.
        RuntimeError: If a file exists and `overwrite` is False.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from cadence.mindrecord import FileReader, FileWriter
        >>> path = os.path.join(tempfile.mkdtemp(), "points.mindrecord")
        >>> writer = FileWriter(path)
        >>> writer.add_schema({"label": {"type": "int32"}, "xy": {"type": "float32", "shape": [2]}}, "points")
        >>> writer.write_raw_data([{"label": i, "xy": np.full(2, i, np.float32)} for i in range(3)])
        >>> writer.commit()
        >>> [row["label"] for row in FileReader(path).get_next()]
        [0, 1, 2]
    """

    def __init__(
        self, file_name: str | Path, shard_num: int = 1, overwrite: bool = False
    ) -> None:
        where = "FileWriter"
        path = check_file_name(file_name, "file_name", where)
        count = check_int(shard_num, "shard_num", where, minimum=1, maximum=_MAX_SHARDS)
        self._overwrite = check_bool(overwrite, "overwrite", where)
        if not path.parent.is_dir():
            raise ValueError(
                f"For '{where}', the directory of 'file_name' {str(path)!r} does not exist; create it first."
            )
        width = len(str(count - 1))
        self._paths = (
            [path]
            if count == 1
            else [path.with_name(f"{path.name}{i:0{width}d}") for i in range(count)]
        )
        if not self._overwrite:
            _refuse_existing(self._paths)
        self._schema: Schema | None = None
        self._index: list[str] | None = None
        self._header_size = DEFAULT_HEADER_SIZE
        self._page_size = DEFAULT_PAGE_SIZE
        self._header: Header | None = None
        self._shards: list[ShardOut] = []
        self._existing: list[Header] | None = None
        self._committed = False
        self._encoder = msgspec.msgpack.Encoder()

    @classmethod
    def open_for_append(cls, file_name: str | Path) -> FileWriter:
        """Return a writer that appends rows to the existing MindRecord dataset `file_name` belongs to.

        New rows go to new pages after the existing ones; `commit` rewrites the
        headers and indexes. Until then the files read as before.

        Raises:
            FileNotFoundError: If a file of the dataset is missing.
            MindRecordError: If a header is damaged or an index is missing.
        """
        where = "FileWriter.open_for_append"
        path = check_file_name(file_name, "file_name", where)
        first = read_header(path)
        paths = [path.with_name(a) for a in first.addresses]
        writer = cls(paths[0], overwrite=True)
        writer._paths = paths
        writer._existing = [read_header(p) for p in paths]
        writer._schema = first.schema
        writer._index = first.index_fields
        writer._header_size, writer._page_size = first.header_size, first.page_size
        return writer

    def add_schema(self, content: dict[str, Any], desc: str | None = None) -> None:
        """Set the schema: `{name: {"type": t}}` or `{name: {"type": t, "shape": [...]}}` per field.

        Types: int32, int64, float32, float64, string, bytes; a `shape` (ints > 0,
        at most one -1 for a free dimension) makes a numeric field an array.

        Raises:
            TypeError, ValueError: If the schema is malformed (naming the field).
            RuntimeError: If a schema was already added.
        """
        if self._schema is not None:
            raise RuntimeError(
                "For 'FileWriter.add_schema', the schema is already set; a MindRecord file holds one schema."
            )
        self._schema = check_schema(content, desc, "FileWriter.add_schema")

    def add_index(self, index_fields: list[str]) -> None:
        """Choose the fields the `.db` index holds (scalar numbers and strings); default: all such fields.

        Raises:
            TypeError: If `index_fields` is not a non-empty list of str.
            ValueError: If a field is not in the schema or is bytes or an array.
            RuntimeError: If no schema was added yet, or rows were written.
        """
        where = "FileWriter.add_index"
        index_fields = check_name_list(index_fields, "index_fields", where)
        schema = self._require_schema(where)
        if self._header is not None:
            raise RuntimeError(
                f"For '{where}', the index fields must be chosen before the first `write_raw_data`."
            )
        for name in index_fields:
            field = schema.by_name.get(name)
            if field is None or not field.indexable:
                why = (
                    "is not in the schema"
                    if field is None
                    else "is bytes or an array, not a scalar"
                )
                raise ValueError(
                    f"For '{where}', the index field {name!r} {why}; index fields: {schema.raw_fields!r}."
                )
        self._index = list(dict.fromkeys(index_fields))

    def set_header_size(self, header_size: int) -> None:
        """Set the header area of each file, in bytes: a multiple of 4 in [16 KiB, 128 MiB] (default 16 MiB)."""
        self._header_size = self._check_size(
            header_size, "header_size", HEADER_SIZE_RANGE
        )

    def set_page_size(self, page_size: int) -> None:
        """Set the page size, in bytes: a multiple of 4 in [32 KiB, 256 MiB] (default 32 MiB); a row must fit a page."""
        self._page_size = self._check_size(page_size, "page_size", PAGE_SIZE_RANGE)

    def _check_size(self, value: Any, name: str, bounds: tuple[int, int]) -> int:
        where = f"FileWriter.set_{name}"
        size = check_int(value, name, where, minimum=bounds[0], maximum=bounds[1])
        if size % 4:
            raise ValueError(
                f"For '{where}', the argument '{name}' must be a multiple of 4, but got {size}."
            )
        if self._header is not None or self._existing is not None:
            raise RuntimeError(
                f"For '{where}', the size must be set before the first `write_raw_data` of a new file."
            )
        return size

    def write_raw_data(
        self, raw_data: list[dict[str, Any]], parallel_writer: bool = False
    ) -> None:
        """Check every row against the schema, then add them all (or none) to the files.

        Args:
            raw_data: A non-empty list of dicts, each with a value for every
                schema field (other keys are ignored).
            parallel_writer: Accepted for compatibility; rows are written by the
                calling thread (the files are the same).

        Raises:
            TypeError: If `raw_data` is not a list of dicts.
            ValueError: If a row lacks a field or a value does not fit the
                schema (naming the row and the field); nothing is written then.
            RuntimeError: Before `add_schema`, after `commit`, or if a row is
                larger than a page.
        """
        where = "FileWriter.write_raw_data"
        check_bool(parallel_writer, "parallel_writer", where)
        if self._committed:
            raise RuntimeError(
                f"For '{where}', the files are committed; use `FileWriter.open_for_append` to add rows."
            )
        schema = self._require_schema(where)
        rows: Any = raw_data  # checked: callers may pass anything
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise TypeError(
                f"For '{where}', the argument 'raw_data' must be a list of dicts, but got {type(raw_data).__name__!r}."
            )
        if not raw_data:
            raise RuntimeError(f"For '{where}', 'raw_data' holds no rows.")
        header = self._open()
        encoded = [
            self._encode(schema, header, row, i, where)
            for i, row in enumerate(raw_data)
        ]
        per_shard, extra = divmod(len(encoded), len(self._shards))
        start = 0
        for k, shard in enumerate(self._shards):
            stop = start + per_shard + (k < extra)
            for raw, blob, saved, index_values in encoded[start:stop]:
                shard.add(header, raw, blob, index_values)
                shard.compression_size += saved
            shard.flush(header)
            start = stop

    def _encode(
        self, schema: Schema, header: Header, row: dict[str, Any], i: int, where: str
    ) -> tuple[bytes, bytes, int, list[Any]]:
        raw_values, blob_values = schema.split_row(row, i, where)
        # MindSpore stores a placeholder raw record for a schema of blob fields only.
        raw = self._encoder.encode(raw_values or {"id": 0})
        blob = pack_blob(schema, blob_values, header.compressed)
        plain = sum(len(v) if isinstance(v, bytes) else v.nbytes for v in blob_values)
        plain += 8 * len(blob_values) if len(blob_values) > 1 else 0
        if max(len(raw), len(blob)) + 8 > header.page_size:
            raise RuntimeError(
                f"For '{where}', row {i} of 'raw_data' needs {max(len(raw), len(blob)) + 8} bytes, more than a page "
                f"({header.page_size}); call `set_page_size` with a larger size before writing."
            )
        return (
            raw,
            blob,
            max(plain - len(blob), 0) if blob_values else 0,
            [raw_values[f] for f in header.index_fields],
        )

    def _require_schema(self, where: str) -> Schema:
        if self._schema is None:
            raise RuntimeError(
                f"For '{where}', no schema is set; call `add_schema` first."
            )
        return self._schema

    def _open(self) -> Header:
        if self._header is None:
            schema = self._require_schema("FileWriter.write_raw_data")
            index = self._index if self._index is not None else list(schema.raw_fields)
            names = [p.name for p in self._paths]
            self._header = Header(
                schema, index, names, self._header_size, self._page_size
            )
            existing = self._existing or [None] * len(self._paths)  # type: ignore[list-item]
            if self._existing is not None:
                self._header.version = self._existing[0].version
            for k, (path, old) in enumerate(zip(self._paths, existing, strict=True)):
                self._shards.append(ShardOut(path, k, old))
        return self._header

    def commit(self) -> None:
        """Write the headers and `.db` indexes, then move the files into place.

        Raises:
            RuntimeError: Before `add_schema`, or if the header outgrows the
                header size; if files appeared meanwhile and `overwrite` is False.
        """
        if self._committed:
            raise RuntimeError(
                "For 'FileWriter.commit', the files are already committed."
            )
        header = self._open()
        if not self._overwrite:
            self._abort_if_existing()
        try:
            for shard in self._shards:
                shard.finish(header)
        except BaseException:
            for shard in self._shards:
                shard.abort()
            raise
        for shard in self._shards:
            shard.publish()
        self._committed = True

    def _abort_if_existing(self) -> None:
        try:
            _refuse_existing(self._paths)
        except RuntimeError:
            for shard in self._shards:
                shard.abort()
            raise


def _refuse_existing(paths: list[Path]) -> None:
    taken = [
        str(p) for p in paths if p.exists() or p.with_name(p.name + ".db").exists()
    ]
    if taken:
        raise RuntimeError(
            f"For 'FileWriter', the MindRecord file(s) {taken} already exist (or their .db); remove them or pass "
            "overwrite=True."
        )
