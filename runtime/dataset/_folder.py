"""`ImageFolderDataset`: images stored one folder per class, read from disk as rows are needed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..validation import check_bool
from ._checks import check_dataset_dir, check_unsupported
from ._shard import Reading, source_order
from ._sources import FileRowsDataset
from .vision._decode import decode_image

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from ._block import Row

__all__ = ["ImageFolderDataset"]


class ImageFolderDataset(FileRowsDataset):
    """Images in class folders, as `mindspore.dataset.ImageFolderDataset`.

    `dataset_dir` holds one folder per class (`dataset_dir/cat/1.jpg`,
    `dataset_dir/dog/7.png`, ...). Classes are numbered in sorted folder-name
    order from 0 unless `class_indexing` says otherwise; rows come class by
    class, files in sorted name order. The folder tree is listed when the
    dataset is created; the image files are read as rows are needed, so the
    images need not fit in memory.

    Columns: `image`, the file's bytes (1-d uint8; decode them with
    `vision.Decode()`), or with `decode=True` the decoded uint8 <H, W, 3> RGB
    image; and `label`, an int32 scalar.

    Args:
        dataset_dir: The directory of class folders.
        num_samples: Rows to read per pass (per shard), None for all.
        num_parallel_workers: Accepted for compatibility.
        shuffle: Read rows in a new random order each pass; None means True.
        sampler: A `DistributedSampler`, `RandomSampler` or `SequentialSampler`
            (then `shuffle`, `num_samples` and the shard arguments stay None).
        extensions: Read only files with these extensions (e.g. `[".jpg",
            ".png"]`, compared exactly, as in MindSpore); None reads every file.
        class_indexing: Maps folder names to labels; only the folders it names
            are read. None: every folder, numbered in sorted order.
        decode: Decode the images (with Pillow) instead of yielding file bytes.
        num_shards: Split the rows into this many shards (data-parallel
            training), read the one `shard_id` names.
        shard_id: The shard to read, in [0, num_shards - 1].
        cache: Not supported (must be None).
        decrypt: Not supported (must be None).

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        RuntimeError: If no image file is found, or a folder of
            `class_indexing` does not exist. Reading or decoding a file that
            fails raises RuntimeError naming it.

    Example:
        >>> import cadence.dataset as ds
        >>> from cadence.dataset import vision
        >>> def create_dataset(path, rank, size):  # one shard per data-parallel process
        ...     data = ds.ImageFolderDataset(path, num_shards=size, shard_id=rank, shuffle=True)
        ...     data = data.map([vision.Decode(), vision.Resize((32, 32)), vision.HWC2CHW()], "image")
        ...     return data.batch(16)
    """

    def __init__(
        self,
        dataset_dir: str | Path,
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | None = None,
        sampler: Any = None,
        extensions: Sequence[str] | None = None,
        class_indexing: dict[str, int] | None = None,
        decode: bool = False,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache: Any = None,
        decrypt: Any = None,
    ) -> None:
        owner = "ImageFolderDataset"
        super().__init__()
        check_unsupported(owner, cache=cache, decrypt=decrypt)
        directory = check_dataset_dir(dataset_dir, owner)
        self.decode = check_bool(decode, "decode", owner)
        suffixes = _check_extensions(extensions, owner)
        classes = _classes(directory, class_indexing, owner)
        files: list[Path] = []
        labels: list[int] = []
        for folder, label in classes:
            found = sorted(
                entry
                for entry in folder.iterdir()
                if entry.is_file()
                and not entry.name.startswith(".")
                and (suffixes is None or entry.suffix in suffixes)
            )
            files += found
            labels += [label] * len(found)
        if not files:
            raise RuntimeError(
                f"ImageFolderDataset: no image file found under {str(directory)!r}"
                + (
                    ""
                    if suffixes is None
                    else f" with the extensions {sorted(suffixes)!r}"
                )
                + "; it must hold one folder per class with the images inside (dataset_dir/<class>/<image>)."
            )
        self._class_indexing = {
            folder.name: label for folder, label in sorted(classes, key=lambda c: c[1])
        }
        self._files = files
        self._labels = np.asarray(labels, dtype=np.int32)
        reading = Reading(
            num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler
        )
        self._order = source_order(len(files), owner, reading)

    def get_class_indexing(self) -> dict[str, int]:
        """Return the label of each class folder read."""
        return dict(self._class_indexing)

    def _names(self) -> list[str]:
        return ["image", "label"]

    def _read(self, index: int) -> Row:
        path = self._files[index]
        try:
            data = np.frombuffer(path.read_bytes(), dtype=np.uint8)
        except OSError as exc:
            raise RuntimeError(
                f"ImageFolderDataset: cannot read {str(path)!r}: {exc}"
            ) from exc
        image = (
            decode_image(data, f"ImageFolderDataset ({str(path)!r})")
            if self.decode
            else data
        )
        return (image, self._labels[index, ...])


def _check_extensions(extensions: Any, owner: str) -> set[str] | None:
    if extensions is None:
        return None
    if not isinstance(extensions, list | tuple) or not all(
        isinstance(e, str) for e in extensions
    ):
        raise TypeError(
            f"For '{owner}', the argument 'extensions' must be a list of str such as ['.jpg', '.png'], but got {extensions!r}."
        )
    return set(extensions)


def _classes(
    directory: Path, class_indexing: Any, owner: str
) -> list[tuple[Path, int]]:
    if class_indexing is None:
        folders = sorted(
            entry
            for entry in directory.iterdir()
            if entry.is_dir() and not entry.name.startswith(".")
        )
        return [(folder, label) for label, folder in enumerate(folders)]
    if not isinstance(class_indexing, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
        for k, v in class_indexing.items()
    ):
        raise TypeError(
            f"For '{owner}', the argument 'class_indexing' must be a dict from folder name (str) to label (int), "
            f"but got {class_indexing!r}."
        )
    if any(v < 0 for v in class_indexing.values()):
        raise ValueError(
            f"For '{owner}', the labels in 'class_indexing' must be >= 0, but got {class_indexing!r}."
        )
    missing = [name for name in class_indexing if not (directory / name).is_dir()]
    if missing:
        raise RuntimeError(
            f"ImageFolderDataset: 'class_indexing' names the folder {missing[0]!r}, which {str(directory)!r} does not hold."
        )
    return [(directory / name, class_indexing[name]) for name in sorted(class_indexing)]
