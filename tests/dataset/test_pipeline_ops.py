from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence
import cadence.dataset as ds


def numbers(n: int = 10, shuffle: bool = False) -> ds.Dataset:
    return ds.NumpySlicesDataset(
        {"x": np.arange(n), "y": np.arange(n) * 10}, shuffle=shuffle
    )


def values(dataset: ds.Dataset, column: int = 0) -> list[Any]:
    return [
        row[column].tolist() for row in dataset.create_tuple_iterator(output_numpy=True)
    ]


# --- batch -----------------------------------------------------------------------------
def test_batch_keeps_the_remainder_by_default():
    data = numbers().batch(4)
    assert data.get_dataset_size() == 3
    assert values(data) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert data.get_batch_size() == 4


def test_batch_drop_remainder():
    data = numbers().batch(4, drop_remainder=True)
    assert data.get_dataset_size() == 2
    assert values(data) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_batch_of_unshuffled_in_memory_data_is_a_read_only_view():
    source = np.arange(12, dtype=np.float32).reshape(6, 2)
    data = ds.NumpySlicesDataset(source, shuffle=False).batch(3)
    first = next(iter(data.create_tuple_iterator(output_numpy=True)))[0]
    source_node = data.children[0]
    assert isinstance(source_node, ds.NumpySlicesDataset)
    base = source_node._columns[0]
    assert np.shares_memory(first, base)
    assert not first.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        first[0, 0] = 1.0


def test_batch_stacks_rows_of_a_generator_and_scalars_become_vectors():
    data = ds.GeneratorDataset(
        lambda: ((np.full(2, i), i) for i in range(5)), ["a", "b"]
    ).batch(2)
    got = list(data.create_tuple_iterator(output_numpy=True))
    assert [g[0].shape for g in got] == [(2, 2), (2, 2), (1, 2)]
    assert got[0][1].tolist() == [0, 1]


def test_batch_rejects_rows_of_different_shapes():
    data = ds.GeneratorDataset(lambda: (np.zeros(i + 1) for i in range(3)), "v").batch(
        3
    )
    with pytest.raises(
        RuntimeError,
        match=r"column 'v' row 0 has shape \(1,\) \(float64\) and row 1 has shape \(2,\)",
    ):
        list(data)


def test_batch_after_repeat_spans_the_repetitions():
    data = numbers(5).repeat(2).batch(4)
    assert data.get_dataset_size() == 3
    assert values(data) == [[0, 1, 2, 3], [4, 0, 1, 2], [3, 4]]


def test_batch_of_batches():
    data = numbers(8).batch(2).batch(2)
    assert data.output_shapes() == [[2, 2], [2, 2]]
    assert data.get_dataset_size() == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"batch_size": 0},
            ValueError,
            r"'batch_size' must be an int in \[1, 2147483647\], but got 0",
        ),
        ({"batch_size": 1.5}, TypeError, "'batch_size' must be an int"),
        (
            {"batch_size": 2, "drop_remainder": 1},
            TypeError,
            "'drop_remainder' must be a bool",
        ),
        ({"batch_size": lambda info: 2}, NotImplementedError, "callable 'batch_size'"),
        (
            {"batch_size": 2, "per_batch_map": print},
            NotImplementedError,
            "'per_batch_map' is not supported",
        ),
        (
            {"batch_size": 2, "bogus": 1},
            TypeError,
            "unexpected keyword argument 'bogus'",
        ),
    ],
)
def test_batch_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        numbers().batch(**kwargs)


def test_batch_accepts_mindspore_performance_arguments():
    assert (
        numbers()
        .batch(2, num_parallel_workers=4, python_multiprocessing=True)
        .get_dataset_size()
        == 5
    )


# --- shuffle ---------------------------------------------------------------------------
def test_shuffle_is_a_permutation_reproducible_through_set_seed_and_new_each_epoch():
    data = numbers(100).shuffle(100)
    cadence.set_seed(7)
    first, second = values(data), values(data)
    cadence.set_seed(7)
    assert values(data) == first
    assert values(data) == second
    assert sorted(first) == list(range(100))
    assert first != second


def test_dataset_config_seed_controls_shuffling():
    data = numbers(30).shuffle(4)
    ds.config.set_seed(58)
    first = values(data)
    ds.config.set_seed(58)
    assert values(data) == first
    assert ds.config.get_seed() == 58
    cadence.set_seed(9)  # a later cadence.set_seed takes over again
    assert ds.config.get_seed() == 9


def test_small_buffer_shuffles_only_locally():
    cadence.set_seed(0)
    order = values(numbers(200).shuffle(2))
    assert sorted(order) == list(range(200))
    # With a buffer of 2, a row can only come out before rows that entered after it,
    # so row k appears no earlier than position k - 1.
    assert all(pos >= value - 1 for pos, value in enumerate(order))
    assert order != list(range(200))


def test_buffer_shuffle_over_a_streaming_source_matches_semantics():
    cadence.set_seed(1)
    data = ds.GeneratorDataset(lambda: iter(range(50)), "v").shuffle(3)
    order = values(data)
    assert sorted(order) == list(range(50))
    assert all(pos >= value - 2 for pos, value in enumerate(order))


def test_shuffle_keeps_rows_together_across_columns():
    data = numbers(20, shuffle=True).shuffle(5).batch(4)
    for x, y in data.create_tuple_iterator(output_numpy=True):
        assert (y == x * 10).all()


@pytest.mark.parametrize(
    ("size", "error"), [(1, ValueError), (2.0, TypeError), (None, TypeError)]
)
def test_shuffle_buffer_size_errors(size, error):
    with pytest.raises(error, match="'buffer_size' must be an int in"):
        numbers().shuffle(size)


# --- map -------------------------------------------------------------------------------
def test_map_defaults_to_the_first_column():
    assert values(numbers(3).map(lambda x: x + 1)) == [1, 2, 3]


def test_map_applies_a_list_in_order_to_the_named_column():
    data = numbers(3).map([lambda y: y + 1, lambda y: y * 2], input_columns="y")
    assert values(data, 1) == [2, 22, 42]
    assert values(data, 0) == [0, 1, 2]


def test_map_to_two_output_columns_replaces_the_input_in_place():
    source = ds.NumpySlicesDataset(
        {"a": [1, 2], "b": [3, 4], "c": [5, 6]}, shuffle=False
    )
    data = source.map(lambda b: (b, -b), input_columns="b", output_columns=["b1", "b2"])
    assert data.get_col_names() == ["a", "b1", "b2", "c"]
    assert list(data.create_tuple_iterator(output_numpy=True))[1] == [
        2,
        4,
        -4,
        6,
    ]


def test_map_with_several_input_columns():
    data = numbers(3).map(
        lambda x, y: x + y, input_columns=["x", "y"], output_columns="s"
    )
    assert data.get_col_names() == ["s"]
    assert values(data) == [0, 11, 22]


def test_map_receives_numpy_arrays_and_may_return_tensors_or_scalars():
    seen = []

    def op(x):
        seen.append(type(x))
        return cadence.Tensor(np.asarray(x) * 2) if x % 2 else int(x)

    assert values(numbers(4).map(op)) == [0, 2, 2, 6]
    assert set(seen) == {np.ndarray}


def test_map_before_batch_runs_per_row_for_python_callables():
    calls = []

    def op(x):
        calls.append(x.shape)
        return x

    list(numbers(6).map(op).batch(3))
    assert calls == [()] * 6


def test_map_after_batch_sees_whole_batches():
    shapes = []

    def op(x):
        shapes.append(x.shape)
        return x

    list(numbers(6).batch(3).map(op))
    assert shapes == [(3,), (3,)]


def test_map_of_cadence_operations_runs_once_per_block():
    calls = []

    class Spy(ds.transforms.TypeCast):
        def _apply(self, x, batched):
            calls.append((x.shape, batched))
            return super()._apply(x, batched)

    data = numbers(10).map(Spy(np.float32), "x").batch(4)
    got = values(data)
    assert got[0] == [0.0, 1.0, 2.0, 3.0]
    assert calls == [((4,), True), ((4,), True), ((2,), True)]


def test_map_output_count_must_match_output_columns():
    data = numbers(2).map(lambda x: (x, x))
    with pytest.raises(
        RuntimeError, match=r"returned 2 columns, but 'output_columns' names 1"
    ):
        list(data)


def test_map_errors_from_user_code_propagate_with_a_note():
    def broken(x):
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom") as info:
        list(numbers(2).map(broken))
    assert any("in the map operation" in note for note in info.value.__notes__)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((5,), {}, TypeError, "every operation must be callable, but got 5"),
        (([],), {}, ValueError, "'operations' must not be empty"),
        (
            (abs,),
            {"input_columns": "z"},
            ValueError,
            r"column 'z' in 'input_columns' does not exist; the dataset's columns are \['x', 'y'\]",
        ),
        (
            (abs,),
            {"input_columns": "x", "output_columns": "y"},
            ValueError,
            r"output columns \['y'\] collide",
        ),
        ((abs,), {"cache": object()}, NotImplementedError, "'cache' is not supported"),
    ],
)
def test_map_argument_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        numbers().map(*args, **kwargs)


# --- repeat, take, skip, project, rename -----------------------------------------------------
def test_repeat_count_and_size():
    data = numbers(3).repeat(3)
    assert data.get_dataset_size() == 9
    assert values(data) == [0, 1, 2] * 3
    assert data.get_repeat_count() == 3


def test_repeat_forever_reports_minus_one_and_keeps_going():
    data = numbers(3).repeat()
    assert data.get_dataset_size() == -1
    assert data.get_repeat_count() == -1
    it = data.create_tuple_iterator(output_numpy=True)
    assert [int(next(it)[0]) for _ in range(7)] == [0, 1, 2, 0, 1, 2, 0]


def test_repeat_of_an_empty_generator_does_not_hang():
    assert list(ds.GeneratorDataset(lambda: iter(()), "v").repeat()) == []


def test_repeat_reshuffles_each_repetition():
    cadence.set_seed(2)
    got = values(numbers(20, shuffle=True).repeat(2))
    assert sorted(got[:20]) == sorted(got[20:]) == list(range(20))
    assert got[:20] != got[20:]


@pytest.mark.parametrize(
    ("count", "error"), [(0, ValueError), (-2, ValueError), ("2", TypeError)]
)
def test_repeat_count_errors(count, error):
    with pytest.raises(error, match="'count'"):
        numbers().repeat(count)


def test_take_and_skip():
    assert values(numbers(10).take(3)) == [0, 1, 2]
    assert numbers(10).take(30).get_dataset_size() == 10
    assert numbers(10).take(-1).get_dataset_size() == 10
    assert values(numbers(10).skip(7)) == [7, 8, 9]
    assert numbers(10).skip(30).get_dataset_size() == 0
    assert values(numbers(10).skip(2).take(3).batch(2)) == [[2, 3], [4]]


def test_take_and_skip_on_streams():
    gen = ds.GeneratorDataset(lambda: iter(range(10)), "v")
    assert values(gen.skip(3).take(4)) == [3, 4, 5, 6]
    assert values(gen.repeat(2).take(12).skip(9).batch(2)) == [[9, 0], [1]]
    assert values(numbers(5).repeat(2).skip(3).take(4)) == [3, 4, 0, 1]


def test_take_count_errors():
    with pytest.raises(
        ValueError, match=r"'count' must be -1 \(all\) or >= 1, but got 0"
    ):
        numbers().take(0)
    with pytest.raises(ValueError, match="'count' must be an int in"):
        numbers().skip(-1)


def test_project_and_rename():
    data = numbers(2).project(["y", "x"])
    assert data.get_col_names() == ["y", "x"]
    assert [list(r) for r in data.create_tuple_iterator(output_numpy=True)] == [
        [0, 0],
        [10, 1],
    ]
    renamed = numbers(2).rename("x", "image")
    assert renamed.get_col_names() == ["image", "y"]
    with pytest.raises(ValueError, match="does not exist"):
        numbers().project("z")
    with pytest.raises(ValueError, match="same length"):
        numbers().rename(["x", "y"], ["a"])
    with pytest.raises(ValueError, match="contain a duplicate"):
        numbers().rename("x", "y")


def test_output_shapes_and_types_do_not_consume_randomness():
    data = (
        numbers(8, shuffle=True)
        .map(ds.transforms.TypeCast(cadence.float32), "x")
        .batch(4)
    )
    cadence.set_seed(4)
    expected = values(data)
    cadence.set_seed(4)
    assert data.output_shapes() == [[4], [4]]
    assert data.output_types() == [np.dtype(np.float32), np.dtype(np.int64)]
    assert values(data) == expected


def test_output_shapes_of_an_empty_dataset_fail_clearly():
    with pytest.raises(RuntimeError, match="no rows"):
        numbers(3).skip(3).output_shapes()


# --- split (expected parts observed on MindSpore 2.10) ----------------------------------
@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ([0.7, 0.3], [[0, 1, 2, 3, 4, 5, 6], [7, 8, 9]]),
        ([0.34, 0.33, 0.33], [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]),
        ([4, 6], [[0, 1, 2, 3], [4, 5, 6, 7, 8, 9]]),
        ([0.15, 0.85], [[0, 1], [2, 3, 4, 5, 6, 7, 8, 9]]),
    ],
)
def test_split_in_order_cuts_consecutive_parts(
    sizes: list[Any], expected: list[list[int]]
) -> None:
    parts = numbers().split(sizes, randomize=False)
    assert [values(p) for p in parts] == expected
    assert [p.get_dataset_size() for p in parts] == [len(e) for e in expected]


def test_split_at_random_parts_the_rows_once_for_every_pass() -> None:
    ds.config.set_seed(3)
    train, test = numbers().map(lambda x: x * 2, "x").split([0.5, 0.5])
    first = values(train)
    assert values(train) == first  # the same rows on the next pass
    assert sorted(first + values(test)) == list(range(0, 20, 2))
    assert first != sorted(first)  # drawn at random, not cut in order
    ds.config.set_seed(3)
    assert values(numbers().map(lambda x: x * 2, "x").split([0.5, 0.5])[0]) == first


@pytest.mark.parametrize(
    ("sizes", "randomize", "error", "match"),
    [
        ([4, 5], False, RuntimeError, r"sizes \[4, 5\] add up to 9, not to the dataset size 10"),
        ([0.5, 0.6], True, ValueError, "shares in 'sizes' must add up to 1"),
        ([0.05, 0.95], False, RuntimeError, "the share 0.05 of 10 rows is no row"),
        ([1.5, -0.5], True, ValueError, r"every share in 'sizes' must be in \(0, 1\]"),
        ([], True, ValueError, "'sizes' must not be empty"),
        ([5, 5.0], True, ValueError, "all ints or all floats"),
        ((5, 5), False, TypeError, "'sizes' must be a list of int or of float"),
        ([0, 10], False, ValueError, "every size must be >= 1"),
        ([5, 5], 1, TypeError, "'randomize' must be a bool"),
    ],
)  # fmt: skip
def test_split_names_bad_sizes(
    sizes: Any, randomize: Any, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        numbers().split(sizes, randomize=randomize)


def test_split_at_random_needs_random_access() -> None:
    streamed = ds.GeneratorDataset(
        lambda: ((np.array(i),) for i in range(6)), ["x"], shuffle=False
    )
    with pytest.raises(
        ValueError, match="randomize=True needs a pipeline with random access"
    ):
        streamed.split([0.5, 0.5])
    assert [values(p) for p in streamed.split([0.5, 0.5], randomize=False)] == [
        [0, 1, 2],
        [3, 4, 5],
    ]
