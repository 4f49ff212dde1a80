from __future__ import annotations

import gzip
import struct
from typing import TYPE_CHECKING

import numpy as np
import pytest

import cadence
import cadence.dataset as ds
from cadence.dataset import transforms, vision

if TYPE_CHECKING:
    from pathlib import Path


def idx_bytes(array: np.ndarray, type_code: int = 0x08) -> bytes:
    header = bytes([0, 0, type_code, array.ndim]) + struct.pack(
        f">{array.ndim}I", *array.shape
    )
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def write_mnist(
    directory: Path, n_train: int = 6, n_test: int = 4, gz: bool = False
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    arrays = {
        "train-images-idx3-ubyte": rng.integers(
            0, 256, (n_train, 28, 28), dtype=np.uint8
        ),
        "train-labels-idx1-ubyte": np.arange(n_train, dtype=np.uint8) % 10,
        "t10k-images-idx3-ubyte": rng.integers(
            0, 256, (n_test, 28, 28), dtype=np.uint8
        ),
        "t10k-labels-idx1-ubyte": (np.arange(n_test, dtype=np.uint8) + 5) % 10,
    }
    directory.mkdir(exist_ok=True)
    for name, array in arrays.items():
        if gz:
            with gzip.open(directory / f"{name}.gz", "wb") as f:
                f.write(idx_bytes(array))
        else:
            (directory / name).write_bytes(idx_bytes(array))
    return arrays


def test_reads_train_test_and_all(tmp_path):
    arrays = write_mnist(tmp_path)
    train = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"]
    assert train.get_dataset_size() == 6
    assert train.output_shapes() == [[28, 28, 1], []]
    assert train.output_types() == [np.dtype(np.uint8), np.dtype(np.uint32)]
    rows = list(train.create_tuple_iterator(output_numpy=True))
    assert np.array_equal(rows[2][0][..., 0], arrays["train-images-idx3-ubyte"][2])
    assert [r[1].item() for r in rows] == list(arrays["train-labels-idx1-ubyte"])
    test = ds.MnistDataset(tmp_path, usage="test", shuffle=False)
    assert [r[1].item() for r in test.create_tuple_iterator(output_numpy=True)] == [
        5,
        6,
        7,
        8,
    ]
    everything = ds.MnistDataset(
        tmp_path, shuffle=False
    )  # usage None: all, train first
    assert everything.get_dataset_size() == 10
    assert [r[1].item() for r in everything.create_tuple_iterator(output_numpy=True)][
        5:7
    ] == [5, 5]


def test_reads_gzipped_files(tmp_path):
    arrays = write_mnist(tmp_path, gz=True)
    data = ds.MnistDataset(tmp_path, usage="test", shuffle=False).batch(4)
    image, label = next(iter(data.create_tuple_iterator(output_numpy=True)))
    assert np.array_equal(image[..., 0], arrays["t10k-images-idx3-ubyte"])
    assert label.dtype == np.uint32


def test_the_mindspore_tutorial_pipeline(tmp_path):
    arrays = write_mnist(tmp_path, n_train=70)

    def datapipe(path: Path, batch_size: int) -> ds.Dataset:
        image_transforms = [
            vision.Rescale(1.0 / 255.0, 0),
            vision.Normalize(mean=(0.1307,), std=(0.3081,)),
            vision.HWC2CHW(),
        ]
        label_transform = transforms.TypeCast(cadence.int32)
        dataset: ds.Dataset = ds.MnistDataset(str(path), usage="train", shuffle=False)
        dataset = dataset.map(image_transforms, "image")
        dataset = dataset.map(label_transform, "label")
        return dataset.batch(batch_size)

    train_dataset = datapipe(tmp_path, 64)
    assert train_dataset.get_dataset_size() == 2
    batches = list(train_dataset)
    image, label = batches[0]
    assert image.shape == (64, 1, 28, 28)
    assert image.dtype == cadence.float32
    assert label.dtype == cadence.int32
    assert batches[1][0].shape == (6, 1, 28, 28)
    expected = (
        arrays["train-images-idx3-ubyte"][:64].astype(np.float32) / 255.0 - 0.1307
    ) / 0.3081
    np.testing.assert_allclose(image.asnumpy()[:, 0], expected, rtol=1e-5, atol=1e-5)


def test_missing_directory(tmp_path):
    with pytest.raises(
        ValueError,
        match=r"the directory '.*nowhere' given as 'dataset_dir' does not exist",
    ):
        ds.MnistDataset(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="is not a directory"):
        ds.MnistDataset(tmp_path / "file")
    with pytest.raises(
        TypeError, match="'dataset_dir' must be a str or Path, but got 'int'"
    ):
        ds.MnistDataset(3)  # type: ignore[arg-type]


def test_missing_file_is_named(tmp_path):
    write_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    ds.MnistDataset(tmp_path, usage="train")  # the train files are enough for 'train'
    with pytest.raises(
        RuntimeError,
        match=r"the MNIST file 't10k-labels-idx1-ubyte' \(or 't10k-labels-idx1-ubyte.gz'\) is missing from",
    ):
        ds.MnistDataset(tmp_path, usage="all")


def test_unknown_usage(tmp_path):
    write_mnist(tmp_path)
    with pytest.raises(
        ValueError,
        match=r"'usage' must be one of \['train', 'test', 'all'\] or None, but got 'training'",
    ):
        ds.MnistDataset(tmp_path, usage="training")


def corrupt(tmp_path: Path, name: str, data: bytes) -> None:
    write_mnist(tmp_path)
    (tmp_path / name).write_bytes(data)


@pytest.mark.parametrize(
    ("name", "data", "match"),
    [
        (
            "train-images-idx3-ubyte",
            b"\x00\x00",
            "train-images-idx3-ubyte' is truncated: it has 2 bytes, fewer than the 4-byte magic",
        ),
        (
            "train-images-idx3-ubyte",
            b"PK\x03\x04" + bytes(100),
            r"is not an IDX file: its magic number is 0x504b0304",
        ),
        (
            "train-images-idx3-ubyte",
            bytes([0, 0, 0x07, 3]) + bytes(100),
            "is not an IDX file",
        ),
        (
            "train-labels-idx1-ubyte",
            idx_bytes(np.zeros((6, 2), np.uint8)),
            "has 2 dimensions, but 1 were expected",
        ),
        (
            "train-images-idx3-ubyte",
            bytes([0, 0, 8, 3, 0, 0]),
            "header needs 16 bytes for 3 dimensions, but the file has 6",
        ),
        (
            "train-images-idx3-ubyte",
            idx_bytes(np.zeros((6, 28, 28), np.uint8))[:-10],
            r"is truncated: the header declares shape \(6, 28, 28\) \(4704 bytes of data\), but 4694 bytes follow",
        ),
        (
            "train-labels-idx1-ubyte",
            idx_bytes(np.zeros(6, np.uint8)) + b"\x00",
            "is longer than its header says",
        ),
        (
            "train-labels-idx1-ubyte",
            idx_bytes(np.zeros(5, np.uint8)),
            "holds 6 images but .*train-labels-idx1-ubyte' holds 5 labels",
        ),
    ],
)
def test_malformed_files_are_named_with_the_problem(tmp_path, name, data, match):
    corrupt(tmp_path, name, data)
    with pytest.raises(RuntimeError, match=match):
        ds.MnistDataset(tmp_path, usage="train")


def test_corrupt_gzip_is_reported(tmp_path):
    write_mnist(tmp_path, gz=True)
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(b"\x1f\x8b garbage")
    with pytest.raises(
        RuntimeError, match=r"Cannot read the IDX file '.*train-labels-idx1-ubyte.gz'"
    ):
        ds.MnistDataset(tmp_path, usage="train")


def test_wider_idx_types_are_read_in_native_byte_order(tmp_path):
    from cadence.dataset._idx import read_idx

    values = np.array([[1.5, -2.0], [3.25, 4.0]], dtype=np.float32)
    path = tmp_path / "floats.idx"
    path.write_bytes(idx_bytes(values, type_code=0x0D))
    got = read_idx(path, 2)
    assert got.dtype == np.float32
    assert got.dtype.isnative
    assert np.array_equal(got, values)


def test_shards_split_the_rows(tmp_path):
    write_mnist(tmp_path)
    whole = [int(r[1].asnumpy()) for r in ds.MnistDataset(tmp_path, shuffle=False)]
    parts = [
        [
            int(r[1].asnumpy())
            for r in ds.MnistDataset(tmp_path, shuffle=False, num_shards=2, shard_id=i)
        ]
        for i in range(2)
    ]
    assert parts[0] == whole[0::2]
    assert parts[1] == whole[1::2]


def test_unsupported_arguments(tmp_path):
    write_mnist(tmp_path)
    with pytest.raises(NotImplementedError, match="'cache' is not supported"):
        ds.MnistDataset(tmp_path, cache=object())
