"""Reading a MindRecord dataset: its data files, checked against their headers and indexes, row by row.

One file name finds all the files of its dataset (the header lists them, as
`shard_addresses`, in the same directory); a list of names reads exactly those,
in that order. Rows are numbered through the files in order. Data is read on
demand through a memory map, so a dataset larger than memory reads fine.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import numpy as np

from ._blob import BlobError, unpack_blob
from ._header import BLOB_PAGE, RAW_PAGE, Header, MindRecordError, read_header
from ._index import read_index

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._schema import Schema

__all__ = ["MindRecordFiles", "check_file_name", "find_files"]

_FORBIDDEN = set("\\/:*?\"<>|`&;'")


def check_file_name(value: Any, name: str, where: str) -> Path:
    """Return a MindRecord file name as a Path: a non-empty str (or Path) whose last part MindSpore accepts."""
    if not isinstance(value, str | Path) or not str(value):
        raise TypeError(
            f"For '{where}', the argument '{name}' must be a non-empty str (a file path), but got {value!r} "
            f"of type {type(value).__name__!r}."
        )
    text = str(value)
    base = Path(text).name
    if (
        text.endswith("/")
        or not base
        or set(base) & _FORBIDDEN
        or base != base.strip(" ")
    ):
        raise ValueError(
            f"For '{where}', the argument '{name}' must name a file whose name has none of "
            f"\\/:*?\"<>|`&;' and no leading or trailing space, but got {text!r}."
        )
    return Path(text)


def find_files(dataset_files: Any, where: str) -> list[Path]:
    """Return the data files `dataset_files` names (one name: it and its siblings; a list: those)."""
    if isinstance(dataset_files, list | tuple):
        if not dataset_files:
            raise ValueError(
                f"For '{where}', the argument 'dataset_files' must not be an empty list."
            )
        paths = [check_file_name(f, "dataset_files", where) for f in dataset_files]
    else:
        first = check_file_name(dataset_files, "dataset_files", where)
        _must_exist(first, where)
        addresses = read_header(first).addresses
        if first.name not in addresses:
            raise MindRecordError(
                f"For '{where}', the header of {str(first)!r} names its dataset's files {addresses!r}, not "
                f"{first.name!r}: a MindRecord file cannot be renamed (its .db records the name too)."
            )
        paths = [first.with_name(a) for a in addresses]
    for path in paths:
        _must_exist(path, where)
    return paths


def _must_exist(path: Path, where: str) -> None:
    if not path.is_file():
        raise FileNotFoundError(
            f"For '{where}', the MindRecord file {str(path)!r} does not exist."
        )


class _File:
    """One data file: its header, its row locations (checked), and a memory map opened on first read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header = read_header(path)
        self.locations = read_index(path)
        self._check_locations()
        self._map: mmap.mmap | None = None

    def _check_locations(self) -> None:
        loc, header = self.locations, self.header
        if len(loc) != header.rows or not np.array_equal(
            loc[:, 0], np.arange(len(loc))
        ):
            raise MindRecordError(
                f"The index {self.path.name}.db lists {len(loc)} rows, but the header of {str(self.path)!r} counts "
                f"{header.rows}: the file and its index do not match (one is damaged or from another write)."
            )
        kinds = {p.page_id: (p.kind, p.used) for p in header.pages}
        for page_col, start_col, kind in ((1, 2, RAW_PAGE), (5, 6, BLOB_PAGE)):
            for page_id, end in _page_ends(loc[:, page_col], loc[:, start_col + 1]):
                if kinds.get(page_id, ("", 0))[0] != kind or end > kinds[page_id][1]:
                    raise MindRecordError(
                        f"The index {self.path.name}.db points at bytes up to {end} of page {page_id} of "
                        f"{str(self.path)!r}, which is not a {kind} page of that many bytes: the index is damaged."
                    )

    def record(self, row: int, page_col: int) -> bytes:
        """Return the bytes of row `row`'s raw record (`page_col` 1) or blob (`page_col` 5)."""
        page, start, end = (
            int(v) for v in self.locations[row, page_col : page_col + 3]
        )
        if self._map is None:
            with open(self.path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        base = self.header.page_offset(page) + start
        size = int.from_bytes(self._map[base : base + 8], "little")
        if end - start != size + 8:
            raise MindRecordError(
                f"Row {row} of the MindRecord file {str(self.path)!r} is damaged: its record says {size} bytes, "
                f"its index {end - start - 8}."
            )
        return self._map[base + 8 : base + 8 + size]

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None


def _page_ends(
    pages: np.ndarray[Any, Any], ends: np.ndarray[Any, Any]
) -> list[tuple[int, int]]:
    """Return (page, largest end offset) for each page the index points at."""
    if not len(pages):
        return []
    order = np.lexsort((ends, pages))
    last = np.r_[pages[order][1:] != pages[order][:-1], True]
    return [
        (int(p), int(e))
        for p, e in zip(pages[order][last], ends[order][last], strict=True)
    ]


class MindRecordFiles:
    """The rows of a MindRecord dataset's data files, read by global row number.

    Args:
        paths: The data files, in reading order (see `find_files`).

    Raises:
        FileNotFoundError: If a file is missing.
        MindRecordError: If a header, an index or the pages they describe are
            damaged, an index is missing, or the files' schemas differ.
    """

    def __init__(self, paths: Sequence[Path]) -> None:
        self.files = [_File(p) for p in paths]
        first = self.files[0]
        for f in self.files[1:]:
            if f.header.meta() != first.header.meta():
                raise MindRecordError(
                    f"The MindRecord files {str(first.path)!r} and {str(f.path)!r} have different schemas, index "
                    "fields or sizes; files read together must come from one writer."
                )
        counts = [f.header.rows for f in self.files]
        self._starts = np.cumsum([0, *counts])
        self.header: Header = first.header
        self.schema: Schema = first.header.schema
        self._decoder = msgspec.msgpack.Decoder()

    def __len__(self) -> int:
        return int(self._starts[-1])

    def read(self, row: int, names: Sequence[str]) -> dict[str, Any]:
        """Return the values of fields `names` of global row `row`, as Python values and numpy arrays."""
        k = int(np.searchsorted(self._starts, row, side="right")) - 1
        file, local = self.files[k], row - int(self._starts[k])
        schema = self.schema
        values: dict[str, Any] = {}
        raw_names = [n for n in names if n in schema.raw_fields]
        if raw_names:
            try:
                raw = self._decoder.decode(file.record(local, 1))
                values.update({n: raw[n] for n in raw_names})
            except (msgspec.DecodeError, KeyError, TypeError) as exc:
                raise MindRecordError(
                    f"Row {local} of the MindRecord file {str(file.path)!r} is damaged: its raw record does not "
                    f"decode ({type(exc).__name__}: {exc})."
                ) from None
        blob_names = [n for n in names if n in schema.blob_fields]
        if blob_names:
            try:
                values.update(
                    unpack_blob(
                        schema,
                        file.record(local, 5),
                        blob_names,
                        file.header.compressed,
                    )
                )
            except BlobError as exc:
                raise MindRecordError(
                    f"Row {local} of the MindRecord file {str(file.path)!r} is damaged: {exc}."
                ) from None
        return {n: values[n] for n in names}

    def close(self) -> None:
        """Close the memory maps (reading again reopens them)."""
        for f in self.files:
            f.close()
