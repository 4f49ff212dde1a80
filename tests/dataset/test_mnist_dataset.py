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
    # usage None is "all": every file in sorted name order, so t10k before train (as MindSpore)
    everything = ds.MnistDataset(tmp_path, shuffle=False)
    assert everything.get_dataset_size() == 10
    labels = [r[1].item() for r in everything.create_tuple_iterator(output_numpy=True)]
    assert labels == [5, 6, 7, 8, 0, 1, 2, 3, 4, 5]


def write_split(folder: Path, prefix: str, n: int, sep: str = "-") -> np.ndarray:
    images = np.full((n, 28, 28), n, np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{prefix}-images{sep}idx3-ubyte").write_bytes(idx_bytes(images))
    labels = np.arange(n, dtype=np.uint8) % 10
    (folder / f"{prefix}-labels{sep}idx1-ubyte").write_bytes(idx_bytes(labels))
    return labels


def test_mindspore_download_layout_reads_what_each_folder_holds(tmp_path):
    write_split(tmp_path / "MNIST_Data" / "train", "train", 7)
    write_split(tmp_path / "MNIST_Data" / "test", "t10k", 3)
    train = ds.MnistDataset(str(tmp_path / "MNIST_Data" / "train"))
    test = ds.MnistDataset(tmp_path / "MNIST_Data" / "test", shuffle=False)
    assert (train.get_dataset_size(), test.get_dataset_size()) == (7, 3)
    assert (
        ds.MnistDataset(
            tmp_path / "MNIST_Data" / "train", usage="train"
        ).get_dataset_size()
        == 7
    )
    assert (
        ds.MnistDataset(
            tmp_path / "MNIST_Data" / "test", usage="test"
        ).get_dataset_size()
        == 3
    )
    with pytest.raises(
        RuntimeError,
        match=r"holds no MNIST files for usage 'test'; expected t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte",
    ):
        ds.MnistDataset(tmp_path / "MNIST_Data" / "train", usage="test")
    (tmp_path / "empty").mkdir()
    with pytest.raises(
        RuntimeError, match="MNIST_Data/train and the t10k files in MNIST_Data/test"
    ):
        ds.MnistDataset(tmp_path / "empty")


def test_dot_named_files_as_many_repositories_ship_them(tmp_path):
    write_split(tmp_path, "train", 6, sep=".")
    write_split(tmp_path, "t10k", 2, sep=".")
    assert ds.MnistDataset(tmp_path, usage="train").get_dataset_size() == 6
    assert ds.MnistDataset(tmp_path, usage="test").get_dataset_size() == 2
    assert ds.MnistDataset(tmp_path).get_dataset_size() == 8


def test_a_gzip_beside_its_unpacked_file_is_not_read_twice(tmp_path):
    arrays = write_mnist(tmp_path)
    write_mnist(tmp_path, gz=True)
    data = ds.MnistDataset(tmp_path, usage="train", shuffle=False)
    assert data.get_dataset_size() == len(arrays["train-labels-idx1-ubyte"])


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


def test_an_image_file_without_its_label_file_is_named(tmp_path):
    write_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    ds.MnistDataset(tmp_path, usage="train")  # the train files are enough for 'train'
    with pytest.raises(
        RuntimeError,
        match=r"holds 1 image file\(s\) \['t10k-images-idx3-ubyte'\] but 0 label file\(s\) \[\] for usage 'test'",
    ):
        ds.MnistDataset(tmp_path, usage="test")
    with pytest.raises(RuntimeError, match="holds 2 image file"):
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


def test_unsupported_arguments(tmp_path):
    write_mnist(tmp_path)
    with pytest.raises(NotImplementedError, match="'cache' is not supported"):
        ds.MnistDataset(tmp_path, cache=object())
    with pytest.raises(
        TypeError, match=r"'sampler' must be a sampler of cadence\.dataset"
    ):
        ds.MnistDataset(tmp_path, sampler=object())


def test_shards_split_the_rows(tmp_path):
    write_mnist(tmp_path, n_train=10)
    shards = [
        [
            r[1].item()
            for r in ds.MnistDataset(
                tmp_path, "train", shuffle=False, num_shards=3, shard_id=i
            ).create_tuple_iterator(output_numpy=True)
        ]
        for i in range(3)
    ]
    # as MindSpore: shard i reads rows i, i + 3, ...; every shard reads ceil(10 / 3) rows
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]


def test_fashion_mnist_reads_the_same_layout(tmp_path):
    write_split(tmp_path / "fashion" / "train", "train", 5)
    data = ds.FashionMnistDataset(tmp_path / "fashion" / "train", shuffle=False)
    assert data.get_dataset_size() == 5
    assert data.output_types() == [np.dtype(np.uint8), np.dtype(np.uint32)]
    with pytest.raises(RuntimeError, match=r"^FashionMnistDataset: the directory"):
        ds.FashionMnistDataset(tmp_path / "fashion" / "train", usage="test")
    with pytest.raises(
        ValueError, match="For 'FashionMnistDataset', the argument 'usage'"
    ):
        ds.FashionMnistDataset(tmp_path, usage="valid")
