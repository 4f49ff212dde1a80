from __future__ import annotations

import io
from typing import TYPE_CHECKING

import numpy as np
import pytest
from PIL import Image

import cadence.dataset as ds
from cadence.dataset import vision

if TYPE_CHECKING:
    from pathlib import Path

COLORS = {"cat": (255, 0, 0), "dog": (0, 255, 0), "zebra": (0, 0, 255)}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "images"
    for name, color in COLORS.items():
        (root / name).mkdir(parents=True)
        for i in range(2):  # PNG: lossless, so decoded pixels are exact
            Image.new("RGB", (5 + i, 4), color).save(root / name / f"{i}.png")
    Image.new("L", (3, 3), 128).save(root / "cat" / "gray.jpg")
    (root / "cat" / ".DS_Store").write_bytes(b"\x00\x01")
    (root / ".hidden").mkdir()
    return root


def rows(data: ds.Dataset) -> list[dict[str, np.ndarray]]:
    return list(data.create_dict_iterator(output_numpy=True))


def test_raw_bytes_and_labels_in_folder_order(folder):
    data = ds.ImageFolderDataset(str(folder), shuffle=False)
    assert data.get_col_names() == ["image", "label"]
    assert data.get_dataset_size() == 7
    assert data.get_class_indexing() == {"cat": 0, "dog": 1, "zebra": 2}
    got = rows(data)
    assert [int(r["label"]) for r in got] == [0, 0, 0, 1, 1, 2, 2]
    assert all(r["label"].dtype == np.int32 for r in got)
    first = got[0]["image"]
    assert first.dtype == np.uint8 and first.ndim == 1
    assert first.tobytes() == (folder / "cat" / "0.png").read_bytes()


def test_decode_extensions_and_class_indexing(folder):
    data = ds.ImageFolderDataset(
        folder,
        shuffle=False,
        decode=True,
        extensions=[".png"],
        class_indexing={"zebra": 0, "cat": 5},
    )
    got = rows(data)
    assert [int(r["label"]) for r in got] == [5, 5, 0, 0]  # folders in name order
    assert [r["image"].shape for r in got] == [(4, 5, 3), (4, 6, 3)] * 2
    assert got[0]["image"][0, 0].tolist() == [255, 0, 0]
    assert got[2]["image"][0, 0].tolist() == [0, 0, 255]
    assert data.get_class_indexing() == {"zebra": 0, "cat": 5}
    gray = ds.ImageFolderDataset(
        folder, shuffle=False, decode=True, extensions=[".jpg"]
    )
    (only,) = rows(gray)
    assert only["image"].shape == (3, 3, 3)  # grayscale files are converted to RGB


def test_the_decode_resize_pipeline_batches(folder):
    source = ds.ImageFolderDataset(folder, extensions=[".png"])
    data = source.map(
        [vision.Decode(), vision.Resize((8, 8)), vision.HWC2CHW()], "image"
    )
    image, label = next(data.batch(6).create_tuple_iterator(output_numpy=True))
    assert image.shape == (6, 3, 8, 8)
    assert sorted(label.tolist()) == [0, 0, 1, 1, 2, 2]


def test_shards_partition_the_files_every_epoch(folder):
    def shard(i: int) -> ds.ImageFolderDataset:
        return ds.ImageFolderDataset(
            folder, extensions=[".png"], num_shards=3, shard_id=i, shuffle=True
        )

    iterators = [
        shard(i).create_dict_iterator(num_epochs=2, output_numpy=True) for i in range(3)
    ]
    orders = []
    for _ in range(2):
        seen = [
            [r["image"].tobytes() + bytes(r["label"]) for r in it] for it in iterators
        ]
        assert [len(s) for s in seen] == [2, 2, 2]
        assert len({b for s in seen for b in s}) == 6  # together: every file once
        orders.append(seen)
    assert orders[0] != orders[1]  # a new order each epoch


def test_errors(folder, tmp_path):
    (tmp_path / "empty" / "class").mkdir(parents=True)
    with pytest.raises(RuntimeError, match="no image file found under"):
        ds.ImageFolderDataset(tmp_path / "empty")
    with pytest.raises(RuntimeError, match="names the folder 'horse'"):
        ds.ImageFolderDataset(folder, class_indexing={"horse": 0})
    with pytest.raises(TypeError, match="'class_indexing' must be a dict"):
        ds.ImageFolderDataset(folder, class_indexing={"cat": "0"})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="'extensions' must be a list of str"):
        ds.ImageFolderDataset(folder, extensions=".png")
    with pytest.raises(TypeError, match="'decode' must be a bool"):
        ds.ImageFolderDataset(folder, decode=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'shard_id' is given"):
        ds.ImageFolderDataset(folder, shard_id=0)
    (folder / "dog" / "broken.png").write_bytes(b"not a png")
    data = ds.ImageFolderDataset(folder, decode=True, shuffle=False)
    with pytest.raises(RuntimeError, match=r"broken.png'\): cannot decode the image"):
        rows(data)


def test_decode_operation():
    buffer = io.BytesIO()
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    Image.fromarray(pixels).save(buffer, format="PNG")
    encoded = np.frombuffer(buffer.getvalue(), np.uint8)
    assert np.array_equal(vision.Decode()(encoded), pixels)
    with pytest.raises(TypeError, match=r"1-d uint8\), but got shape \(4, 5, 3\)"):
        vision.Decode()(pixels)
    with pytest.raises(RuntimeError, match="cannot decode the image"):
        vision.Decode()(np.frombuffer(b"garbage!", np.uint8))
    jpeg = io.BytesIO()
    Image.fromarray(pixels).save(jpeg, format="JPEG")
    truncated = np.frombuffer(jpeg.getvalue()[:-40], np.uint8)
    with pytest.raises(RuntimeError, match=r"(?i)cannot decode the image.*truncated"):
        vision.Decode()(truncated)
