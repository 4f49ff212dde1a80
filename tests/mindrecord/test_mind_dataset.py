"""`dataset.MindDataset`: MindSpore's arguments and reading semantics over MindRecord files."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence.dataset as ds
from cadence.dataset import vision
from cadence.mindrecord import FileWriter
from tests.mindrecord.fixture_data import FIXTURES

TYPES = str(FIXTURES / "mindspore_types.mindrecord")
SHARDS = str(FIXTURES / "mindspore_shards.mindrecord0")


@pytest.fixture(scope="module")
def ten(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Ten rows `id` 0..9 in one file (as the MindSpore runs observed below used)."""
    path = tmp_path_factory.mktemp("ten") / "ten.mindrecord"
    writer = FileWriter(str(path))
    writer.add_schema({"id": {"type": "int64"}})
    writer.write_raw_data([{"id": i} for i in range(10)])
    writer.commit()
    return str(path)


def ids(data: ds.Dataset) -> list[int]:
    return [int(row[0]) for row in data.create_tuple_iterator(output_numpy=True)]


def test_padded_rows_fill_the_shards_as_in_mindspore(ten: str) -> None:
    # Observed with MindSpore 2.10: 10 rows + 2 padded over 4 shards, shuffle off.
    shards = [
        ids(
            ds.MindDataset(
                ten,
                ["id"],
                shuffle=False,
                num_shards=4,
                shard_id=k,
                padded_sample={"id": -1},
                num_padded=2,
            )
        )
        for k in range(4)
    ]
    assert shards == [[0, 4, 8], [1, 5, 9], [2, 6, -1], [3, 7, -1]]
    unsharded = ds.MindDataset(
        ten, ["id"], shuffle=False, padded_sample={"id": -1}, num_padded=2
    )
    assert ids(unsharded) == [*range(10), -1, -1]


def test_unshuffled_shards_and_num_samples_as_in_mindspore(ten: str) -> None:
    # Observed with MindSpore 2.10 on the same ten rows.
    assert [
        ids(ds.MindDataset(ten, shuffle=False, num_shards=4, shard_id=k))
        for k in range(4)
    ] == [
        [0, 4, 8],
        [1, 5, 9],
        [2, 6, 0],
        [3, 7, 1],
    ]
    assert ids(
        ds.MindDataset(ten, shuffle=False, num_shards=3, shard_id=1, num_samples=2)
    ) == [1, 4]
    assert ids(ds.MindDataset(ten, shuffle=False, num_samples=4)) == [0, 1, 2, 3]


def test_shuffled_shards_partition_the_rows_each_epoch(ten: str) -> None:
    ds.config.set_seed(7)
    ranks = [
        ds.MindDataset(ten, num_shards=2, shard_id=k).create_tuple_iterator(
            num_epochs=2, output_numpy=True
        )
        for k in range(2)
    ]
    epochs = [[[int(r[0]) for r in rank] for rank in ranks] for _ in range(2)]
    for epoch in epochs:
        assert sorted(epoch[0] + epoch[1]) == list(range(10))
    assert epochs[0] != epochs[1]
    sampled = ds.MindDataset(ten, sampler=ds.DistributedSampler(2, 1, shuffle=False))
    assert ids(sampled) == [1, 3, 5, 7, 9]


def test_bytes_decode_and_strings_batch() -> None:
    data = ds.MindDataset(TYPES, columns_list=["raw", "name", "label"], shuffle=False)
    first = next(data.create_tuple_iterator(output_numpy=True))
    image = vision.Decode()(first[0])  # the bytes item of the first row is a 2x2 PPM
    assert image.tolist() == [[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [9, 9, 9]]]
    names, labels = next(
        data.project(["name", "label"])
        .batch(3)
        .create_tuple_iterator(output_numpy=True)
    )
    assert names.dtype == np.dtype("<U7") and names.tolist() == ["zero", "", "ünïcode"]
    assert labels.tolist() == [0, -7, 2**31 - 1]
    (raws,) = next(
        data.project(["raw"]).batch(2).create_tuple_iterator(output_numpy=True)
    )
    assert raws.shape == (2, 1) and raws.dtype == np.dtype(
        "S23"
    )  # widened, as MindSpore's batch does
    row = next(data.create_dict_iterator())
    assert (
        isinstance(row["name"], np.ndarray) and row["label"].shape == ()
    )  # text stays numpy, numbers are Tensors


def test_dataset_size_columns_and_a_list_of_files() -> None:
    assert (
        ds.MindDataset(SHARDS).get_dataset_size() == 10
    )  # one name finds the three files
    assert ds.MindDataset([SHARDS]).get_dataset_size() == 3  # a list reads only those
    assert ds.MindDataset(TYPES, columns_list=["vec", "label"]).get_col_names() == [
        "vec",
        "label",
    ]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dataset_files": 3}, TypeError, "'dataset_files' must be a non-empty str"),
        ({"dataset_files": []}, ValueError, "must not be an empty list"),
        (
            {"dataset_files": str(FIXTURES / "none.mindrecord")},
            FileNotFoundError,
            r"none\.mindrecord' does not exist",
        ),
        (
            {"columns_list": "label"},
            TypeError,
            "'columns_list' must be a list of str or None",
        ),
        (
            {"columns_list": ["nope"]},
            ValueError,
            "column 'nope' in 'columns_list' does not exist",
        ),
        ({"shuffle": 1}, TypeError, "'shuffle' must be a bool"),
        ({"num_shards": 2}, ValueError, "'shard_id' must be given too"),
        ({"num_samples": 0}, ValueError, "'num_samples' must be an int >= 1"),
        ({"num_parallel_workers": 0}, ValueError, "'num_parallel_workers'"),
        ({"cache": object()}, NotImplementedError, "'cache' is not supported"),
        (
            {"padded_sample": {"label": 1}},
            RuntimeError,
            "'num_padded' must be given too",
        ),
        ({"num_padded": 1}, RuntimeError, "'num_padded' is given"),
        (
            {"padded_sample": {"label": 1}, "num_padded": 1},
            RuntimeError,
            "'columns_list' must be given too",
        ),
        (
            {
                "padded_sample": {"label": 1},
                "num_padded": -1,
                "columns_list": ["label"],
            },
            ValueError,
            "'num_padded' must be an int >= 0",
        ),
        (
            {"padded_sample": {}, "num_padded": 1, "columns_list": ["label"]},
            ValueError,
            r"lacks \['label'\]",
        ),
        (
            {
                "padded_sample": {"small": [1, 2]},
                "num_padded": 1,
                "columns_list": ["small"],
            },
            ValueError,
            r"'small' .* shape \[3\]",
        ),
        (
            {
                "padded_sample": {"label": 1},
                "num_padded": 2,
                "columns_list": ["label"],
                "num_shards": 2,
                "shard_id": 0,
            },
            RuntimeError,
            "must divide evenly into 2 shards",
        ),
        (
            {"sampler": ds.SequentialSampler(), "shuffle": False},
            ValueError,
            "must be None when it is given",
        ),
    ],
)
def test_bad_arguments_name_what_is_wrong(
    kwargs: dict[str, Any], error: type, match: str
) -> None:
    arguments = {"dataset_files": TYPES, **kwargs}
    with pytest.raises(error, match=match):
        ds.MindDataset(**arguments)
