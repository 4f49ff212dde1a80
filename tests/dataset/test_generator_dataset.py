from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence
import cadence.dataset as ds


def column(dataset: ds.Dataset, index: int = 0) -> list[Any]:
    return [
        row[index].tolist() for row in dataset.create_tuple_iterator(output_numpy=True)
    ]


class MapStyle:
    """A random-accessible source, as in MindSpore's docs."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.fetched: list[int] = []

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        self.fetched.append(index)
        return np.array([index, index]), np.array(index * 10)

    def __len__(self) -> int:
        return self.n


def test_generator_function_is_called_afresh_each_pass():
    calls = []

    def gen():
        calls.append(1)
        for i in range(3):
            yield np.array([i]), np.array([1] * (i + 1))

    data = ds.GeneratorDataset(source=gen, column_names=["col1", "col2"])
    assert column(data, 1) == [[1], [1, 1], [1, 1, 1]]
    assert column(data) == [[0], [1], [2]]
    assert len(calls) == 2


class Counter:
    """Iterable only (no __getitem__): iterated afresh each pass, never shuffled by default."""

    def __iter__(self):
        return iter(range(4))


def test_iterable_source_and_single_value_items():
    data = ds.GeneratorDataset(Counter(), "v")
    assert column(data) == [0, 1, 2, 3]
    assert column(data) == [0, 1, 2, 3]
    assert data.get_dataset_size() == 4


def test_a_range_is_random_accessible():
    data = ds.GeneratorDataset(range(4), "v", shuffle=False)
    assert data.get_dataset_size() == 4
    assert column(data) == [0, 1, 2, 3]


def test_list_items_are_one_column_each():
    data = ds.GeneratorDataset(lambda: iter([[1, 2.5]]), ["a", "b"])
    assert next(iter(data.create_tuple_iterator(output_numpy=True))) == [1, 2.5]


def test_random_accessible_source_shuffles_by_default_and_fetches_each_index_once():
    cadence.set_seed(0)
    source = MapStyle(20)
    data = ds.GeneratorDataset(source, ["x", "y"])
    got = column(data, 1)
    assert sorted(got) == [i * 10 for i in range(20)]
    assert got != sorted(got)
    assert sorted(source.fetched) == list(range(20))


def test_random_accessible_source_in_order_with_num_samples_and_batch():
    data = ds.GeneratorDataset(
        MapStyle(10), ["x", "y"], shuffle=False, num_samples=5
    ).batch(2)
    assert data.get_dataset_size() == 3
    assert column(data, 1) == [[0, 10], [20, 30], [40]]
    assert data.output_shapes() == [[2, 2], [2]]


def test_size_of_a_generator_is_counted_by_iterating_once():
    calls = []

    def gen():
        calls.append(1)
        yield from range(7)

    data = ds.GeneratorDataset(gen, "v").batch(3)
    assert data.get_dataset_size() == 3
    assert data.get_dataset_size() == 3
    assert len(calls) == 1


def test_num_samples_limits_an_iterable():
    assert column(
        ds.GeneratorDataset(lambda: iter(range(100)), "v", num_samples=3)
    ) == [0, 1, 2]


def test_column_types_cast_rows():
    data = ds.GeneratorDataset(
        lambda: iter([(1, 2.0)]), ["a", "b"], column_types=[cadence.int32, np.float32]
    )
    assert data.output_types() == [np.dtype(np.int32), np.dtype(np.float32)]


def test_rows_are_copies_of_what_the_source_yields():
    buffer = np.zeros(2)

    def gen():
        for i in range(3):
            buffer[:] = i
            yield (buffer,)

    assert column(ds.GeneratorDataset(gen, "v")) == [[0, 0], [1, 1], [2, 2]]


def test_wrong_number_of_columns_fails_when_iterating():
    data = ds.GeneratorDataset(lambda: iter([(1, 2, 3)]), ["a", "b"])
    with pytest.raises(
        RuntimeError,
        match=r"yielded 3 columns, but 'column_names' names 2: \['a', 'b'\]",
    ):
        list(data)


def test_dict_items_are_rejected():
    with pytest.raises(TypeError, match="yielded a dict"):
        list(ds.GeneratorDataset(lambda: iter([{"a": 1}]), "a"))


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((range(3),), {}, ValueError, "'column_names' must name the columns"),
        (
            (5, "v"),
            {},
            TypeError,
            "'source' must be random-accessible .* but got 5 of type 'int'",
        ),
        (
            (lambda: iter(()), "v"),
            {"shuffle": True},
            ValueError,
            r"'shuffle=True' needs a random-accessible source.*\.shuffle\(buffer_size\)",
        ),
        (
            (range(3), "v"),
            {"column_types": [np.int32, np.int32]},
            TypeError,
            "one dtype per column",
        ),
        (
            (range(3), "v"),
            {"column_types": ["text"]},
            TypeError,
            "'column_types' must be a numeric dtype",
        ),
        (
            (range(3), "v"),
            {"schema": "s.json"},
            NotImplementedError,
            "'schema' is not supported",
        ),
        (
            (range(3), "v"),
            {"num_samples": -1},
            ValueError,
            "'num_samples' must be an int >= 1",
        ),
    ],
)
def test_argument_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        ds.GeneratorDataset(*args, **kwargs)
