from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

import cadence.dataset as ds

if TYPE_CHECKING:
    from pathlib import Path


def write_batch(path: Path, labels: list[int]) -> np.ndarray:
    """Records whose planes hold (label, 100 + label, 200 - label); pixel (0, 1) of red is 7."""
    n = len(labels)
    records = np.zeros((n, 3073), np.uint8)
    records[:, 0] = labels
    for i, label in enumerate(labels):
        records[i, 1:1025] = label
        records[i, 1025:2049] = 100 + label
        records[i, 2049:] = 200 - label
    records[:, 2] = 7
    path.write_bytes(records.tobytes())
    return records


@pytest.fixture
def cifar(tmp_path: Path) -> Path:
    root = tmp_path / "cifar-10-batches-bin"
    root.mkdir()
    write_batch(root / "data_batch_2.bin", [3, 4])
    write_batch(root / "data_batch_1.bin", [0, 1, 2])
    write_batch(root / "test_batch.bin", [9, 8])
    (root / "batches.meta.txt").write_text("airplane\n")
    (root / "readme.html").write_text("<html>")
    return root


def labels_of(data: ds.Dataset) -> list[int]:
    return [int(row["label"]) for row in data.create_dict_iterator(output_numpy=True)]


def test_columns_layout_and_usage(cifar):
    train = ds.Cifar10Dataset(str(cifar), usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"]
    assert train.output_shapes() == [[32, 32, 3], []]
    assert train.output_types() == [np.dtype(np.uint8), np.dtype(np.uint32)]
    assert labels_of(train) == [0, 1, 2, 3, 4]  # files in sorted name order
    image = next(train.create_dict_iterator(output_numpy=True))["image"]
    # the planes are red, green, blue: pixel (0, 0) is (label, 100 + label, 200 - label)
    assert image[0, 0].tolist() == [0, 100, 200]
    assert image[0, 1].tolist() == [7, 100, 200]  # the second byte of the red plane
    assert labels_of(ds.Cifar10Dataset(cifar, usage="test", shuffle=False)) == [9, 8]
    assert labels_of(ds.Cifar10Dataset(cifar, shuffle=False)) == [0, 1, 2, 3, 4, 9, 8]


def test_shuffle_num_samples_and_shards(cifar):
    data = ds.Cifar10Dataset(cifar, usage="train", num_samples=3)
    assert data.get_dataset_size() == 3
    assert set(labels_of(data)) <= {0, 1, 2, 3, 4}
    shards = [
        labels_of(
            ds.Cifar10Dataset(
                cifar, usage="train", shuffle=False, num_shards=2, shard_id=i
            )
        )
        for i in range(2)
    ]
    assert shards == [[0, 2, 4], [1, 3, 0]]


def test_errors_name_the_file_and_the_fix(cifar, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(
        RuntimeError, match=r"holds no CIFAR-10 batch file for usage 'train'"
    ):
        ds.Cifar10Dataset(tmp_path / "empty", usage="train")
    (cifar / "data_batch_3.bin").write_bytes(bytes(3000))
    with pytest.raises(
        RuntimeError,
        match=r"data_batch_3.bin' has 3000 bytes, not a whole number of 3073-byte records",
    ):
        ds.Cifar10Dataset(cifar)
    (cifar / "data_batch_3.bin").write_bytes(bytes([42]) + bytes(3072))
    with pytest.raises(RuntimeError, match=r"holds the label 42.*CIFAR-100"):
        ds.Cifar10Dataset(cifar)
    with pytest.raises(ValueError, match="'usage' must be one of"):
        ds.Cifar10Dataset(cifar, usage="valid")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.Cifar10Dataset(tmp_path / "nowhere")
    with pytest.raises(NotImplementedError, match="'cache' is not supported"):
        ds.Cifar10Dataset(cifar, cache=object())


def test_the_generated_porting_data_is_learnable_cifar(tmp_path, porting_data):
    root = porting_data.make_cifar10(tmp_path)
    train = ds.Cifar10Dataset(root, usage="train")
    test = ds.Cifar10Dataset(root, usage="test")
    assert (train.get_dataset_size(), test.get_dataset_size()) == (200, 40)
    assert sorted(set(labels_of(train))) == list(range(10))
