"""The header of a MindRecord data file: its JSON (schema, index fields, pages, shard names) and its checks.

A data file is: an 8-byte little-endian length and that many bytes of JSON at
offset 0, inside a header area of `header_size` bytes; then pages of
`page_size` bytes, page `i` at `header_size + i * page_size`. A BLOB_DATA page
holds consecutive rows' blobs (rows `start_row_id` to `end_row_id - 1` of the
file); a RAW_DATA page holds row groups, group `g` being the raw records of the
rows of the blob page whose `page_type_id` is `g`. Each record is an 8-byte
little-endian length and its bytes; `page_size` in a page entry is the bytes used.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from ._schema import Schema, check_schema

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "BLOB_PAGE",
    "DEFAULT_HEADER_SIZE",
    "DEFAULT_PAGE_SIZE",
    "HEADER_SIZE_RANGE",
    "PAGE_SIZE_RANGE",
    "RAW_PAGE",
    "VERSION",
    "Header",
    "MindRecordError",
    "Page",
    "read_header",
]

VERSION: Final = "3.0"
_READABLE_VERSIONS: Final = ("2.0", "3.0")  # 2.0 stores integer arrays uncompressed
DEFAULT_HEADER_SIZE: Final = 1 << 24
DEFAULT_PAGE_SIZE: Final = 1 << 25
HEADER_SIZE_RANGE: Final = (1 << 14, 1 << 27)
PAGE_SIZE_RANGE: Final = (1 << 15, 1 << 28)
BLOB_PAGE: Final = "BLOB_DATA"
RAW_PAGE: Final = "RAW_DATA"


class MindRecordError(RuntimeError):
    """A MindRecord file or its index that cannot be read: the message names the file and what is wrong."""


@dataclass(slots=True)
class Page:
    """One page entry of a header (see the module docstring); `used` is the bytes it holds."""

    page_id: int
    kind: str
    type_id: int
    start_row: int = 0
    end_row: int = 0
    groups: list[tuple[int, int]] = field(default_factory=list)
    used: int = 0

    def as_json(self, shard_id: int) -> dict[str, Any]:
        """Return the page's entry in the header of shard `shard_id`."""
        return {
            "end_row_id": self.end_row,
            "page_id": self.page_id,
            "page_size": self.used,
            "page_type": self.kind,
            "page_type_id": self.type_id,
            "row_group_ids": [{"id": g, "offset": o} for g, o in self.groups],
            "shard_id": shard_id,
            "start_row_id": self.start_row,
        }


@dataclass
class Header:
    """What a data file's header says (the `meta` part is the same in every file of a dataset)."""

    schema: Schema
    index_fields: list[str]
    addresses: list[str]
    header_size: int = DEFAULT_HEADER_SIZE
    page_size: int = DEFAULT_PAGE_SIZE
    version: str = VERSION
    pages: list[Page] = field(default_factory=list)
    compression_size: int = 0

    @property
    def compressed(self) -> bool:
        """Whether integer arrays are stored compressed."""
        return self.version != "2.0" and self.schema.compresses_ints

    @property
    def rows(self) -> int:
        """Return the number of rows the file holds (those of its blob pages)."""
        return sum(p.end_row - p.start_row for p in self.pages if p.kind == BLOB_PAGE)

    def meta(self) -> tuple[Any, ...]:
        """Return what must agree between the files of one dataset."""
        return (
            self.header_size,
            self.page_size,
            self.version,
            self.index_fields,
            self.schema.as_json(),
        )

    def page_offset(self, page_id: int) -> int:
        """Return the file offset where page `page_id` starts."""
        return self.header_size + self.page_size * page_id

    def encode(self, shard_id: int) -> bytes:
        """Return the header as stored at offset 0 of shard `shard_id`: length, then JSON."""
        body = {
            "header_size": self.header_size,
            "index_fields": [
                {"index_field": f, "schema_id": 0} for f in self.index_fields
            ],
            "page": [p.as_json(shard_id) for p in self.pages],
            "page_size": self.page_size,
            "compression_size": self.compression_size,
            "schema": [self.schema.as_json()],
            "shard_addresses": self.addresses,
            "shard_id": shard_id,
            "statistics": None,
            "version": self.version,
        }
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        return len(text).to_bytes(8, "little") + text


def read_header(path: Path) -> Header:
    """Read and check the header of the data file `path`.

    Raises:
        FileNotFoundError: If `path` does not exist.
        MindRecordError: If the file is too short, the header does not parse,
            lacks an entry, or its pages lie beyond the end of the file.
    """
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(8)
            length = int.from_bytes(head, "little") if len(head) == 8 else -1
            if length < 2 or length + 8 > min(size, HEADER_SIZE_RANGE[1]):
                raise MindRecordError(
                    f"{str(path)!r} is not a MindRecord data file: its first 8 bytes should give the length of its "
                    f"JSON header, but give {length} for a file of {size} bytes (damaged, or another format)."
                )
            text = f.read(length)
    except FileNotFoundError:
        raise FileNotFoundError(
            f"The MindRecord file {str(path)!r} does not exist."
        ) from None
    try:
        body = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MindRecordError(
            f"The header of the MindRecord file {str(path)!r} is damaged: it is not JSON ({exc})."
        ) from None
    return _parse(body, path, size)


def _parse(body: Any, path: Path, size: int) -> Header:
    try:
        if body["version"] not in _READABLE_VERSIONS:
            raise MindRecordError(
                f"The MindRecord file {str(path)!r} has format version {body['version']!r}; cadence reads "
                f"{list(_READABLE_VERSIONS)}."
            )
        (entry,) = body["schema"]
        schema = check_schema(
            entry["schema"], entry["desc"], f"MindRecord header of {path.name}"
        )
        header = Header(
            schema,
            [str(f["index_field"]) for f in body["index_fields"] or []],
            [str(a) for a in body["shard_addresses"]],
            int(body["header_size"]),
            int(body["page_size"]),
            str(body["version"]),
        )
        header.pages = [_page(p) for p in body["page"] or []]
    except MindRecordError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise MindRecordError(
            f"The header of the MindRecord file {str(path)!r} is damaged: {type(exc).__name__} {exc} "
            "(an entry is missing or has the wrong type)."
        ) from None
    _check_pages(header, path, size)
    return header


def _page(entry: dict[str, Any]) -> Page:
    kind = entry["page_type"]
    if kind not in (BLOB_PAGE, RAW_PAGE):
        raise ValueError(f"unknown page type {kind!r}")
    groups = [(int(g["id"]), int(g["offset"])) for g in entry["row_group_ids"]]
    return Page(
        int(entry["page_id"]),
        kind,
        int(entry["page_type_id"]),
        int(entry["start_row_id"]),
        int(entry["end_row_id"]),
        groups,
        int(entry["page_size"]),
    )


def _check_pages(header: Header, path: Path, size: int) -> None:
    for i, page in enumerate(header.pages):
        problem = ""
        if page.page_id != i:
            problem = f"entry {i} has page id {page.page_id}"
        elif not 0 <= page.used <= header.page_size or page.start_row > page.end_row:
            problem = f"page {i} claims {page.used} bytes (pages hold {header.page_size}) or rows {page.start_row}..{page.end_row}"
        elif page.used and header.page_offset(i) + page.used > size:
            problem = (
                f"page {i} ends at byte {header.page_offset(i) + page.used}, past the end of the file "
                f"({size} bytes): the file is truncated"
            )
        if problem:
            raise MindRecordError(
                f"The MindRecord file {str(path)!r} is damaged: {problem}."
            )
