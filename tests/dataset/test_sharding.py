"""Sharding (`num_shards`, `shard_id`, `DistributedSampler`) on every source."""

from __future__ import annotations

import numpy as np
import pytest

import cadence.dataset as ds


def values(dataset, column=0):
    return [int(np.asarray(row[column].asnumpy()).ravel()[0]) for row in dataset]


def sources(tmp_path, **kwargs):
    """One sharded dataset per source kind, each over the rows 0..9 (column 0 holds the row number)."""
    rows = np.arange(10, dtype=np.int64)
    path = tmp_path / "d.npz"
    np.savez(path, x=rows, y=rows * 2)
    return {
        "numpy": ds.NumpySlicesDataset({"x": rows}, **kwargs),
        "generator": ds.GeneratorDataset(
            [(np.int64(i),) for i in rows], ["x"], **kwargs
        ),
        "npz": ds.NpzDataset(path, **kwargs),
    }


@pytest.mark.parametrize("kind", ["numpy", "generator", "npz"])
def test_in_order_shards_interleave(tmp_path, kind):
    parts = [
        values(sources(tmp_path, shuffle=False, num_shards=3, shard_id=i)[kind])
        for i in range(3)
    ]
    # ceil(10 / 3) = 4 rows each: shard i reads i, i+3, ... and wraps around to the start.
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]


@pytest.mark.parametrize("kind", ["numpy", "generator", "npz"])
def test_shuffled_shards_are_disjoint_and_cover_every_row(tmp_path, kind):
    # No seed is set: the ranks must still agree on the order, or their shards overlap.
    parts = [
        values(sources(tmp_path, num_shards=2, shard_id=i)[kind]) for i in range(2)
    ]
    assert len(parts[0]) == len(parts[1]) == 5
    assert sorted(parts[0] + parts[1]) == list(range(10))
    assert parts[0] + parts[1] != [*range(0, 10, 2), *range(1, 10, 2)]  # shuffled


def test_each_pass_shuffles_anew_and_identically_per_shard():
    data = [
        ds.NumpySlicesDataset({"x": np.arange(40)}, num_shards=2, shard_id=i)
        for i in range(2)
    ]
    first = [values(d) for d in data]
    second = [values(d) for d in data]
    assert first[0] != second[0]
    for epoch in (first, second):
        assert sorted(epoch[0] + epoch[1]) == list(range(40))


def test_shard_batches_make_the_global_batch():
    rows = np.arange(24)
    whole = [
        list(b[0].asnumpy())
        for b in ds.NumpySlicesDataset({"x": rows}, shuffle=False).batch(8)
    ]
    parts = [
        [
            list(b[0].asnumpy())
            for b in ds.NumpySlicesDataset(
                {"x": rows}, shuffle=False, num_shards=2, shard_id=i
            ).batch(4)
        ]
        for i in range(2)
    ]
    for k, batch in enumerate(whole):
        assert sorted(parts[0][k] + parts[1][k]) == batch


def test_digits_shards():
    whole = values(ds.DigitsDataset("test", shuffle=False), column=1)
    parts = [
        values(
            ds.DigitsDataset("test", shuffle=False, num_shards=2, shard_id=i), column=1
        )
        for i in range(2)
    ]
    assert parts[0] == whole[0::2]
    assert parts[1] == [
        *whole[1::2],
        whole[0],
    ]  # 359 rows: the second shard wraps around


def test_distributed_sampler_equals_num_shards():
    rows = np.arange(9)
    sampler = ds.DistributedSampler(num_shards=2, shard_id=1, shuffle=False)
    assert values(ds.NumpySlicesDataset({"x": rows}, sampler=sampler)) == [
        1,
        3,
        5,
        7,
        0,
    ]
    limited = ds.DistributedSampler(2, 0, shuffle=False, num_samples=2)
    assert values(ds.NumpySlicesDataset({"x": rows}, sampler=limited)) == [0, 2]
    assert ds.NumpySlicesDataset({"x": rows}, sampler=limited).get_dataset_size() == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"num_shards": 0, "shard_id": 0},
            ValueError,
            r"'num_shards' must be an int >= 1, but got 0",
        ),
        (
            {"num_shards": 2, "shard_id": -1},
            ValueError,
            r"'shard_id' must be an int in \[0, 1\], but got -1",
        ),
        (
            {"num_shards": "2", "shard_id": 0},
            TypeError,
            r"'num_shards' must be an int >= 1, but got '2'",
        ),
        (
            {"shard_id": 0},
            RuntimeError,
            "'num_shards' and 'shard_id' must be given together",
        ),
        (
            {"sampler": ds.DistributedSampler(2, 0), "num_shards": 2, "shard_id": 0},
            RuntimeError,
            "'sampler' and 'num_shards'/'shard_id' cannot be given together",
        ),
        (
            {"sampler": ds.DistributedSampler(2, 0), "shuffle": True},
            RuntimeError,
            "'sampler' and 'shuffle'",
        ),
        (
            {"sampler": object()},
            NotImplementedError,
            "supports only a DistributedSampler",
        ),
    ],
)
def test_bad_sharding_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        ds.NumpySlicesDataset({"x": np.arange(4)}, **kwargs)


def test_sampler_arguments_are_checked():
    with pytest.raises(
        ValueError, match=r"'shard_id' must be an int in \[0, 1\], but got 2"
    ):
        ds.DistributedSampler(num_shards=2, shard_id=2)
    with pytest.raises(TypeError, match="'shuffle' must be a bool"):
        ds.DistributedSampler(2, 0, shuffle="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'offset' must be -1"):
        ds.DistributedSampler(2, 0, offset=3)


def test_iterable_generator_cannot_be_sharded():
    def gen():
        yield (np.int64(1),)

    with pytest.raises(
        ValueError, match=r"sharding .* needs a random-accessible source"
    ):
        ds.GeneratorDataset(gen, ["x"], num_shards=2, shard_id=0)
