from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence
import cadence.dataset as ds


def rows(dataset: ds.Dataset, **kwargs: Any) -> list[list[Any]]:
    return [
        [a.tolist() for a in row]
        for row in dataset.create_tuple_iterator(output_numpy=True, **kwargs)
    ]


def test_dict_columns_take_the_keys_as_names():
    data = ds.NumpySlicesDataset(
        {"x": np.arange(4), "y": np.arange(4) * 10}, shuffle=False
    )
    assert data.get_col_names() == ["x", "y"]
    assert rows(data) == [[0, 0], [1, 10], [2, 20], [3, 30]]


def test_tuple_gives_one_column_per_element_named_column_i():
    data = ds.NumpySlicesDataset(([1, 2], [3.0, 4.0], [[5, 6], [7, 8]]), shuffle=False)
    assert data.get_col_names() == ["column_0", "column_1", "column_2"]
    assert rows(data) == [[1, 3.0, [5, 6]], [2, 4.0, [7, 8]]]


def test_list_and_array_are_one_column():
    assert ds.NumpySlicesDataset([1, 2, 3], shuffle=False).get_col_names() == [
        "column_0"
    ]
    data = ds.NumpySlicesDataset(
        np.zeros((5, 2, 3)), column_names="image", shuffle=False
    )
    assert data.get_col_names() == ["image"]
    assert data.output_shapes() == [[2, 3]]
    assert data.get_dataset_size() == 5


def test_column_names_override_dict_keys():
    data = ds.NumpySlicesDataset({"a": [1], "b": [2]}, column_names=["x", "y"])
    assert data.get_col_names() == ["x", "y"]


def test_data_is_copied_so_later_changes_do_not_leak_in():
    source = np.arange(4)
    data = ds.NumpySlicesDataset(source, shuffle=False)
    source[:] = -1
    assert rows(data) == [[0], [1], [2], [3]]


def test_shuffle_defaults_to_true_as_in_mindspore():
    cadence.set_seed(3)
    data = ds.NumpySlicesDataset(np.arange(50))
    order = [r[0] for r in rows(data)]
    assert sorted(order) == list(range(50))
    assert order != list(range(50))


def test_shuffle_false_keeps_order_and_num_samples_limits():
    data = ds.NumpySlicesDataset(np.arange(10), num_samples=4, shuffle=False)
    assert data.get_dataset_size() == 4
    assert [r[0] for r in rows(data)] == [0, 1, 2, 3]


def test_num_samples_with_shuffle_draws_distinct_rows():
    data = ds.NumpySlicesDataset(np.arange(10), num_samples=4)
    got = [r[0] for r in rows(data)]
    assert len(got) == 4
    assert len(set(got)) == 4


def test_python_floats_stay_float64_like_numpy():
    data = ds.NumpySlicesDataset([0.5, 1.5], shuffle=False)
    assert data.output_types() == [np.dtype(np.float64)]


@pytest.mark.parametrize(
    ("data", "kwargs", "error", "match"),
    [
        (
            {"x": [1, 2], "y": [1]},
            {},
            ValueError,
            r"same number of rows, but the lengths are \[2, 1\]",
        ),
        (
            5,
            {},
            TypeError,
            r"'data' must be a list, tuple, dict or numpy array, but got 'int'",
        ),
        ((), {}, ValueError, "at least one column"),
        ([], {}, ValueError, "no rows"),
        (([1, 2], 3), {}, ValueError, r"column 1 is a scalar \(3\)"),
        ([[1, 2], [3]], {}, TypeError, "column 0 is not rectangular"),
        (
            [1, 2],
            {"column_names": ["a", "b"]},
            RuntimeError,
            r"names 2 columns \['a', 'b'\], but the data has 1",
        ),
        (
            [1, 2],
            {"column_names": 3},
            TypeError,
            "'column_names' must be a str or a non-empty list of str",
        ),
        ([1, 2], {"column_names": ["a", "a"]}, ValueError, "must not repeat a column"),
        (
            [1, 2],
            {"num_samples": 0},
            ValueError,
            r"'num_samples' must be an int >= 1, but got 0",
        ),
        ([1, 2], {"shuffle": 1}, TypeError, "'shuffle' must be a bool, but got 1"),
        (
            [1, 2],
            {"num_shards": 2},
            RuntimeError,
            "'num_shards' and 'shard_id' must be given together, but got num_shards=2 and shard_id=None",
        ),
        (
            [1, 2],
            {"num_shards": 2, "shard_id": 2},
            ValueError,
            r"'shard_id' must be an int in \[0, 1\], but got 2",
        ),
    ],
)
def test_invalid_arguments_are_named(data, kwargs, error, match):
    with pytest.raises(error, match=match):
        ds.NumpySlicesDataset(data, **kwargs)


def test_seed_tutorial_pipeline_gives_two_batches():
    # The MindSpore Callback docs example: 64 rows, batch 32.
    data = {
        "x": np.float32(np.random.rand(64, 10)),
        "y": np.random.randint(0, 5, (64,)),
    }
    dataset = ds.NumpySlicesDataset(data=data).batch(32)
    assert dataset.get_dataset_size() == 2
    batches = list(dataset)
    assert [b[0].shape for b in batches] == [(32, 10), (32, 10)]
    assert isinstance(batches[0][0], cadence.Tensor)
