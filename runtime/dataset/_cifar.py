"""`Cifar10Dataset`: CIFAR-10 read from its binary batch files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._sources import ImageDirectoryDataset

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Cifar10Dataset"]

_SIDE: Final = 32
_IMAGE_BYTES: Final = 3 * _SIDE * _SIDE
_RECORD: Final = 1 + _IMAGE_BYTES  # a label byte, then the red, green and blue planes
# Which batch files each usage reads: the name must contain this (as in MindSpore).
_MARK: Final = {"train": "data_batch", "test": "test_batch", "all": "batch"}


class Cifar10Dataset(ImageDirectoryDataset):
    """CIFAR-10 from its binary version, as `mindspore.dataset.Cifar10Dataset`.

    `dataset_dir` is the unpacked `cifar-10-batches-bin` directory:
    `data_batch_1.bin` ... `data_batch_5.bin` (train) and `test_batch.bin`
    (test). Each record is a label byte followed by a 32x32 image stored as
    three 1,024-byte planes (red, green, blue). As in MindSpore, the `.bin`
    files are read in sorted name order; `"train"` reads those whose name holds
    `data_batch`, `"test"` those holding `test_batch`, `"all"` both. The files
    are read when the dataset is created.

    Columns: `image`, uint8 of shape (32, 32, 3) (HWC, RGB), and `label`, a
    uint32 scalar in [0, 9].

    Arguments: those of every `ImageDirectoryDataset` (`dataset_dir`, `usage`,
    `num_samples`, `num_parallel_workers`, `shuffle`, `sampler`, `num_shards`,
    `shard_id`, `cache`).

    Raises:
        ValueError: If `dataset_dir` is not a directory or `usage` is unknown.
        RuntimeError: If no batch file for `usage` is there, or a file's size is
            not a whole number of 3,073-byte records. The message names the file.

    Example:
        >>> import cadence.dataset as ds
        >>> from cadence.dataset import vision
        >>> def create_dataset(path, batch_size):  # a ResNet-style training pipeline
        ...     data = ds.Cifar10Dataset(path, usage="train", shuffle=True)
        ...     ops = [vision.RandomCrop((32, 32), (4, 4, 4, 4)), vision.RandomHorizontalFlip(),
        ...            vision.Rescale(1.0 / 255.0, 0.0), vision.HWC2CHW()]
        ...     return data.map(ops, "image").batch(batch_size, drop_remainder=True)
    """

    def _read(
        self, directory: Path, usage: str, owner: str
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        records = [_read_records(path) for path in _batch_files(directory, usage)]
        data = np.concatenate(records)
        images = data[:, 1:].reshape(-1, 3, _SIDE, _SIDE).transpose(0, 2, 3, 1)
        return np.ascontiguousarray(images), data[:, 0]


def _batch_files(directory: Path, usage: str) -> list[Path]:
    mark = _MARK[usage]
    files = sorted(
        entry
        for entry in directory.iterdir()
        if entry.suffix == ".bin" and mark in entry.name and entry.is_file()
    )
    if not files:
        wanted = {
            "train": "data_batch_1.bin ... data_batch_5.bin",
            "test": "test_batch.bin",
            "all": "data_batch_1.bin ... data_batch_5.bin and test_batch.bin",
        }[usage]
        raise RuntimeError(
            f"Cifar10Dataset: the directory {str(directory)!r} holds no CIFAR-10 batch file for usage {usage!r}; "
            f"expected {wanted} (the binary version, unpacked: cifar-10-batches-bin)."
        )
    return files


def _read_records(path: Path) -> np.ndarray[Any, np.dtype[np.uint8]]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RuntimeError(f"Cifar10Dataset: cannot read {str(path)!r}: {exc}") from exc
    if not raw or len(raw) % _RECORD:
        raise RuntimeError(
            f"Cifar10Dataset: {str(path)!r} has {len(raw)} bytes, not a whole number of {_RECORD}-byte records "
            "(a label byte and 3,072 image bytes each); is it a CIFAR-10 binary batch file?"
        )
    records = np.frombuffer(raw, dtype=np.uint8).reshape(-1, _RECORD)
    if records[:, 0].max() > 9:
        raise RuntimeError(
            f"Cifar10Dataset: {str(path)!r} holds the label {int(records[:, 0].max())}, but CIFAR-10 labels are 0 to 9; "
            "is it a CIFAR-100 file?"
        )
    return records
