"""TextFileDataset and CSVDataset on files written here; expected rows recorded on MindSpore 2.10.

MindSpore was run with `num_parallel_workers=1` where several files are read
unshuffled (its parallel readers interleave files by worker count; cadence reads
them in order, see docs/mindspore-differences.md).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest

import cadence.dataset as ds


@pytest.fixture
def text_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.txt").write_bytes(b"hello world\nsecond line\n\nfourth\n")
    (tmp_path / "b.txt").write_bytes(b"b1\nb2")
    (tmp_path / "c.txt").write_bytes(b"c1\nc2\nc3\nc4\n")
    (tmp_path / "crlf.txt").write_bytes(b"x1\r\nx2\r\n  \r\n\xc3\xa9t\xc3\xa9\n")
    (tmp_path / "h.csv").write_text('a,b,c\n1,2.5,x\n3,,y z\n"q,1",4,\n')
    (tmp_path / "s.csv").write_text("1;2\n3;4\n")
    (tmp_path / "q.csv").write_text('"he said ""hi""",2\n  sp , 3\n\n5,6\n')
    (tmp_path / "n.csv").write_text("1,2\n3,4\n5,6\n7,8\n9,10\n")
    (tmp_path / "r.csv").write_text("1,2\n3\n")
    return tmp_path


def texts(data):
    return [str(r[0]) for r in data.create_tuple_iterator(output_numpy=True)]


ABC = ["a.txt", "b.txt", "c.txt"]
A_ROWS = ["hello world", "second line", "fourth"]

TEXT_CASES = {
    "all files in order": (
        {"dataset_files": ABC},
        [*A_ROWS, "b1", "b2", "c1", "c2", "c3", "c4"],
    ),
    "sorted file list": (
        {"dataset_files": ["c.txt", "a.txt"]},
        [*A_ROWS, "c1", "c2", "c3", "c4"],
    ),
    "glob pattern": ({"dataset_files": "[ab].txt"}, [*A_ROWS, "b1", "b2"]),
    "shard 1 of 2 wraps": (
        {"dataset_files": ABC, "num_shards": 2, "shard_id": 1},
        ["c1", "c2", "c3", "c4", "hello world"],
    ),
    "shard 3 of 4": ({"dataset_files": ABC, "num_shards": 4, "shard_id": 3}, A_ROWS),
    "shard 19 of 20": (
        {"dataset_files": ABC, "num_shards": 20, "shard_id": 19},
        ["second line"],
    ),
    "num_samples": ({"dataset_files": ABC, "num_samples": 2}, A_ROWS[:2]),
    "num_samples 0 is all": (
        {"dataset_files": "b.txt", "num_samples": 0},
        ["b1", "b2"],
    ),
    "shard and num_samples": (
        {"dataset_files": ABC, "num_shards": 3, "shard_id": 2, "num_samples": 2},
        ["c2", "c3"],
    ),
    "carriage returns kept": (
        {"dataset_files": "crlf.txt"},
        ["x1\r", "x2\r", "  \r", "été"],
    ),
}


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_text_file_rows_match_mindspore(text_dir, case):
    kwargs, expected = TEXT_CASES[case]
    assert isinstance(kwargs, dict)
    data = ds.TextFileDataset(shuffle=False, **kwargs)
    assert data.get_col_names() == ["text"]
    assert data.get_dataset_size() == len(expected)
    assert texts(data) == expected


def test_text_rows_are_strings_of_their_own_length(text_dir):
    row = next(
        ds.TextFileDataset("a.txt", shuffle=False).create_dict_iterator(
            output_numpy=True
        )
    )
    assert row["text"].dtype == np.dtype("<U11") and row["text"].shape == ()
    first, second = (
        ds.TextFileDataset("a.txt", shuffle=False)
        .batch(2)
        .create_tuple_iterator(output_numpy=True)
    )
    assert first[0].tolist() == A_ROWS[:2] and second[0].dtype == np.dtype("<U6")


@pytest.mark.parametrize(
    "level", [True, None, ds.Shuffle.GLOBAL, ds.Shuffle.FILES, ds.Shuffle.INFILE]
)
def test_every_shuffle_level_reads_every_row_once_and_is_seeded(text_dir, level):
    ds.config.set_seed(3)
    data = ds.TextFileDataset(ABC, shuffle=level)
    first = texts(data)
    assert Counter(first) == Counter(texts(ds.TextFileDataset(ABC, shuffle=False)))
    ds.config.set_seed(3)
    assert texts(ds.TextFileDataset(ABC, shuffle=level)) == first


def test_shuffle_levels_keep_what_they_promise(text_dir):
    ds.config.set_seed(1)
    files_only = [
        texts(ds.TextFileDataset(ABC, shuffle=ds.Shuffle.FILES)) for _ in range(6)
    ]
    by_file = [A_ROWS, ["b1", "b2"], ["c1", "c2", "c3", "c4"]]
    file_orders = [list(itertools.chain(*p)) for p in itertools.permutations(by_file)]
    assert all(
        order in file_orders for order in files_only
    )  # each file's rows together, in order
    assert len({tuple(o) for o in files_only}) > 1
    in_file = [
        texts(ds.TextFileDataset(ABC, shuffle=ds.Shuffle.INFILE)) for _ in range(6)
    ]
    for order in in_file:  # the files stay in order
        assert sorted(order[:3]) == sorted(A_ROWS) and sorted(order[3:5]) == [
            "b1",
            "b2",
        ]
    assert len({tuple(o) for o in in_file}) > 1


def test_shuffled_shards_partition_one_order(text_dir):
    ds.config.set_seed(7)
    shards = [
        ds.TextFileDataset(ABC, num_shards=3, shard_id=i, shuffle=ds.Shuffle.FILES)
        for i in range(3)
    ]
    rows = [texts(s) for s in shards]
    assert all(len(r) == 3 for r in rows)
    assert Counter(itertools.chain(*rows)) == Counter(
        texts(ds.TextFileDataset(ABC, shuffle=False))
    )


TEXT_ERRORS: dict[str, tuple[dict[str, Any], type[Exception], str]] = {
    "missing file": ({"dataset_files": "nope.txt"}, ValueError, "match no file"),
    "not a path": ({"dataset_files": 3}, TypeError, "'dataset_files' must be a str"),
    "empty list": ({"dataset_files": []}, ValueError, "at least one file"),
    "int shuffle": (
        {"dataset_files": "a.txt", "shuffle": 1},
        TypeError,
        "'shuffle' must be a bool or a cadence.dataset.Shuffle",
    ),
    "negative num_samples": (
        {"dataset_files": "a.txt", "num_samples": -1},
        ValueError,
        "'num_samples'",
    ),
    "shard without id": (
        {"dataset_files": "a.txt", "num_shards": 2},
        ValueError,
        "'shard_id' must be given",
    ),
    "cache": (
        {"dataset_files": "a.txt", "cache": object()},
        NotImplementedError,
        "'cache'",
    ),
}


def csv_rows(data):
    return [
        [x.item() for x in row] for row in data.create_tuple_iterator(output_numpy=True)
    ]


CSV_CASES = {
    "header names the columns": (
        {"dataset_files": "h.csv"},
        ["a", "b", "c"],
        [["1", "2.5", "x"], ["3", "", "y z"], ["q,1", "4", ""]],
    ),
    "column_names make the header a row": (
        {"dataset_files": "h.csv", "column_names": ["p", "q", "r"]},
        ["p", "q", "r"],
        [["a", "b", "c"], ["1", "2.5", "x"], ["3", "", "y z"], ["q,1", "4", ""]],
    ),
    "delimiter and typed columns": (
        {
            "dataset_files": "s.csv",
            "field_delim": ";",
            "column_names": ["u", "v"],
            "column_defaults": [1.0, 2],
        },
        ["u", "v"],
        [[1.0, 2], [3.0, 4]],
    ),
    "fewer defaults than columns": (
        {"dataset_files": "s.csv", "field_delim": ";", "column_defaults": [1]},
        ["1", "2"],
        [[3, "4"]],
    ),
    "a bool default is an int": (
        {"dataset_files": "n.csv", "column_defaults": [True, 2]},
        ["1", "2"],
        [[3, 4], [5, 6], [7, 8], [9, 10]],
    ),
    "quotes and spaces": (
        {
            "dataset_files": "q.csv",
            "column_names": ["u", "v"],
            "column_defaults": ["", 0],
        },
        ["u", "v"],
        [['he said "hi"', 2], ["  sp ", 3], ["5", 6]],
    ),
    "wrong delimiter: one column": ({"dataset_files": "s.csv"}, ["1;2"], [["3;4"]]),
    "shard 1 of 2 wraps": (
        {
            "dataset_files": "n.csv",
            "column_names": ["u", "v"],
            "num_shards": 2,
            "shard_id": 1,
        },
        ["u", "v"],
        [["7", "8"], ["9", "10"], ["1", "2"]],
    ),
    "num_samples": (
        {"dataset_files": "n.csv", "column_names": ["u", "v"], "num_samples": 2},
        ["u", "v"],
        [["1", "2"], ["3", "4"]],
    ),
}


@pytest.mark.parametrize("case", sorted(CSV_CASES))
def test_csv_rows_match_mindspore(text_dir, case):
    kwargs, names, expected = CSV_CASES[case]
    assert isinstance(kwargs, dict) and isinstance(expected, list)
    data = ds.CSVDataset(shuffle=False, **kwargs)
    assert data.get_col_names() == names
    assert data.get_dataset_size() == len(expected)
    assert csv_rows(data) == expected


def test_csv_types_are_int32_float32_and_strings(text_dir):
    data = ds.CSVDataset(
        "s.csv",
        field_delim=";",
        column_names=["u", "v"],
        column_defaults=[1.0, 2],
        shuffle=False,
    )
    u, v = next(data.create_tuple_iterator(output_numpy=True))
    assert (u.dtype, v.dtype, u.shape) == (np.float32, np.int32, ())
    (x,) = next(
        ds.CSVDataset("s.csv", shuffle=False).create_tuple_iterator(output_numpy=True)
    )
    assert x.dtype == np.dtype("<U3")


def test_csv_field_may_hold_a_line_break(text_dir):
    (text_dir / "m.csv").write_text('k,v\n"two\nlines",1\n')
    assert csv_rows(ds.CSVDataset("m.csv", shuffle=False)) == [["two\nlines", "1"]]


CSV_ERRORS: dict[str, tuple[dict[str, Any], type[Exception], str]] = {
    "empty field of an int column": (
        {"dataset_files": "h.csv", "column_defaults": [0, 0.0, ""]},
        RuntimeError,
        "'' of column 'b' in 'h.csv' is not a float",
    ),
    "short record": (
        {"dataset_files": "r.csv", "column_names": ["u", "v"]},
        RuntimeError,
        "record 2 of 'r.csv' has 1 fields",
    ),
    "headers differ": (
        {"dataset_files": ["s.csv", "h.csv"], "field_delim": ";"},
        RuntimeError,
        "header must name the same columns",
    ),
    "two-char delimiter": (
        {"dataset_files": "s.csv", "field_delim": ";;"},
        ValueError,
        "'field_delim' must be one character",
    ),
    "quote delimiter": (
        {"dataset_files": "s.csv", "field_delim": '"'},
        ValueError,
        "'field_delim'",
    ),
    "int delimiter": (
        {"dataset_files": "s.csv", "field_delim": 1},
        TypeError,
        "'field_delim' must be a str",
    ),
    "tuple defaults": (
        {"dataset_files": "n.csv", "column_defaults": (1, 2)},
        TypeError,
        "'column_defaults' must be a list",
    ),
    "None default": (
        {"dataset_files": "n.csv", "column_defaults": [None, 2]},
        TypeError,
        "got None of type 'NoneType'",
    ),
    "numpy default": (
        {"dataset_files": "n.csv", "column_defaults": [np.int64(1), 2]},
        TypeError,
        "'column_defaults'",
    ),
    "too many defaults": (
        {"dataset_files": "n.csv", "column_defaults": [1, 2, 3]},
        ValueError,
        "gives 3 types",
    ),
    "str column_names": (
        {"dataset_files": "n.csv", "column_names": "u"},
        TypeError,
        "'column_names' must be a list of str",
    ),
    "repeated column_names": (
        {"dataset_files": "n.csv", "column_names": ["u", "u"]},
        RuntimeError,
        "duplicate column names",
    ),
}


ERRORS = {
    **{("TextFileDataset", k): v for k, v in TEXT_ERRORS.items()},
    **{("CSVDataset", k): v for k, v in CSV_ERRORS.items()},
}


@pytest.mark.parametrize(("source", "case"), sorted(ERRORS))
def test_bad_arguments_and_files(text_dir, source, case):
    kwargs, error, message = ERRORS[source, case]
    with pytest.raises(error, match=message):
        texts(getattr(ds, source)(**{"shuffle": False, **kwargs}))
