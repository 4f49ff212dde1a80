"""`DigitsDataset`: scikit-learn's bundled handwritten digits, split into train and test."""

from __future__ import annotations

import functools
from typing import Any, Final

import numpy as np

from ..validation import check_number
from ._checks import check_int, check_optional_bool
from ._shard import Reading
from ._sources import InMemoryDataset

__all__ = ["DigitsDataset", "load_digits_arrays"]

_USAGES: Final = ("train", "test", "all")


@functools.lru_cache(maxsize=1)
def load_digits_arrays() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Return all 1,797 digits: images float32 (N, 1, 8, 8) in [0, 1], labels int32 (N,).

    Loaded once per process; the arrays are read-only (datasets index copies of them).
    """
    # Imported here: scikit-learn is slow to import and only this loader needs it.
    from sklearn.datasets import load_digits  # type: ignore[import-untyped]

    bunch = load_digits()
    # Pixel values are integers 0..16 (counts of set pixels in 4x4 blocks).
    images = (np.asarray(bunch.images, dtype=np.float32) / np.float32(16.0)).reshape(
        -1, 1, 8, 8
    )
    labels = np.asarray(bunch.target, dtype=np.int32)
    images.flags.writeable = False
    labels.flags.writeable = False
    return images, labels


def split_indices(
    labels: np.ndarray[Any, Any], test_fraction: float, seed: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Return sorted (train, test) row indices of a stratified split: each class gives `round(test_fraction * count)` rows to test."""
    rng = np.random.default_rng(seed)
    train: list[np.ndarray[Any, Any]] = []
    test: list[np.ndarray[Any, Any]] = []
    for cls in np.unique(labels):
        rows = rng.permutation(np.flatnonzero(labels == cls))
        cut = round(test_fraction * len(rows))
        test.append(rows[:cut])
        train.append(rows[cut:])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


class DigitsDataset(InMemoryDataset):
    """The handwritten digits that scikit-learn ships (1,797 images of 8x8 pixels, 10 classes).

    Ready for a network without `map`: column `image` is float32 of shape
    (1, 8, 8) (CHW) scaled to [0, 1] (raw pixel value / 16), column `label` is
    an int32 scalar. The train/test split is stratified (each digit keeps its
    share in both parts) and fixed by `seed`, so separate `"train"` and
    `"test"` datasets never overlap.

    Args:
        usage: `"train"`, `"test"` or `"all"`; None means `"all"`.
        test_fraction: Share of each class held out for `"test"`, in (0, 1).
        num_shards: Split the rows into this many shards (data-parallel
            training), read the one `shard_id` names.
        shard_id: The shard to read, in [0, num_shards - 1].
        seed: Seed of the split (not of the shuffling).
        num_samples: Rows to read per pass (None: all).
        shuffle: Read rows in a new random order each pass; None means True.

    Raises:
        ValueError: If `usage` or `test_fraction` is out of range.
        TypeError: If an argument has the wrong type.

    Example:
        >>> import cadence.dataset as ds
        >>> train = ds.DigitsDataset("train").batch(32)
        >>> test = ds.DigitsDataset("test", shuffle=False)
        >>> test.get_dataset_size(), test.output_shapes()
        (359, [[1, 8, 8], []])
    """

    def __init__(
        self,
        usage: str | None = None,
        test_fraction: float = 0.2,
        seed: int = 0,
        num_samples: int | None = None,
        shuffle: bool | None = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
    ) -> None:
        owner = "DigitsDataset"
        usage = "all" if usage is None else usage
        if usage not in _USAGES:
            raise ValueError(
                f"For '{owner}', the argument 'usage' must be one of {list(_USAGES)!r} or None, but got {usage!r}."
            )
        fraction = check_number(
            test_fraction,
            "test_fraction",
            owner,
            minimum=0.0,
            maximum=1.0,
            inclusive=False,
        )
        check_int(seed, "seed", owner, minimum=0)
        shuffled = check_optional_bool(shuffle, "shuffle", owner)
        images, labels = load_digits_arrays()
        if usage != "all":
            train, test = split_indices(labels, fraction, seed)
            rows = train if usage == "train" else test
            images, labels = images[rows], labels[rows]
        self.usage = usage
        reading = Reading(num_samples, shuffled, num_shards, shard_id)
        super().__init__([images, labels], ["image", "label"], owner, reading)
