"""Dataset.zip, concat (+), filter and padded_batch; expected rows recorded on MindSpore 2.10."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence.dataset as ds


def rows(data):
    return [
        [x.tolist() for x in r] for r in data.create_tuple_iterator(output_numpy=True)
    ]


def numbers(n=4, start=0, name="x"):
    return ds.NumpySlicesDataset({name: np.arange(start, start + n)}, shuffle=False)


def pairs():
    return ds.NumpySlicesDataset(
        {"y": np.arange(10, 13), "z": np.arange(3.0)}, shuffle=False
    )


def streamed(n=4, start=0, name="x"):
    """The same rows as `numbers`, from a generator function (no random access)."""
    return ds.GeneratorDataset(
        lambda: ((np.int64(i),) for i in range(start, start + n)), [name]
    )


ZIPPED = [[0, 10, 0.0], [1, 11, 1.0], [2, 12, 2.0]]

CASES: dict[str, tuple[Any, list[str], list[Any]]] = {
    "ds.zip of a tuple": (
        lambda: ds.zip((numbers(), pairs())),
        ["x", "y", "z"],
        ZIPPED,
    ),
    "Dataset.zip of one": (lambda: numbers().zip(pairs()), ["x", "y", "z"], ZIPPED),
    "Dataset.zip of a tuple": (
        lambda: numbers().zip((pairs(),)),
        ["x", "y", "z"],
        ZIPPED,
    ),
    "zip of a stream": (lambda: streamed().zip(pairs()), ["x", "y", "z"], ZIPPED),
    "concat": (
        lambda: numbers().concat(numbers(2, 100)),
        ["x"],
        [[0], [1], [2], [3], [100], [101]],
    ),
    "plus": (lambda: numbers(2) + numbers(2), ["x"], [[0], [1], [0], [1]]),
    "concat of a list": (
        lambda: numbers(1).concat([numbers(1, 5), numbers(1, 9)]),
        ["x"],
        [[0], [5], [9]],
    ),
    "concat of streams": (
        lambda: streamed(2) + numbers(2, 100),
        ["x"],
        [[0], [1], [100], [101]],
    ),
    "filter": (
        lambda: numbers().filter(lambda x: x % 2 == 0, input_columns=["x"]),
        ["x"],
        [[0], [2]],
    ),
    "filter of two columns": (
        lambda: pairs().filter(lambda y, z: y > 10, input_columns=["y", "z"]),
        ["y", "z"],
        [[11, 1.0], [12, 2.0]],
    ),
    "filter of all columns": (
        lambda: pairs().filter(lambda y, z: y > 10),
        ["y", "z"],
        [[11, 1.0], [12, 2.0]],
    ),
    "filter of one column": (
        lambda: pairs().filter(lambda z: z > 1, input_columns="z"),
        ["y", "z"],
        [[12, 2.0]],
    ),
    "filter by truth of a number": (
        lambda: numbers().filter(lambda x: x),
        ["x"],
        [[1], [2], [3]],
    ),
    "filter by truth of a list": (
        lambda: numbers().filter(lambda x: [True, False]),
        ["x"],
        [[0], [1], [2], [3]],
    ),
    "filter then batch": (
        lambda: numbers().filter(lambda x: x > 0).batch(2),
        ["x"],
        [[[1, 2]], [[3]]],
    ),
    "batch then filter": (
        lambda: numbers().batch(2).filter(lambda x: x[0] > 0),
        ["x"],
        [[[2, 3]]],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rows_match_mindspore(case):
    make, names, expected = CASES[case]
    data = make()
    assert data.get_col_names() == names
    assert data.get_dataset_size() == len(expected)
    assert rows(data) == expected


def test_random_access_survives_zip_and_concat():
    ds.config.set_seed(5)
    data = (numbers(6) + numbers(6, 100)).zip(
        ds.NumpySlicesDataset({"w": np.arange(12)}, shuffle=False)
    )
    assert data._random_accessible
    shuffled = rows(data.shuffle(12))
    assert sorted(r[1] for r in shuffled) == list(range(12))
    assert all(x == (w if w < 6 else w + 94) for x, w in shuffled)
    batches = rows(data.shuffle(12).batch(5))
    assert [len(b[0]) for b in batches] == [5, 5, 2]


def test_concat_shuffles_each_part_in_its_own_pass():
    ds.config.set_seed(2)
    data = ds.NumpySlicesDataset({"x": np.arange(8)}) + ds.NumpySlicesDataset(
        {"x": np.arange(8, 16)}
    )
    first = [r[0] for r in rows(data)]
    assert sorted(first[:8]) == list(range(8)) and sorted(first[8:]) == list(
        range(8, 16)
    )
    assert first != [r[0] for r in rows(data)]


def test_filter_predicate_errors_name_the_predicate():
    data = numbers().filter(lambda x: np.array([True, False]))
    with pytest.raises(ValueError, match="truth value") as info:
        rows(data)
    assert "filter predicate" in str(info.value.__notes__)


ERRORS: dict[str, tuple[Any, type[Exception], str]] = {
    "zip repeats a column": (
        lambda: numbers().zip(numbers()),
        ValueError,
        "different column names",
    ),
    "ds.zip of one dataset": (
        lambda: ds.zip(numbers()),
        TypeError,
        "must be a tuple of Datasets",
    ),
    "ds.zip of a list": (
        lambda: ds.zip([numbers(), pairs()]),  # type: ignore[arg-type]
        TypeError,
        "Dataset or a tuple of Datasets",
    ),
    "zip of an int": (lambda: numbers().zip(3), TypeError, "but got 3 of type 'int'"),
    "ds.zip of nothing": (
        lambda: ds.zip(()),
        ValueError,
        "at least two datasets, but got 0",
    ),
    "concat other columns": (
        lambda: numbers().concat(pairs()),
        ValueError,
        "same columns",
    ),
    "concat of an int": (
        lambda: numbers().concat(3),
        TypeError,
        "Dataset or a list of Datasets",
    ),
    "concat of nothing": (
        lambda: numbers().concat([]),
        ValueError,
        "at least one dataset",
    ),
    "concat other dtypes": (
        lambda: rows(numbers() + ds.NumpySlicesDataset({"x": np.arange(3.0)})),
        RuntimeError,
        "'x' is int64 of rank 0 in the first dataset and float64",
    ),
    "concat other ranks of a stream": (
        lambda: rows(
            streamed() + ds.NumpySlicesDataset({"x": np.zeros((3, 2), np.int64)})
        ),
        RuntimeError,
        "int64 of rank 1",
    ),
    "filter of an int": (
        lambda: numbers().filter(3),
        TypeError,
        "'predicate' must be callable",
    ),
    "filter of a missing column": (
        lambda: numbers().filter(lambda x: True, input_columns=["q"]),
        ValueError,
        "'q' in 'input_columns' does not exist",
    ),
    "filter workers": (
        lambda: numbers().filter(lambda x: True, num_parallel_workers=0),
        ValueError,
        "'num_parallel_workers'",
    ),
}


def ragged():
    def gen():
        for i in range(1, 5):
            yield (
                np.arange(i, dtype=np.int32),
                np.full((i, 2), i, np.float32),
                np.int64(i),
            )

    return ds.GeneratorDataset(gen, ["a", "b", "c"])


def typed_rows(data):
    return [
        [(x.tolist(), str(x.dtype)) for x in r]
        for r in data.create_tuple_iterator(output_numpy=True)
    ]


PADDED = {
    "fixed and open dims": (
        3,
        {"a": ([None], 7), "b": ([None, 3], 0.5)},
        [
            [
                ([[0, 7, 7], [0, 1, 7], [0, 1, 2]], "int32"),
                (
                    [
                        [[1.0, 1.0, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]],
                        [[2.0, 2.0, 0.5], [2.0, 2.0, 0.5], [0.5, 0.5, 0.5]],
                        [[3.0, 3.0, 0.5], [3.0, 3.0, 0.5], [3.0, 3.0, 0.5]],
                    ],
                    "float32",
                ),
                ([1, 2, 3], "int64"),
            ],
            [
                ([[0, 1, 2, 3]], "int32"),
                (
                    [
                        [
                            [4.0, 4.0, 0.5],
                            [4.0, 4.0, 0.5],
                            [4.0, 4.0, 0.5],
                            [4.0, 4.0, 0.5],
                        ]
                    ],
                    "float32",
                ),
                ([4], "int64"),
            ],
        ],
    ),
    "empty pad_info pads every column": (
        2,
        {},
        [
            [
                ([[0, 0], [0, 1]], "int32"),
                ([[[1.0, 1.0], [0.0, 0.0]], [[2.0, 2.0], [2.0, 2.0]]], "float32"),
                ([1, 2], "int64"),
            ],
            [
                ([[0, 1, 2, 0], [0, 1, 2, 3]], "int32"),
                (
                    [
                        [[3.0, 3.0], [3.0, 3.0], [3.0, 3.0], [0.0, 0.0]],
                        [[4.0, 4.0], [4.0, 4.0], [4.0, 4.0], [4.0, 4.0]],
                    ],
                    "float32",
                ),
                ([3, 4], "int64"),
            ],
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(PADDED))
def test_padded_batch_matches_mindspore(case):
    size, pad_info, expected = PADDED[case]
    assert typed_rows(ragged().padded_batch(size, pad_info=pad_info)) == expected


def test_batch_with_pad_info_is_padded_batch():
    # MindSpore 1.x scripts spell padded_batch as batch(..., pad_info=...)
    info = {"a": ([None], 7), "b": ([None, 3], 0.5)}
    old = ragged().batch(3, num_parallel_workers=2, pad_info=info)
    assert typed_rows(old) == typed_rows(ragged().padded_batch(3, pad_info=info))
    assert typed_rows(old) == PADDED["fixed and open dims"][2]


def test_padded_batch_pads_beyond_the_longest_and_pads_strings():
    data = ragged().project("a").padded_batch(4, pad_info={"a": ([6], -1)})
    (batch,) = rows(data)
    assert batch[0][3] == [0, 1, 2, 3, -1, -1]
    words = ds.NumpySlicesDataset({"w": np.array(["a", "bcd"])}, shuffle=False)
    assert rows(words.padded_batch(2, pad_info={"w": (None, "")})) == [[["a", "bcd"]]]


PAD_ERRORS: dict[str, tuple[Any, type[Exception], str]] = {
    "None pads nothing": (None, RuntimeError, "Inconsistent batch"),
    "only a is padded": ({"a": ([3], -1)}, RuntimeError, "in column 'b'"),
    "shape too small": (
        {"a": ([2], 0), "b": None},
        RuntimeError,
        "larger than the pad shape",
    ),
    "missing column": ({"q": ([2], 0)}, ValueError, "'q' in 'pad_info' does not exist"),
    "rank differs": (
        {"a": ([2, 3], 0)},
        RuntimeError,
        "has rank 2, but the column's rows have rank 1",
    ),
    "list spec": ({"a": [[5], 0]}, TypeError, "must be a tuple"),
    "string pads numbers": ({"a": ([5], "x")}, RuntimeError, "cannot pad"),
    "not a dict": ([1], TypeError, "'pad_info' must be a dict"),
    "bad shape": ({"a": ([0], 1)}, TypeError, "positive ints and None"),
    "bad value": ({"a": ([5], None)}, TypeError, "pad value"),
}


def padded(pad_info):
    return lambda: rows(ragged().padded_batch(2, pad_info=pad_info))


ERRORS.update(
    (f"padded_batch: {name}", (padded(pad_info), error, message))
    for name, (pad_info, error, message) in PAD_ERRORS.items()
)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    make, error, message = ERRORS[case]
    with pytest.raises(error, match=message):
        make()
