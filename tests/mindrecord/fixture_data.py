"""The MindRecord fixture datasets, written alike by MindSpore's and by cadence's `FileWriter`, and how rows are recorded.

numpy only: `make_fixtures.py` imports this under MindSpore's interpreter and
under cadence's, and the tests import it to compare what each side read.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mindrecord"

# A 2x2 binary PPM image: Pillow decodes it, and its bytes never change with a library version.
PPM = b"P6\n2 2\n255\n" + bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9])

TYPES_SCHEMA = {
    "label": {"type": "int32"},
    "big": {"type": "int64"},
    "score": {"type": "float32"},
    "ratio": {"type": "float64"},
    "name": {"type": "string"},
    "raw": {"type": "bytes"},
    "vec": {"type": "float32", "shape": [-1]},
    "grid": {"type": "int64", "shape": [2, -1]},
    "small": {"type": "int32", "shape": [3]},
}


def types_rows() -> list[dict[str, Any]]:
    """Five rows over every field type, integer arrays spanning all four stored widths."""
    return [
        {
            "label": [0, -7, 2**31 - 1, -(2**31), 42][i],
            "big": [0, -(2**63), 2**63 - 1, 10**12, -5][i],
            "score": [0.5, -1.25, 3.0, 1e-3, 7.75][i],
            "ratio": [0.1, -2.5, 1e-300, 0.0, 1 / 3][i],
            "name": ["zero", "", "ünïcode", "a b", "x" * 40][i],
            "raw": [PPM, b"", b"\x00\x01\x00", bytes(range(256)), b"\x00"][i],
            "vec": np.arange(i, dtype=np.float32) / 4,
            "grid": np.array(
                [[1, -129, 40000], [-(2**40), 2**63 - 1, -(2**63)]], np.int64
            )[:, : 1 + i % 3]
            * (i % 2 or 1),
            "small": np.array([i, -1000 * i, 70000 * i], np.int32),
        }
        for i in range(5)
    ]


def pages_rows() -> list[dict[str, Any]]:
    """Thirty rows that fill several 32 KiB blob pages and raw pages (page overflow, row groups)."""
    rng = np.random.default_rng(0)
    return [
        {
            "n": i,
            "note": chr(ord("a") + i % 26) * 1500,
            "payload": rng.integers(0, 256, 1500, dtype=np.uint8).tobytes(),
            "ints": rng.integers(-(2**20), 2**20, 50 + i, dtype=np.int64).astype(
                np.int32
            ),
        }
        for i in range(30)
    ]


PAGES_SCHEMA = {
    "n": {"type": "int32"},
    "note": {"type": "string"},
    "payload": {"type": "bytes"},
    "ints": {"type": "int32", "shape": [-1]},
}
SHARDS_SCHEMA = {"id": {"type": "int64"}, "word": {"type": "string"}}
BLOB_ONLY_SCHEMA = {"img": {"type": "bytes"}}


def write_all(writer_class: Any, directory: Path, prefix: str) -> None:
    """Write the four fixture datasets with `writer_class` (MindSpore's or cadence's FileWriter)."""
    small = (1 << 14, 1 << 15)  # the smallest header and page sizes: small files

    def open_writer(name: str, shard_num: int = 1) -> Any:
        writer = writer_class(
            str(directory / f"{prefix}_{name}.mindrecord"),
            shard_num=shard_num,
            overwrite=True,
        )
        writer.set_header_size(small[0])
        writer.set_page_size(small[1])
        return writer

    writer = open_writer("types")
    writer.add_schema(TYPES_SCHEMA, "every field type")
    writer.add_index(["label", "name"])
    rows = types_rows()
    writer.write_raw_data(rows[:3])
    writer.write_raw_data(rows[3:])
    writer.commit()

    writer = open_writer("pages")
    writer.add_schema(PAGES_SCHEMA, "several pages")
    writer.add_index(["n"])
    writer.write_raw_data(pages_rows())
    writer.commit()

    writer = open_writer("shards", shard_num=3)
    writer.add_schema(SHARDS_SCHEMA, "three files")
    writer.write_raw_data([{"id": i, "word": f"w{i}"} for i in range(10)])
    writer.commit()

    writer = open_writer("blobonly")
    writer.add_schema(BLOB_ONLY_SCHEMA, "")
    writer.write_raw_data([{"img": PPM}, {"img": b"\x01" * 5}, {"img": b"\x00"}])
    writer.commit()


# The data file each dataset is opened by (its other shards are found through the header).
DATASETS = {
    "types": "types.mindrecord",
    "pages": "pages.mindrecord",
    "shards": "shards.mindrecord1",
    "blobonly": "blobonly.mindrecord",
}


def describe(value: Any) -> dict[str, Any]:
    """Return a JSON form of one value as a reader returned it: its type, dtype, shape and contents.

    Contents longer than 64 bytes are recorded by their sha256 (of the array's
    bytes, the bytes, or the UTF-8 of the string), so the record stays small.
    """
    if isinstance(value, np.ndarray):
        out: dict[str, Any] = {
            "type": "ndarray",
            "dtype": str(value.dtype),
            "shape": list(value.shape),
        }
        if value.dtype.kind == "S":
            # Each item's full bytes: numpy's item access would drop trailing zero bytes.
            contents: Any = [
                value.reshape(-1)[k : k + 1].tobytes().hex() for k in range(value.size)
            ]
        else:
            contents = value.tolist()
        return {**out, **_contents(contents, np.ascontiguousarray(value).tobytes())}
    if isinstance(value, bytes):
        return {"type": "bytes", **_contents(value.hex(), value)}
    if isinstance(value, str):
        return {"type": "str", **_contents(value, value.encode())}
    return {"type": type(value).__name__, "value": value}


def _contents(contents: Any, data: bytes) -> dict[str, Any]:
    if len(data) <= 64:
        return {"value": contents}
    return {"sha256": hashlib.sha256(data).hexdigest()}
