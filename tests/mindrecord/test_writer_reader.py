"""`cadence.mindrecord`: rows written by `FileWriter` come back from `FileReader`, and bad input is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cadence.mindrecord import FileReader, FileWriter, MindRecordError
from cadence.mindrecord._blob import pack_blob, unpack_blob
from cadence.mindrecord._schema import check_schema
from tests.mindrecord.fixture_data import FIXTURES, TYPES_SCHEMA, types_rows

SMALL = {"header": 1 << 14, "page": 1 << 15}


def new_writer(path: Path, schema: dict[str, Any], **kwargs: Any) -> FileWriter:
    writer = FileWriter(str(path), **kwargs)
    writer.set_header_size(SMALL["header"])
    writer.set_page_size(SMALL["page"])
    writer.add_schema(schema, "test")
    return writer


def read_all(path: Path | str | list[str], **kwargs: Any) -> list[dict[str, Any]]:
    reader = FileReader(path if isinstance(path, list) else str(path), **kwargs)
    try:
        return list(reader.get_next())
    finally:
        reader.close()


def assert_rows_equal(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert sorted(g) == sorted(w)
        for key, value in w.items():
            if isinstance(value, np.ndarray):
                assert g[key].dtype == value.dtype and g[key].shape == value.shape, key
                np.testing.assert_array_equal(g[key], value)
            elif isinstance(value, float):
                assert g[key] == pytest.approx(value, rel=1e-6), (
                    key
                )  # float32 fields round
            else:
                assert g[key] == value, key


@pytest.mark.parametrize("shard_num", [1, 3])
def test_every_type_round_trips_through_the_files(
    tmp_path: Path, shard_num: int
) -> None:
    writer = new_writer(tmp_path / "all.mr", TYPES_SCHEMA, shard_num=shard_num)
    rows = types_rows()
    writer.write_raw_data(rows[:2])
    writer.write_raw_data(rows[2:])
    writer.commit()
    first = "all.mr" if shard_num == 1 else "all.mr0"
    got = read_all(tmp_path / first)
    assert_rows_equal(
        sorted(got, key=lambda r: r["label"]), sorted(rows, key=lambda r: r["label"])
    )
    if shard_num == 3:
        # Each call spreads its rows over the files in runs, the first files taking the extra rows.
        per_file = [
            [r["label"] for r in read_all([str(tmp_path / f"all.mr{k}")])]
            for k in range(3)
        ]
        labels = [r["label"] for r in rows]
        assert per_file == [[labels[0], labels[2]], [labels[1], labels[3]], [labels[4]]]
        assert sorted(p.name for p in tmp_path.iterdir()) == [
            f"all.mr{k}{s}" for k in range(3) for s in ("", ".db")
        ]


def test_reader_columns_len_and_schema(tmp_path: Path) -> None:
    writer = new_writer(tmp_path / "a.mr", TYPES_SCHEMA)
    writer.write_raw_data(types_rows())
    writer.commit()
    reader = FileReader(str(tmp_path / "a.mr"), columns=["small", "name"])
    assert reader.len() == 5
    assert reader.schema() == TYPES_SCHEMA
    first = next(reader.get_next())
    assert list(first) == ["small", "name"]
    assert first["name"] == "zero"


def test_append_adds_rows_and_keeps_the_old_ones(tmp_path: Path) -> None:
    path = tmp_path / "grow.mr"
    writer = new_writer(
        path, {"i": {"type": "int64"}, "v": {"type": "int32", "shape": [-1]}}
    )
    writer.write_raw_data(
        [{"i": i, "v": np.arange(i, dtype=np.int32)} for i in range(3)]
    )
    writer.commit()
    before = path.read_bytes()[SMALL["header"] :]
    more = FileWriter.open_for_append(str(path))
    more.write_raw_data(
        [{"i": i, "v": np.arange(i, dtype=np.int32)} for i in range(3, 5)]
    )
    assert [r["i"] for r in read_all(path)] == [0, 1, 2]  # nothing shows before commit
    more.commit()
    rows = read_all(path)
    assert [r["i"] for r in rows] == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(rows[4]["v"], np.arange(4, dtype=np.int32))
    assert path.read_bytes()[SMALL["header"] :].startswith(
        before
    )  # old pages untouched


def test_an_uncommitted_writer_leaves_no_file_that_looks_complete(
    tmp_path: Path,
) -> None:
    path = tmp_path / "crash.mr"
    writer = new_writer(path, {"x": {"type": "bytes"}})
    writer.write_raw_data([{"x": b"a" * 1000}] * 5)
    # A crash here: only the temporary file exists; the name readers use does not.
    assert not path.exists() and not Path(f"{path}.db").exists()
    with pytest.raises(FileNotFoundError, match=r"crash\.mr"):
        FileReader(str(path))
    writer.commit()
    assert len(read_all(path)) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crash.mr", "crash.mr.db"]


def test_a_failed_commit_leaves_nothing_behind(tmp_path: Path) -> None:
    writer = new_writer(
        tmp_path / "big.mr", {f"f{k}": {"type": "int32"} for k in range(900)}
    )
    writer.write_raw_data([{f"f{k}": k for k in range(900)}])
    with pytest.raises(MindRecordError, match="set_header_size"):
        writer.commit()  # the header lists 900 fields: more than 16 KiB
    assert list(tmp_path.iterdir()) == []


def test_overwrite_decides_whether_existing_files_are_replaced(tmp_path: Path) -> None:
    path = tmp_path / "d.mr"
    writer = new_writer(path, {"i": {"type": "int32"}})
    writer.write_raw_data([{"i": 1}])
    writer.commit()
    with pytest.raises(RuntimeError, match="already exist"):
        FileWriter(str(path))
    writer = new_writer(path, {"i": {"type": "int32"}}, overwrite=True)
    writer.write_raw_data([{"i": 2}, {"i": 3}])
    writer.commit()
    assert [r["i"] for r in read_all(path)] == [2, 3]


def test_a_row_larger_than_a_page_is_refused(tmp_path: Path) -> None:
    writer = new_writer(tmp_path / "p.mr", {"x": {"type": "bytes"}})
    with pytest.raises(RuntimeError, match="set_page_size"):
        writer.write_raw_data([{"x": b"\0" * SMALL["page"]}])


GOOD_ROW = {"i": 1, "f": 0.5, "s": "a", "b": b"x", "a": np.zeros(4, np.float32)}
SCHEMA = {
    "i": {"type": "int32"},
    "f": {"type": "float64"},
    "s": {"type": "string"},
    "b": {"type": "bytes"},
    "a": {"type": "float32", "shape": [2, -1]},
}


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"i": None}, ValueError, "row 1 of 'raw_data' has no field 'i'"),
        ({"i": "1"}, ValueError, "'i' of row 1 .* must be a number"),
        (
            {"i": 2**31},
            ValueError,
            r"'i' of row 1 .* an int in \[-2147483648, 2147483647\]",
        ),
        ({"i": True}, ValueError, "'i' of row 1 .* must be a number"),
        ({"f": "0.5"}, ValueError, "'f' of row 1"),
        ({"s": b"a"}, ValueError, "'s' of row 1 .* must be a str"),
        ({"b": "x"}, ValueError, "'b' of row 1 .* must be bytes"),
        ({"a": np.zeros(4, np.float64)}, ValueError, "dtype float32 .* dtype float64"),
        ({"a": np.zeros(5, np.float32)}, ValueError, r"reshapes to \[2, -1\]"),
        ({"a": [0.0] * 4}, ValueError, "'a' of row 1 .* numpy array"),
    ],
)
def test_rows_that_do_not_fit_the_schema_are_refused_whole(
    tmp_path: Path, change: dict[str, Any], error: type, match: str
) -> None:
    path = tmp_path / "s.mr"
    writer = new_writer(path, SCHEMA)
    bad = {k: v for k, v in {**GOOD_ROW, **change}.items() if v is not None}
    with pytest.raises(error, match=match):
        writer.write_raw_data([GOOD_ROW, bad])
    writer.write_raw_data([GOOD_ROW])
    writer.commit()
    assert len(read_all(path)) == 1  # nothing of the refused call was written


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda p: FileWriter(p, shard_num=0),
            ValueError,
            r"'shard_num' must be an int in \[1, 1000\]",
        ),
        (lambda p: FileWriter(p, shard_num="2"), TypeError, "'shard_num'"),  # type: ignore[arg-type]
        (
            lambda p: FileWriter(p, overwrite="yes"),  # type: ignore[arg-type]
            TypeError,
            "'overwrite' must be a bool",
        ),
        (lambda p: FileWriter(""), TypeError, "'file_name' must be a non-empty str"),
        (lambda p: FileWriter(p + "a:b"), ValueError, "'file_name' must name a file"),
        (
            lambda p: FileWriter(p + "/no/x.mr"),
            ValueError,
            "directory of 'file_name' .* does not exist",
        ),
        (lambda p: FileWriter(p).add_schema([]), TypeError, "'content' must be a dict"),  # type: ignore[arg-type]
        (lambda p: FileWriter(p).add_schema({}), ValueError, "at least one field"),
        (
            lambda p: FileWriter(p).add_schema({"a-b": {"type": "int32"}}),
            ValueError,
            "letters, digits and '_'",
        ),
        (
            lambda p: FileWriter(p).add_schema({"a": {"type": "uint8"}}),
            ValueError,
            "'type' one of",
        ),
        (
            lambda p: FileWriter(p).add_schema({"a": {"type": "bytes", "shape": [1]}}),
            ValueError,
            "cannot have a 'shape'",
        ),
        (
            lambda p: FileWriter(p).add_schema(
                {"a": {"type": "int32", "shape": [-1, -1]}}
            ),
            ValueError,
            "at most one -1",
        ),
        (
            lambda p: FileWriter(p).add_schema({"a": {"type": "int32", "size": 1}}),
            ValueError,
            "unknown attributes",
        ),
        (
            lambda p: FileWriter(p).add_index(["a"]),
            RuntimeError,
            "call `add_schema` first",
        ),
        (
            lambda p: FileWriter(p).write_raw_data([{}]),
            RuntimeError,
            "call `add_schema` first",
        ),
        (
            lambda p: FileWriter(p).set_header_size((1 << 14) - 4),
            ValueError,
            r"'header_size' must be an int in \[16384, ",
        ),
        (
            lambda p: FileWriter(p).set_page_size((1 << 15) + 2),
            ValueError,
            "multiple of 4",
        ),
    ],
)
def test_bad_writer_arguments_name_what_is_wrong(
    tmp_path: Path, call: Any, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        call(str(tmp_path / "w.mr"))


def test_index_fields_must_be_scalars_of_the_schema(tmp_path: Path) -> None:
    writer = new_writer(tmp_path / "i.mr", SCHEMA)
    with pytest.raises(ValueError, match="'b' is bytes or an array"):
        writer.add_index(["b"])
    with pytest.raises(ValueError, match="'z' is not in the schema"):
        writer.add_index(["z"])
    with pytest.raises(TypeError, match="non-empty list of str"):
        writer.add_index("i")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="one schema"):
        writer.add_schema(SCHEMA)
    writer.write_raw_data([GOOD_ROW])
    writer.commit()
    with pytest.raises(RuntimeError, match="open_for_append"):
        writer.write_raw_data([GOOD_ROW])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=40),
    st.sampled_from(["int32", "int64"]),
)
def test_compressed_integer_arrays_round_trip(values: list[int], dtype: str) -> None:
    info = np.iinfo(dtype)
    array = np.array([min(max(v, info.min), info.max) for v in values], dtype=dtype)
    schema = check_schema(
        {"v": {"type": dtype, "shape": [-1]}, "w": {"type": "bytes"}}, None, "test"
    )
    blob = pack_blob(schema, [array, b"tail"], compress=True)  # sorted field order
    got = unpack_blob(schema, blob, ["v", "w"], compressed=True)
    np.testing.assert_array_equal(got["v"], array)
    assert got["v"].dtype == array.dtype and got["w"] == b"tail"
    # Stored narrow: count, a 2-bit width per element, then at most the full width each.
    assert len(blob) <= 24 + -(-len(array) // 4) + 8 * len(array)


def test_appending_to_mindspore_files_spreads_rows_over_its_files(
    tmp_path: Path,
) -> None:
    for k in range(3):
        for suffix in ("", ".db"):
            name = f"mindspore_shards.mindrecord{k}{suffix}"
            (tmp_path / name).write_bytes((FIXTURES / name).read_bytes())
    writer = FileWriter.open_for_append(str(tmp_path / "mindspore_shards.mindrecord1"))
    writer.write_raw_data([{"id": 10 + i, "word": f"w{10 + i}"} for i in range(4)])
    writer.commit()
    per_file = [
        [r["id"] for r in read_all([str(tmp_path / f"mindspore_shards.mindrecord{k}")])]
        for k in range(3)
    ]
    # MindSpore's own files hold 3, 4 and 3 rows; the 4 new ones go 2, 1, 1 after them.
    assert per_file == [[0, 1, 2, 10, 11], [3, 4, 5, 6, 12], [7, 8, 9, 13]]
    assert [r["word"] for r in read_all(tmp_path / "mindspore_shards.mindrecord0")][
        -1
    ] == "w13"


def test_the_docstring_example_runs() -> None:
    import doctest

    import cadence.mindrecord

    result = doctest.testmod(
        cadence.mindrecord, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 8 and result.failed == 0
