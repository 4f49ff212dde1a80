"""`MnistDataset`: MNIST read from its IDX files."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import numpy as np

from ._checks import check_unsupported
from ._idx import read_idx
from ._shard import source_plan
from ._sources import InMemoryDataset

__all__ = ["MnistDataset"]

_PREFIX: Final = {"train": "train", "test": "t10k"}
_USAGES: Final = ("train", "test", "all")


class MnistDataset(InMemoryDataset):
    """MNIST from a directory of IDX files, as `mindspore.dataset.MnistDataset`.

    The directory holds `train-images-idx3-ubyte`, `train-labels-idx1-ubyte`,
    `t10k-images-idx3-ubyte` and `t10k-labels-idx1-ubyte` (each may also be
    gzipped, with `.gz` appended). The files are read when the dataset is
    created, so a missing or damaged file fails here, not mid-training.

    Columns: `image`, uint8 of shape (28, 28, 1) (HWC), and `label`, a uint32
    scalar, as in MindSpore.

    Args:
        dataset_dir: The directory.
        usage: `"train"` (60,000 rows), `"test"` (10,000) or `"all"` (train then
            test); None means `"all"`.
        num_samples: Rows to read per pass (None: all).
        num_parallel_workers: Accepted for compatibility.
        shuffle: Read rows in a new random order each pass; None means True.
        sampler: None, or a `DistributedSampler` (then leave `shuffle` at None).
        num_shards: Split the rows into this many shards (data-parallel ranks).
        shard_id: The shard to read, in [0, num_shards - 1]; given with `num_shards`.
        cache: Not supported (must be None).

    Raises:
        ValueError: If `dataset_dir` is not a directory or `usage` is unknown.
        RuntimeError: If a file is missing, is not an IDX file, has the wrong
            number of dimensions, is truncated, or images and labels disagree in
            number. The message names the file.

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

    def __init__(
        self,
        dataset_dir: str | Path,
        usage: str | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | None = None,
        sampler: Any = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache: Any = None,
    ) -> None:
        owner = "MnistDataset"
        check_unsupported(owner, cache=cache)
        plan = source_plan(owner, shuffle, num_samples, sampler, num_shards, shard_id)
        directory = _check_dir(dataset_dir, owner)
        usage = "all" if usage is None else usage
        if usage not in _USAGES:
            raise ValueError(
                f"For '{owner}', the argument 'usage' must be one of {list(_USAGES)!r} or None, but got {usage!r}."
            )
        parts = ["train", "test"] if usage == "all" else [usage]
        pairs = [_read_part(directory, part) for part in parts]
        images = (
            np.concatenate([p[0] for p in pairs]) if len(pairs) > 1 else pairs[0][0]
        )
        labels = (
            np.concatenate([p[1] for p in pairs]) if len(pairs) > 1 else pairs[0][1]
        )
        super().__init__(
            [images[..., np.newaxis], labels.astype(np.uint32)],
            ["image", "label"],
            plan.num_samples,
            plan.shuffle,
            plan.shard,
        )


def _check_dir(dataset_dir: Any, owner: str) -> Path:
    if not isinstance(dataset_dir, str | Path):
        raise TypeError(
            f"For '{owner}', the argument 'dataset_dir' must be a str or Path, but got {type(dataset_dir).__name__!r}."
        )
    directory = Path(dataset_dir)
    if not directory.is_dir():
        raise ValueError(
            f"For '{owner}', the directory {str(directory)!r} given as 'dataset_dir' does not exist or is not a directory."
        )
    return directory


def _find(directory: Path, name: str) -> Path:
    for candidate in (directory / name, directory / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    raise RuntimeError(
        f"MnistDataset: the MNIST file {name!r} (or {name + '.gz'!r}) is missing from {str(directory)!r}."
    )


def _read_part(
    directory: Path, part: str
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    prefix = _PREFIX[part]
    image_path = _find(directory, f"{prefix}-images-idx3-ubyte")
    label_path = _find(directory, f"{prefix}-labels-idx1-ubyte")
    images = read_idx(image_path, 3)
    labels = read_idx(label_path, 1)
    if len(images) != len(labels):
        raise RuntimeError(
            f"MnistDataset: {str(image_path)!r} holds {len(images)} images but {str(label_path)!r} holds {len(labels)} labels."
        )
    return images, labels
