"""`num_shards` / `shard_id`: what the data-parallel ranks each read."""

from __future__ import annotations

import numpy as np
import pytest

import cadence.dataset as ds


def values(data: ds.Dataset, epochs: int = 1) -> list[list[int]]:
    iterator = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    return [
        [int(v) for row in iterator for v in np.ravel(row[0])] for _ in range(epochs)
    ]


def test_unshuffled_shards_interleave_and_wrap_as_mindspore():
    shards = [
        values(
            ds.NumpySlicesDataset(
                np.arange(10), shuffle=False, num_shards=3, shard_id=i
            )
        )[0]
        for i in range(3)
    ]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    one = ds.NumpySlicesDataset(
        np.arange(10), shuffle=False, num_shards=3, shard_id=1, num_samples=2
    )
    assert values(one) == [[1, 4]]  # num_samples caps each shard
    assert one.get_dataset_size() == 2


@pytest.mark.parametrize(("rows", "viewed"), [(12, True), (10, False)])
def test_unshuffled_shard_batches_are_views_unless_they_wrap(rows, viewed):
    data = np.arange(rows * 2).reshape(rows, 2)
    shard = ds.NumpySlicesDataset(data, shuffle=False, num_shards=3, shard_id=1)
    batches = list(shard.batch(2).create_tuple_iterator(output_numpy=True))
    expected = data[[(1 + 3 * i) % rows for i in range(-(-rows // 3))]]
    assert np.array_equal(np.concatenate([b[0] for b in batches]), expected)
    # A view of the dataset's column, not a gathered copy, where the rows are evenly spaced.
    assert all(b[0].flags.owndata != viewed for b in batches)


def test_shuffled_shards_partition_one_new_order_per_epoch():
    data = np.arange(12)
    ranks = [ds.NumpySlicesDataset(data, num_shards=4, shard_id=i) for i in range(4)]
    ranks[0].output_shapes()  # peeking on one rank must not put it out of step
    per_rank = [values(r.batch(3), epochs=3) for r in ranks]
    for epoch in range(3):
        seen = sorted(v for rank in per_rank for v in rank[epoch])
        assert seen == list(range(12))
    assert per_rank[0][0] != per_rank[0][1] or per_rank[1][0] != per_rank[1][1]


def test_shards_follow_the_dataset_seed():
    def first_epoch(seed: int) -> list[int]:
        ds.config.set_seed(seed)
        return values(ds.NumpySlicesDataset(np.arange(50), num_shards=2, shard_id=0))[0]

    assert first_epoch(3) == first_epoch(3)
    assert first_epoch(3) != first_epoch(4)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"num_shards": 2},
            ValueError,
            r"'num_shards' is given \(2\), so 'shard_id' must be given too",
        ),
        (
            {"shard_id": 0},
            ValueError,
            r"'shard_id' is given \(0\), so 'num_shards' must be given too",
        ),
        (
            {"num_shards": 2, "shard_id": 2},
            ValueError,
            r"'shard_id' must be an int in \[0, 1\], but got 2",
        ),
        (
            {"num_shards": 0, "shard_id": 0},
            ValueError,
            r"'num_shards' must be an int in \[1, 2147483647\], but got 0",
        ),
        (
            {"num_shards": 2.0, "shard_id": 0},
            TypeError,
            r"'num_shards' must be an int .* but got 2.0 of type 'float'",
        ),
    ],
)
def test_bad_shard_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        ds.NumpySlicesDataset(np.arange(4), **kwargs)


def test_random_access_generator_sources_shard_too():
    class Source:
        def __getitem__(self, index):
            return (np.int64(index),)

        def __len__(self):
            return 7

    shards = [
        values(
            ds.GeneratorDataset(
                Source(), ["x"], shuffle=False, num_shards=2, shard_id=i
            )
        )[0]
        for i in range(2)
    ]
    assert shards == [[0, 2, 4, 6], [1, 3, 5, 0]]

    def generate():
        yield from range(3)

    with pytest.raises(ValueError, match="need a random-accessible source"):
        ds.GeneratorDataset(generate, ["x"], num_shards=2, shard_id=0)


def test_num_parallel_workers_is_checked_and_otherwise_ignored():
    data = ds.NumpySlicesDataset(np.arange(4), shuffle=False, num_parallel_workers=64)
    assert values(data) == [[0, 1, 2, 3]]
    with pytest.raises(
        ValueError, match=r"'num_parallel_workers' must be an int >= 1, but got 0"
    ):
        ds.NumpySlicesDataset(np.arange(4), num_parallel_workers=0)


def test_samplers_read_what_the_arguments_read():
    data = np.arange(10)

    def rows(**kwargs):
        return values(ds.NumpySlicesDataset(data, **kwargs))[0]

    distributed = ds.DistributedSampler(num_shards=3, shard_id=1, shuffle=False)
    assert rows(sampler=distributed) == rows(num_shards=3, shard_id=1, shuffle=False)
    assert rows(sampler=ds.SequentialSampler(start_index=3, num_samples=4)) == [
        3,
        4,
        5,
        6,
    ]
    assert rows(sampler=ds.SequentialSampler(start_index=8)) == [8, 9]
    shuffled = rows(sampler=ds.RandomSampler(num_samples=4))
    assert len(shuffled) == 4 and len(set(shuffled)) == 4
    ranks = [ds.DistributedSampler(2, i) for i in range(2)]  # shuffle=True by default
    halves = [rows(sampler=s) for s in ranks]
    assert sorted(halves[0] + halves[1]) == list(range(10))


def test_sampler_errors():
    data = np.arange(4)
    with pytest.raises(
        ValueError, match=r"\['shuffle'\] must be None when it is given"
    ):
        ds.NumpySlicesDataset(data, sampler=ds.SequentialSampler(), shuffle=False)
    with pytest.raises(
        TypeError, match=r"'sampler' must be a sampler of cadence\.dataset"
    ):
        ds.NumpySlicesDataset(data, sampler=3)
    with pytest.raises(
        ValueError, match=r"'shard_id' must be an int in \[0, 1\], but got 2"
    ):
        ds.DistributedSampler(2, 2)
    with pytest.raises(
        NotImplementedError, match="'replacement=True' is not supported"
    ):
        ds.RandomSampler(replacement=True)

    def generate():
        yield from range(3)

    with pytest.raises(ValueError, match="need a random-accessible source"):
        ds.GeneratorDataset(generate, ["x"], sampler=ds.SequentialSampler())
