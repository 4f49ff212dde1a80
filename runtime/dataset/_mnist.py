"""`MnistDataset` and `FashionMnistDataset`: MNIST-format IDX files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._idx import read_idx
from ._sources import ImageDirectoryDataset

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["FashionMnistDataset", "MnistDataset", "find_mnist_files"]

_PREFIX: Final = {"train": "train", "test": "t10k"}


class MnistDataset(ImageDirectoryDataset):
    """MNIST from a directory of IDX files, as `mindspore.dataset.MnistDataset`.

    The directory is read as MindSpore reads it: every file whose name holds
    `<prefix>-images` and `idx3-ubyte` is an image file, every one holding
    `<prefix>-labels` and `idx1-ubyte` a label file, where the prefix is `train`
    for `usage="train"`, `t10k` for `"test"` and anything for `"all"`. So the
    official download's `MNIST_Data/train` (train files only) and
    `MNIST_Data/test` (t10k files only) work, as do folders holding all four
    files, dot-named files (`train-images.idx3-ubyte`) and gzipped ones (`.gz`
    appended). Image and label files pair up in sorted name order. The files
    are read when the dataset is created, so a missing or damaged file fails
    here, not mid-training.

    Columns: `image`, uint8 of shape (28, 28, 1) (HWC), and `label`, a uint32
    scalar, as in MindSpore.

    Arguments: those of every `ImageDirectoryDataset` (`dataset_dir`, `usage`,
    `num_samples`, `num_parallel_workers`, `shuffle`, `sampler`, `num_shards`,
    `shard_id`, `cache`). `usage=None` (`"all"`) reads every MNIST file the
    directory holds, in sorted name order (`t10k` before `train`).

    Raises:
        ValueError: If `dataset_dir` is not a directory or `usage` is unknown.
        RuntimeError: If the directory holds no MNIST file for `usage`, image
            and label files differ in number, a file is not an IDX file, has the
            wrong number of dimensions or is truncated, or images and labels
            disagree in number. The message names the directory or file.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> from cadence.dataset import transforms, vision
        >>> def datapipe(path, batch_size):  # the MindSpore tutorial's pipeline
        ...     image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()]
        ...     dataset = ds.MnistDataset(path)
        ...     dataset = dataset.map(image_transforms, "image")
        ...     dataset = dataset.map(transforms.TypeCast(np.int32), "label")
        ...     return dataset.batch(batch_size)
    """

    def _read(
        self, directory: Path, usage: str, owner: str
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        pairs = [
            _read_pair(image, label, owner)
            for image, label in find_mnist_files(directory, usage, owner)
        ]
        images = np.concatenate([p[0] for p in pairs])
        return images[..., np.newaxis], np.concatenate([p[1] for p in pairs])


def find_mnist_files(
    directory: Path, usage: str, owner: str = "MnistDataset"
) -> list[tuple[Path, Path]]:
    """Return the (image file, label file) pairs `usage` reads from `directory`, in sorted name order.

    Raises:
        RuntimeError: If there are none, or image and label files differ in number.
    """
    prefix = _PREFIX.get(usage, "")
    names = sorted(entry.name for entry in directory.iterdir() if entry.is_file())
    plain = set(names)
    # A download may leave `x.gz` beside its unpacked `x`: read the unpacked one only.
    names = [n for n in names if not (n.endswith(".gz") and n[:-3] in plain)]
    images = [n for n in names if f"{prefix}-images" in n and "idx3-ubyte" in n]
    labels = [n for n in names if f"{prefix}-labels" in n and "idx1-ubyte" in n]
    expected = (
        f"{prefix}-images-idx3-ubyte and {prefix}-labels-idx1-ubyte"
        if prefix
        else "train-* and/or t10k-* image and label files"
    )
    if not images and not labels:
        raise RuntimeError(
            f"{owner}: the directory {str(directory)!r} holds no MNIST files for usage {usage!r}; expected "
            f"{expected} (dash- or dot-named, optionally .gz). MindSpore's download keeps the train files in "
            f"MNIST_Data/train and the t10k files in MNIST_Data/test."
        )
    if len(images) != len(labels):
        raise RuntimeError(
            f"{owner}: the directory {str(directory)!r} holds {len(images)} image file(s) {images!r} but "
            f"{len(labels)} label file(s) {labels!r} for usage {usage!r}; each image file needs its label file."
        )
    return [
        (directory / image, directory / label)
        for image, label in zip(images, labels, strict=True)
    ]


def _read_pair(
    image_path: Path, label_path: Path, owner: str
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    images = read_idx(image_path, 3)
    labels = read_idx(label_path, 1)
    if len(images) != len(labels):
        raise RuntimeError(
            f"{owner}: {str(image_path)!r} holds {len(images)} images but {str(label_path)!r} holds {len(labels)} labels."
        )
    return images, labels


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST, as `mindspore.dataset.FashionMnistDataset`: the same files, layout and columns as MNIST.

    Fashion-MNIST ships as `train-images-idx3-ubyte`, `train-labels-idx1-ubyte`,
    `t10k-images-idx3-ubyte` and `t10k-labels-idx1-ubyte` (28x28 grayscale
    clothing images, 10 classes); everything `MnistDataset` says applies, and
    errors name `FashionMnistDataset`.
    """
