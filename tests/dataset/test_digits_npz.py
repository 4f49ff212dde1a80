from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

import cadence.dataset as ds

if TYPE_CHECKING:
    from pathlib import Path


def labels_of(dataset: ds.Dataset) -> np.ndarray:
    return np.array(
        [r[1].item() for r in dataset.create_tuple_iterator(output_numpy=True)]
    )


# --- DigitsDataset -----------------------------------------------------------------------
def test_digits_all():
    data = ds.DigitsDataset(shuffle=False)
    assert data.get_dataset_size() == 1797
    assert data.get_col_names() == ["image", "label"]
    assert data.output_shapes() == [[1, 8, 8], []]
    assert data.output_types() == [np.dtype(np.float32), np.dtype(np.int32)]
    images = np.stack([r[0] for r in data.create_tuple_iterator(output_numpy=True)])
    assert images.min() == 0.0
    assert images.max() == 1.0


def test_digits_split_is_stratified_disjoint_and_fixed():
    train = ds.DigitsDataset("train", shuffle=False)
    test = ds.DigitsDataset("test", shuffle=False)
    assert train.get_dataset_size() + test.get_dataset_size() == 1797
    assert test.get_dataset_size() == 359  # sum over classes of round(0.2 * count)
    test_labels = labels_of(test)
    counts = np.bincount(test_labels, minlength=10)
    assert counts.min() >= 35  # every class holds out about 20% of its ~180 images
    assert counts.max() <= 37
    train_images = {
        r[0].tobytes() for r in train.create_tuple_iterator(output_numpy=True)
    }
    test_images = [
        r[0].tobytes() for r in test.create_tuple_iterator(output_numpy=True)
    ]
    assert (
        sum(t in train_images for t in test_images) < 5
    )  # only genuinely duplicated digits, if any
    again = ds.DigitsDataset("test", shuffle=False)
    assert np.array_equal(labels_of(again), test_labels)


def test_digits_split_changes_with_seed_and_fraction():
    base = labels_of(ds.DigitsDataset("test", shuffle=False))
    assert not np.array_equal(
        labels_of(ds.DigitsDataset("test", seed=1, shuffle=False)), base
    )
    assert ds.DigitsDataset("test", test_fraction=0.5).get_dataset_size() == 898


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"usage": "val"},
            ValueError,
            r"'usage' must be one of \['train', 'test', 'all'\] or None, but got 'val'",
        ),
        (
            {"test_fraction": 1.0},
            ValueError,
            r"'test_fraction' must be in \(0.0, 1.0\), but got 1.0",
        ),
        ({"test_fraction": "0.2"}, TypeError, "'test_fraction' must be a number"),
        ({"seed": -1}, ValueError, "'seed' must be an int >= 0"),
    ],
)
def test_digits_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        ds.DigitsDataset(**kwargs)


# --- NpzDataset --------------------------------------------------------------------------
def write(tmp_path: Path, **arrays: np.ndarray) -> Path:
    path = tmp_path / "data.npz"
    np.savez(path, **arrays)  # type: ignore[arg-type]
    return path


def test_npz_reads_x_and_y(tmp_path):
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    path = write(tmp_path, x=x, y=np.arange(10, dtype=np.int32), extra=np.zeros(3))
    data = ds.NpzDataset(path, shuffle=False)
    assert data.get_col_names() == ["x", "y"]
    batches = list(data.batch(4).create_tuple_iterator(output_numpy=True))
    assert np.array_equal(np.concatenate([b[0] for b in batches]), x)
    assert batches[0][1].dtype == np.int32


def test_npz_other_keys_become_the_columns(tmp_path):
    path = write(tmp_path, images=np.zeros((3, 4)), labels=np.arange(3))
    assert ds.NpzDataset(str(path), columns=["images", "labels"]).get_col_names() == [
        "images",
        "labels",
    ]


def test_npz_errors(tmp_path):
    with pytest.raises(
        FileNotFoundError, match=r"the file '.*missing.npz' does not exist"
    ):
        ds.NpzDataset(tmp_path / "missing.npz")
    path = write(tmp_path, x=np.zeros((3, 2)), labels=np.zeros(3))
    with pytest.raises(
        ValueError, match=r"has no array named 'y'; it holds \['x', 'labels'\]"
    ):
        ds.NpzDataset(path)
    path = write(tmp_path, x=np.zeros((3, 2)), y=np.zeros(4))
    with pytest.raises(
        ValueError,
        match=r"must have the same length along the first axis, but they have \{'x': 3, 'y': 4\}",
    ):
        ds.NpzDataset(path)
    path = write(tmp_path, x=np.zeros((3, 2)), y=np.array(5))
    with pytest.raises(ValueError, match=r"The array 'y' in .* is 0-d"):
        ds.NpzDataset(path)
    path = write(tmp_path, x=np.array([{"a": 1}, None], dtype=object), y=np.zeros(2))
    with pytest.raises(ValueError, match=r"The array 'x' in .* holds Python objects"):
        ds.NpzDataset(path)
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip at all")
    with pytest.raises(
        ValueError, match=r"Cannot read '.*garbage.npz' as an .npz file"
    ):
        ds.NpzDataset(garbage)
    single = tmp_path / "single.npy"
    np.save(single, np.zeros(3))
    with pytest.raises(ValueError, match=r"holds a single array, not an \.npz archive"):
        ds.NpzDataset(single)
    with pytest.raises(TypeError, match="'path' must be a str or Path, but got 'int'"):
        ds.NpzDataset(5)  # type: ignore[arg-type]


def test_npz_refuses_a_header_claiming_more_rows_than_it_holds(tmp_path):
    import io
    import zipfile

    path = tmp_path / "hostile.npz"
    np.savez(path, y=np.zeros(1, np.int64))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**12, 3)}
    )
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("x.npy", header.getvalue() + np.zeros(3, np.float32).tobytes())
    # numpy would allocate 12 TB for it before reading; the claim is checked first.
    with pytest.raises(
        ValueError,
        match=r"the array 'x' in '.*hostile.npz' claims shape \(1000000000000, 3\) of float32 "
        r"\(12000000000000 bytes\) but holds 12 bytes of data",
    ):
        ds.NpzDataset(path)


def test_npz_names_a_file_that_is_not_a_zip_archive(tmp_path):
    path = tmp_path / "table.npz"
    path.write_text("x,y\n1,2\n")
    with pytest.raises(
        ValueError, match=r"table.npz' as an .npz file .*: it is not a zip archive"
    ):
        ds.NpzDataset(path)
