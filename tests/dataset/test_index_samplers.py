"""SubsetSampler, SubsetRandomSampler and WeightedRandomSampler; deterministic results recorded on MindSpore 2.10."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

import cadence.dataset as ds


def values(sampler, n=10, source=None):
    data = source or ds.NumpySlicesDataset(
        {"x": np.arange(10, 10 + n)}, sampler=sampler
    )
    out = [int(r[0]) for r in data.create_tuple_iterator(output_numpy=True)]
    assert data.get_dataset_size() == len(out)
    return out


DETERMINISTIC: dict[str, tuple[Any, list[int]]] = {
    "subset in order, repeats kept": (
        lambda: ds.SubsetSampler([5, 1, 1]),
        [15, 11, 11],
    ),
    "one int index": (lambda: ds.SubsetRandomSampler(3), [13]),
    "one row repeated": (lambda: ds.SubsetRandomSampler([3, 3, 3]), [13, 13, 13]),
    "numpy indices": (lambda: ds.SubsetSampler(np.array([1, 2])), [11, 12]),
    "subset num_samples": (
        lambda: ds.SubsetSampler([4, 0, 2], num_samples=2),
        [14, 10],
    ),
    "weight on one row, num_samples": (
        lambda: ds.WeightedRandomSampler([0, 0, 1, 0, 0, 0, 0, 0, 0, 0], num_samples=3),
        [12, 12, 12],
    ),
}


@pytest.mark.parametrize("case", sorted(DETERMINISTIC))
def test_deterministic_samplers_match_mindspore(case):
    make, expected = DETERMINISTIC[case]
    assert values(make()) == expected


def test_subset_random_sampler_permutes_its_indices_each_pass():
    ds.config.set_seed(0)
    sampler = ds.SubsetRandomSampler([0, 2, 4, 9])
    data = ds.NumpySlicesDataset({"x": np.arange(10, 20)}, sampler=sampler)
    passes = [values(None, source=data) for _ in range(8)]
    assert all(sorted(p) == [10, 12, 14, 19] for p in passes)
    assert len({tuple(p) for p in passes}) > 1
    assert len(values(ds.SubsetRandomSampler([0, 2, 4, 9], num_samples=2))) == 2
    assert len(values(ds.SubsetRandomSampler([0, 2, 4, 9], num_samples=20))) == 4
    ds.config.set_seed(0)
    assert values(None, source=data) == passes[0]


def test_weighted_sampler_draws_by_weight():
    ds.config.set_seed(1)
    drawn = values(
        ds.WeightedRandomSampler([1, 3]), n=2000
    )  # as many draws as source rows
    counts = Counter(drawn)
    assert set(counts) == {10, 11} and len(drawn) == 2000
    assert (
        0.70 < counts[11] / 2000 < 0.80
    )  # expected share 0.75; 2000 draws put it within +-0.04 (4 sd)


def test_weighted_sampler_without_replacement_puts_zero_weights_last():
    ds.config.set_seed(4)
    out = values(
        ds.WeightedRandomSampler([0, 0, 1, 0, 0, 0, 0, 0, 0, 1], replacement=False)
    )
    assert sorted(out[:2]) == [12, 19] and out[2:] == [10, 11, 13, 14, 15, 16, 17, 18]


def test_index_samplers_read_file_sources(tmp_path):
    (tmp_path / "lines.txt").write_text("a\nb\nc\n")
    folder = tmp_path / "images" / "cat"
    folder.mkdir(parents=True)
    for i in range(3):
        (folder / f"{i}.bin").write_bytes(bytes([i]))
    images = ds.ImageFolderDataset(
        str(tmp_path / "images"), extensions=[".bin"], sampler=ds.SubsetSampler([2, 0])
    )
    assert [r[0].tolist() for r in images.create_tuple_iterator(output_numpy=True)] == [
        [2],
        [0],
    ]
    gen = ds.GeneratorDataset(
        [(np.int64(i),) for i in range(5)], ["x"], sampler=ds.SubsetSampler([4, 1])
    )
    assert values(None, source=gen) == [4, 1]


ERRORS: dict[str, tuple[Any, type[Exception], str]] = {
    "index out of range": (
        lambda: values(ds.SubsetRandomSampler([0, 12])),
        RuntimeError,
        "index 12 is out of bound: the source has rows 0 to 9",
    ),
    "negative index": (
        lambda: values(ds.SubsetRandomSampler([-1, 2])),
        RuntimeError,
        "index -1 is out of bound",
    ),
    "float index": (
        lambda: ds.SubsetRandomSampler([1.0]),
        TypeError,
        "must be an int, but got 1.0",
    ),
    "no index": (lambda: ds.SubsetSampler([]), ValueError, "must not be empty"),
    "negative num_samples": (
        lambda: ds.SubsetSampler([1], num_samples=-1),
        ValueError,
        "'num_samples'",
    ),
    "too few weights without replacement": (
        lambda: values(ds.WeightedRandomSampler([1, 1, 1], replacement=False)),
        RuntimeError,
        "draws 10 rows",
    ),
    "more weights than rows": (
        lambda: values(ds.WeightedRandomSampler([1] * 12)),
        RuntimeError,
        "12 weights, but the source has only 10 rows",
    ),
    "negative weight": (
        lambda: ds.WeightedRandomSampler([-1, 2]),
        ValueError,
        "must be >= 0",
    ),
    "zero weights": (
        lambda: ds.WeightedRandomSampler([0, 0]),
        ValueError,
        "must not all be zero",
    ),
    "no weights": (
        lambda: ds.WeightedRandomSampler([]),
        ValueError,
        "must not be empty",
    ),
    "weight not a number": (
        lambda: ds.WeightedRandomSampler(["1"]),
        TypeError,
        "every weight must be a number",
    ),
    "int replacement": (
        lambda: ds.WeightedRandomSampler([1, 2], replacement=1),  # type: ignore[arg-type]
        TypeError,
        "'replacement' must be a bool",
    ),
    "sampler with shuffle": (
        lambda: ds.NumpySlicesDataset(
            [1, 2], sampler=ds.SubsetSampler([1]), shuffle=False
        ),
        ValueError,
        r"\['shuffle'\] must be None",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    make, error, message = ERRORS[case]
    with pytest.raises(error, match=message):
        make()
