"""One data file being written: its pages as they fill, the index rows of its records, and its commit.

Rows go to the current blob page and raw page; a row that does not fit starts
a new blob page (a new row group in the raw page), or, when the raw page is
full, a new blob page and a new raw page, so a row group never spans raw pages.
New data goes to a temporary file that only `commit` renames into place; an
append writes only new pages after the existing ones and rewrites the header
last, so an interrupted append leaves the old contents readable.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

from ._header import BLOB_PAGE, RAW_PAGE, Header, MindRecordError, Page
from ._index import read_index_rows, write_index

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ShardOut", "partial_path"]


def partial_path(path: Path) -> Path:
    """Return where `path` is written until its commit."""
    return path.with_name(path.name + ".cadence-writing")


class ShardOut:
    """The data file `path`, shard `shard_id`, new (`existing` None) or appended to (`existing` its header)."""

    def __init__(self, path: Path, shard_id: int, existing: Header | None) -> None:
        self.path = path
        self.shard_id = shard_id
        self.appending = existing is not None
        self.pages: list[Page] = [] if existing is None else list(existing.pages)
        self.rows: list[tuple[Any, ...]] = (
            [] if existing is None else read_index_rows(path, with_fields=True)
        )
        self.next_row = 0 if existing is None else existing.rows
        self.compression_size = 0 if existing is None else existing.compression_size
        self._blob: Page | None = None
        self._raw: Page | None = None
        self._chunks: dict[int, bytearray] = {}
        # The file is opened only while writing to it: an abandoned writer holds no handle.
        self._target = path if self.appending else partial_path(path)
        if not self.appending:
            self._target.write_bytes(b"")

    def add(
        self, header: Header, raw: bytes, blob: bytes, index_values: list[Any]
    ) -> None:
        """Add one row: its msgpack raw record, its blob and its index field values."""
        raw_rec = len(raw).to_bytes(8, "little") + raw
        blob_rec = len(blob).to_bytes(8, "little") + blob
        size = header.page_size
        if self._raw is None or self._raw.used + len(raw_rec) > size:
            self._new_blob_page()
            self._raw = self._new_page(RAW_PAGE, start_row=0)
            self._raw.groups.append((self._blob_page().type_id, 0))
        elif self._blob is None or self._blob.used + len(blob_rec) > size:
            self._new_blob_page()
            self._raw.groups.append((self._blob_page().type_id, self._raw.used))
        raw_page, blob_page = self._raw, self._blob_page()
        location = (
            self.next_row,
            raw_page.page_id,
            raw_page.used,
            raw_page.used + len(raw_rec),
            blob_page.type_id,
            blob_page.page_id,
            blob_page.used,
            blob_page.used + len(blob_rec),
        )
        extra = [v for value in index_values for v in (0, value)]
        self.rows.append((*location, *extra))
        self._put(raw_page, raw_rec)
        self._put(blob_page, blob_rec)
        blob_page.end_row += 1
        self.next_row += 1

    def _blob_page(self) -> Page:
        assert self._blob is not None  # created with or before the raw page
        return self._blob

    def _new_blob_page(self) -> None:
        self._blob = self._new_page(BLOB_PAGE, start_row=self.next_row)

    def _new_page(self, kind: str, start_row: int) -> Page:
        type_id = 1 + max((p.type_id for p in self.pages if p.kind == kind), default=-1)
        page = Page(len(self.pages), kind, type_id, start_row, start_row)
        self.pages.append(page)
        return page

    def _put(self, page: Page, record: bytes) -> None:
        self._chunks.setdefault(page.page_id, bytearray()).extend(record)
        page.used += len(record)

    def flush(self, header: Header) -> None:
        """Write the records added since the last flush to their pages."""
        if not self._chunks:
            return
        with open(self._target, "r+b") as file:
            for page_id, chunk in self._chunks.items():
                file.seek(
                    header.page_offset(page_id) + self.pages[page_id].used - len(chunk)
                )
                file.write(chunk)
        self._chunks.clear()

    def finish(self, header: Header) -> None:
        """Write the pending records, the header and the index beside the data (not yet in place)."""
        self.flush(header)
        header.pages = self.pages
        header.compression_size = self.compression_size
        encoded = header.encode(self.shard_id)
        if len(encoded) > header.header_size:
            self.abort()
            raise MindRecordError(
                f"The header of {str(self.path)!r} needs {len(encoded)} bytes, more than the header size "
                f"{header.header_size}; call `set_header_size` with a larger size before writing."
            )
        with open(self._target, "r+b") as file:
            file.write(encoded)
            file.flush()
            os.fsync(file.fileno())
        db = partial_path(self.path.with_name(self.path.name + ".db"))
        write_index(db, self.path.name, header.schema, header.index_fields, self.rows)

    def publish(self) -> None:
        """Move the finished index, then the data (new files), into place.

        An old data file being overwritten goes first: a crash between the two
        moves then leaves an index without data (an error to read), never new
        index entries over old data.
        """
        db = self.path.with_name(self.path.name + ".db")
        if not self.appending:
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.path)
        os.replace(partial_path(db), db)
        if not self.appending:
            os.replace(partial_path(self.path), self.path)

    def abort(self) -> None:
        """Remove what only this writer created."""
        if not self.appending:
            with contextlib.suppress(FileNotFoundError):
                os.remove(partial_path(self.path))
