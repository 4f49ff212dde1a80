from __future__ import annotations

import numpy as np
import pytest

import cadence
import cadence.dataset as ds


def numbers(n: int = 4) -> ds.Dataset:
    return ds.NumpySlicesDataset(
        {"x": np.arange(n, dtype=np.float32), "y": np.arange(n)}, shuffle=False
    )


def test_tuple_iterator_yields_lists_of_tensors():
    row = next(iter(numbers().create_tuple_iterator()))
    assert isinstance(row, list)
    assert all(isinstance(t, cadence.Tensor) for t in row)
    assert row[0].dtype == cadence.float32
    assert row[1].dtype == cadence.int64
    assert row[0].shape == ()


def test_iterating_a_dataset_is_one_pass_of_the_tuple_iterator():
    got = [[t.asnumpy().item() for t in row] for row in numbers()]
    assert got == [[0.0, 0], [1.0, 1], [2.0, 2], [3.0, 3]]


def test_output_numpy_and_column_selection():
    it = numbers().create_tuple_iterator(columns=["y"], output_numpy=True)
    assert it.get_col_names() == ["y"]
    rows = list(it)
    assert all(isinstance(r[0], np.ndarray) and r[0].ndim == 0 for r in rows)
    assert [r[0].item() for r in rows] == [0, 1, 2, 3]


def test_dict_iterator():
    rows = list(numbers(2).batch(2).create_dict_iterator())
    assert list(rows[0]) == ["x", "y"]
    assert isinstance(rows[0]["x"], cadence.Tensor)
    assert rows[0]["y"].asnumpy().tolist() == [0, 1]
    numpy_rows = list(numbers(2).create_dict_iterator(output_numpy=True))
    assert isinstance(numpy_rows[0]["x"], np.ndarray)


def test_each_for_loop_over_one_iterator_is_the_next_epoch():
    it = numbers(3).create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert len(list(it)) == 3
    assert len(list(it)) == 3
    assert list(it) == []


def test_unlimited_epochs():
    it = numbers(2).create_tuple_iterator(output_numpy=True)
    assert [len(list(it)) for _ in range(5)] == [2] * 5


def test_epochs_of_one_iterator_are_shuffled_differently():
    cadence.set_seed(11)
    data = ds.NumpySlicesDataset(np.arange(30))
    it = data.create_tuple_iterator(num_epochs=3, output_numpy=True)
    epochs = [[r[0].item() for r in it] for _ in range(3)]
    assert all(sorted(e) == list(range(30)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]


def test_reset_is_accepted_between_epochs():
    data = numbers(3)
    assert len(list(data)) == 3
    data.reset()
    assert len(list(data)) == 3


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"num_epochs": 0},
            ValueError,
            "'num_epochs' must be -1 .no limit. or >= 1, but got 0",
        ),
        ({"num_epochs": -2}, ValueError, "'num_epochs' must be an int >= -1"),
        ({"output_numpy": 1}, TypeError, "'output_numpy' must be a bool"),
        ({"do_copy": None}, TypeError, "'do_copy' must be a bool"),
        ({"columns": ["z"]}, ValueError, r"column 'z' in 'columns' does not exist"),
    ],
)
def test_iterator_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        numbers().create_tuple_iterator(**kwargs)


def test_dict_iterator_argument_errors_name_the_method():
    with pytest.raises(
        TypeError,
        match=r"For 'Dataset\.create_dict_iterator', the argument 'output_numpy'",
    ):
        numbers().create_dict_iterator(output_numpy="yes")  # type: ignore[arg-type]


def test_repr_names_the_class_and_columns():
    assert repr(numbers().batch(2)) == "BatchDataset(columns=['x', 'y'])"


def test_reachable_as_an_attribute_like_mindspore_dataset():
    import cadence as ms

    assert ms.dataset.NumpySlicesDataset is ds.NumpySlicesDataset
