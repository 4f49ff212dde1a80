"""The SQLite index beside each data file (`<file>.db`): where each row's records are, and the index fields.

Table `INDEXES` has one row per data row: its raw record (page, start, end)
and blob (page, start, end), each start pointing at the 8-byte length before
the record; then for each index field `f`, a column `INC_<k>` (always 0) and a
column `<f>_0` holding the value. Table `SHARD_NAME` holds the data file's
name, which readers check, so a renamed file no longer finds its index.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._header import MindRecordError

if TYPE_CHECKING:
    from pathlib import Path

    from ._schema import Schema

__all__ = ["LOCATION_COLUMNS", "read_index", "read_index_rows", "write_index"]

LOCATION_COLUMNS: Final = (
    "ROW_ID",
    "PAGE_ID_RAW",
    "PAGE_OFFSET_RAW",
    "PAGE_OFFSET_RAW_END",
    "ROW_GROUP_ID",
    "PAGE_ID_BLOB",
    "PAGE_OFFSET_BLOB",
    "PAGE_OFFSET_BLOB_END",
)
_SQL_TYPE: Final = {
    "int32": "INTEGER",
    "int64": "INTEGER",
    "float32": "NUMERIC",
    "float64": "NUMERIC",
    "string": "TEXT",
}
_TIMEOUT_S: Final = 10.0  # a locked database is an error after this, never a hang


def write_index(
    path: Path,
    shard_name: str,
    schema: Schema,
    index_fields: list[str],
    rows: list[tuple[Any, ...]],
) -> None:
    """Create the index database `path` (replacing any) for rows of `LOCATION_COLUMNS` + index values."""
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
    columns = [f"{c} INT NOT NULL" for c in LOCATION_COLUMNS]
    names = list(LOCATION_COLUMNS)
    for k, field in enumerate(index_fields):
        columns += [
            f"INC_{k} INT",
            f"{field}_0 {_SQL_TYPE[schema.by_name[field].type]}",
        ]
        names += [f"INC_{k}", f"{field}_0"]
    keys = ",".join(["ROW_ID"] + [f"INC_{k}" for k in range(len(index_fields))])
    db = sqlite3.connect(path, timeout=_TIMEOUT_S)
    try:
        with db:
            db.execute(
                f"CREATE TABLE INDEXES({', '.join(columns)}, PRIMARY KEY({keys}))"
            )
            db.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
            db.execute("INSERT INTO SHARD_NAME (NAME) VALUES (?)", (shard_name,))
            marks = ",".join("?" * len(names))
            db.executemany(
                f"INSERT INTO INDEXES ({','.join(names)}) VALUES ({marks})", rows
            )
    finally:
        db.close()


def read_index(data_path: Path) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Return the row locations of `data_path` from its `.db`, one row of `LOCATION_COLUMNS` per data row.

    Raises:
        MindRecordError: As `read_index_rows`.
    """
    rows = read_index_rows(data_path, with_fields=False)
    return np.array(rows, dtype=np.int64).reshape(-1, len(LOCATION_COLUMNS))


def read_index_rows(data_path: Path, with_fields: bool) -> list[tuple[Any, ...]]:
    """Return the rows of the `.db` of `data_path` in row order: `LOCATION_COLUMNS`, then (`with_fields`) the rest.

    Raises:
        MindRecordError: If the `.db` is missing, is not an SQLite database of
            MindRecord's layout, or names another data file.
    """
    db_path = data_path.with_name(data_path.name + ".db")
    if not db_path.is_file():
        raise MindRecordError(
            f"The index file {str(db_path)!r} of the MindRecord file {str(data_path)!r} is missing; a MindRecord "
            "file is read with the .db its writer created beside it."
        )
    try:
        db = sqlite3.connect(
            f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=_TIMEOUT_S
        )
        try:
            names = db.execute("SELECT NAME FROM SHARD_NAME").fetchall()
            columns = list(LOCATION_COLUMNS)
            if with_fields:
                table = [r[1] for r in db.execute("PRAGMA table_info(INDEXES)")]
                columns += [c for c in table if c not in LOCATION_COLUMNS]
            rows = db.execute(
                f"SELECT {','.join(columns)} FROM INDEXES ORDER BY ROW_ID"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise MindRecordError(
            f"The index file {str(db_path)!r} cannot be read as a MindRecord index (SQLite: {exc})."
        ) from None
    if not names or names[0][0] != data_path.name:
        found = names[0][0] if names else None
        raise MindRecordError(
            f"The index file {str(db_path)!r} belongs to the data file {found!r}, not {data_path.name!r}; "
            "a MindRecord file cannot be renamed."
        )
    return [tuple(r) for r in rows]
