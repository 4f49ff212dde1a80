"""Damaged MindRecord files (a copy of MindSpore's fixture, broken one way each): clear errors naming the file."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import cadence.dataset as ds
from cadence.mindrecord import FileReader, MindRecordError
from tests.mindrecord.fixture_data import FIXTURES

if TYPE_CHECKING:
    from collections.abc import Callable

NAME = "mindspore_types.mindrecord"  # the header names it: a copy keeps the name


def _db(path: Path, sql: str) -> None:
    db = sqlite3.connect(f"{path}.db")
    with db:
        db.execute(sql)
    db.close()


def _row0(path: Path) -> tuple[int, int, int, int]:
    """Return the file offsets of row 0's raw record and blob, and the header and page sizes."""
    head = json.loads(
        path.read_bytes()[8 : 8 + int.from_bytes(path.read_bytes()[:8], "little")]
    )
    db = sqlite3.connect(f"{path}.db")
    raw_page, raw_at, blob_page, blob_at = db.execute(
        "SELECT PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_ID_BLOB, PAGE_OFFSET_BLOB FROM INDEXES WHERE ROW_ID = 0"
    ).fetchone()
    db.close()
    size, page = head["header_size"], head["page_size"]
    return (
        size + page * raw_page + raw_at,
        size + page * blob_page + blob_at,
        size,
        page,
    )


def _patch(path: Path, offset: int, data: bytes) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def _rewrite_header(path: Path, change: Callable[[dict[str, Any]], object]) -> None:
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    head = json.loads(raw[8 : 8 + n])
    change(head)
    text = json.dumps(head).encode()
    path.write_bytes(len(text).to_bytes(8, "little") + text + raw[8 + len(text) :])


DAMAGES: dict[str, tuple[Callable[[Path], object], str]] = {
    "length_prefix": (
        lambda p: _patch(p, 0, b"\xff" * 8),
        "is not a MindRecord data file",
    ),
    "header_json": (
        lambda p: _patch(p, 8, b"X"),
        "header .* is damaged: it is not JSON",
    ),
    "header_entry": (
        lambda p: _rewrite_header(p, lambda h: h.pop("page")),
        "header .* is damaged: .*'page'",
    ),
    "header_version": (
        lambda p: _rewrite_header(p, lambda h: h.update(version="9.0")),
        "format version '9.0'",
    ),
    "header_schema": (
        lambda p: _rewrite_header(
            p, lambda h: h["schema"][0]["schema"].update(bad={"type": "uint8"})
        ),
        "'bad' must be a dict with 'type' one of",
    ),
    "truncated": (
        lambda p: p.write_bytes(p.read_bytes()[: _row0(p)[2] + 100]),
        "past the end of the file .* truncated",
    ),
    "missing_db": (
        lambda p: Path(f"{p}.db").unlink(),
        r"index file .*types\.mindrecord\.db.* is missing",
    ),
    "db_not_sqlite": (
        lambda p: Path(f"{p}.db").write_bytes(b"not a database" * 100),
        "cannot be read as a MindRecord index",
    ),
    "db_of_another_file": (
        lambda p: shutil.copy(FIXTURES / "mindspore_blobonly.mindrecord.db", f"{p}.db"),
        "belongs to the data file 'mindspore_blobonly.mindrecord', not 'mindspore_types.mindrecord'",
    ),
    "renamed": (
        lambda p: _rewrite_header(
            p, lambda h: h.update(shard_addresses=["old.mindrecord"])
        ),
        r"names its dataset's files \['old.mindrecord'\], not 'mindspore_types.mindrecord'",
    ),
    "db_missing_a_row": (
        lambda p: _db(p, "DELETE FROM INDEXES WHERE ROW_ID = 4"),
        "lists 4 rows, but the header .* counts 5",
    ),
    "db_offset_past_page": (
        lambda p: _db(
            p, "UPDATE INDEXES SET PAGE_OFFSET_BLOB_END = 99999 WHERE ROW_ID = 2"
        ),
        "points at bytes up to 99999 of page 0 .* the index is damaged",
    ),
    "record_length": (
        lambda p: _patch(p, _row0(p)[0], b"\x07" + b"\0" * 7),
        "Row 0 .* is damaged: its record says 7 bytes",
    ),
    "raw_record": (
        lambda p: _patch(p, _row0(p)[0] + 8, b"\xc1"),
        "Row 0 .* is damaged: its raw record does not decode",
    ),
    "blob_lengths": (
        lambda p: _patch(p, _row0(p)[1] + 8, b"\xff" * 8),
        "Row 0 .* is damaged: field 'grid' claims",
    ),
}


READERS: dict[str, Callable[[str], object]] = {
    "FileReader": lambda path: list(FileReader(path).get_next()),
    "MindDataset": lambda path: list(
        ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True)
    ),
}


@pytest.fixture
def damaged_copy(tmp_path: Path) -> Path:
    for suffix in ("", ".db"):
        shutil.copy(FIXTURES / f"{NAME}{suffix}", tmp_path / f"{NAME}{suffix}")
    return tmp_path / NAME


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_damage_is_reported_with_the_file_and_what_is_wrong(
    damaged_copy: Path, damage: str, reader: str
) -> None:
    breaks, match = DAMAGES[damage]
    breaks(damaged_copy)
    with pytest.raises(MindRecordError, match=match) as info:
        READERS[reader](str(damaged_copy))
    assert NAME in str(info.value)
