"""Samplers, as `mindspore.dataset.DistributedSampler`, `RandomSampler`, `SequentialSampler`, `SubsetSampler`, `SubsetRandomSampler`, `WeightedRandomSampler`.

The first three are another way to say what a source's `shuffle`,
`num_samples` and `num_shards`/`shard_id` arguments say; cadence turns one into
those settings (see `_shard.RowOrder`), so both spellings read the same rows.
The others pick row indices themselves (`IndexSampler.draw`), each pass anew.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..validation import check_bool
from ._checks import check_int

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "DistributedSampler",
    "IndexSampler",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "SubsetRandomSampler",
    "SubsetSampler",
    "WeightedRandomSampler",
]

_INT32_MAX = 2**31 - 1


def _num_samples(value: Any, owner: str) -> int | None:
    return None if value is None else check_int(value, "num_samples", owner, minimum=1)


class Sampler:
    """Base of cadence's samplers; pass one as a source's `sampler` argument."""

    num_samples: int | None = None
    shuffle: bool = False
    num_shards: int | None = None
    shard_id: int | None = None
    start_index: int = 0

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_")
        )
        return f"{type(self).__name__}({fields})"


class DistributedSampler(Sampler):
    """Read shard `shard_id` of `num_shards`, as a source's `num_shards`/`shard_id` arguments do.

    Args:
        num_shards: Number of shards, an int >= 1.
        shard_id: The shard to read, in [0, num_shards - 1].
        shuffle: Whether each epoch reads a new permutation (the same in every process).
        num_samples: At most this many rows per shard (None: all).
        offset: Accepted for compatibility; only the default -1 is supported.

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        NotImplementedError: For an `offset` other than -1.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> sampler = ds.DistributedSampler(num_shards=3, shard_id=1, shuffle=False)
        >>> [int(x[0]) for x in ds.NumpySlicesDataset(np.arange(10), sampler=sampler).create_tuple_iterator(output_numpy=True)]
        [1, 4, 7, 0]
    """

    def __init__(
        self,
        num_shards: int,
        shard_id: int,
        shuffle: bool = True,
        num_samples: int | None = None,
        offset: int = -1,
    ) -> None:
        owner = "DistributedSampler"
        self.num_shards = check_int(
            num_shards, "num_shards", owner, minimum=1, maximum=_INT32_MAX
        )
        self.shard_id = check_int(
            shard_id, "shard_id", owner, minimum=0, maximum=self.num_shards - 1
        )
        self.shuffle = check_bool(shuffle, "shuffle", owner)
        self.num_samples = _num_samples(num_samples, owner)
        if check_int(offset, "offset", owner, minimum=-1) != -1:
            raise NotImplementedError(
                f"For '{owner}', the argument 'offset' is not supported by cadence yet; leave it at -1 (got {offset!r})."
            )


class RandomSampler(Sampler):
    """Read the rows in a new random order each epoch (without replacement).

    Args:
        replacement: Only False (sampling without replacement) is supported.
        num_samples: At most this many rows per epoch (None: all).

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
        NotImplementedError: For `replacement=True`.
    """

    def __init__(
        self, replacement: bool = False, num_samples: int | None = None
    ) -> None:
        owner = "RandomSampler"
        if check_bool(replacement, "replacement", owner):
            raise NotImplementedError(
                f"For '{owner}', 'replacement=True' is not supported by cadence yet."
            )
        self.replacement = False
        self.shuffle = True
        self.num_samples = _num_samples(num_samples, owner)


class SequentialSampler(Sampler):
    """Read the rows in order, from `start_index`.

    Args:
        start_index: The first row to read (None: 0).
        num_samples: At most this many rows (None: all from `start_index` on).

    Raises:
        TypeError, ValueError: If an argument has the wrong type or value.
    """

    def __init__(
        self, start_index: int | None = None, num_samples: int | None = None
    ) -> None:
        owner = "SequentialSampler"
        self.start_index = (
            0
            if start_index is None
            else check_int(start_index, "start_index", owner, minimum=0)
        )
        self.num_samples = _num_samples(num_samples, owner)


class IndexSampler(Sampler):
    """A sampler that picks the source rows of each pass itself (subset and weighted samplers)."""

    def count(self, total: int, owner: str) -> int:
        """Return the rows a pass reads from a source of `total` rows, checking the sampler fits it.

        Raises:
            RuntimeError: If the sampler names rows the source does not have.
        """
        raise NotImplementedError

    def draw(self, total: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
        """Return the source rows of one pass, in order."""
        raise NotImplementedError


def _indices(value: Any, owner: str) -> list[int]:
    items = list(value) if isinstance(value, list | tuple | np.ndarray) else [value]
    for i, item in enumerate(items):
        if not isinstance(item, int | np.integer) or isinstance(item, bool):
            raise TypeError(
                f"For '{owner}', every element of 'indices' must be an int, but got {item!r} "
                f"of type {type(item).__name__!r} at position {i}."
            )
    if not items:
        raise ValueError(f"For '{owner}', the argument 'indices' must not be empty.")
    return [int(i) for i in items]


class SubsetSampler(IndexSampler):
    """Read the rows at `indices`, in that order (an index may repeat).

    Args:
        indices: Row indices (a list, tuple or 1-d array of ints, or one int).
        num_samples: Read only the first this many (None or 0: all).

    Raises:
        TypeError: If an index is not an int.
        ValueError: If `indices` is empty or `num_samples` negative.
        RuntimeError: When a source is created with it, if an index is outside
            the source's rows.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> data = ds.NumpySlicesDataset(np.arange(10, 20), sampler=ds.SubsetSampler([5, 1, 1]))
        >>> [int(x[0]) for x in data.create_tuple_iterator(output_numpy=True)]
        [15, 11, 11]
    """

    def __init__(self, indices: Any, num_samples: int | None = None) -> None:
        owner = type(self).__name__
        self.indices = _indices(indices, owner)
        self.num_samples = (
            None
            if num_samples is None
            else check_int(num_samples, "num_samples", owner, minimum=0) or None
        )
        self._array = np.asarray(self.indices, dtype=np.intp)

    def count(self, total: int, owner: str) -> int:
        """Return the indices read per pass, checking they are rows of the source."""
        bad = [i for i in self.indices if not 0 <= i < total]
        if bad:
            raise RuntimeError(
                f"For '{owner}', the {type(self).__name__} index {bad[0]} is out of bound: the source has "
                f"rows 0 to {total - 1}."
            )
        n = len(self.indices)
        return n if self.num_samples is None else min(n, self.num_samples)

    def draw(self, total: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
        """Return the indices, in order."""
        return self._array[: self.count(total, "")]


class SubsetRandomSampler(SubsetSampler):
    """Read the rows at `indices` in a new random order each pass.

    Arguments and errors as `SubsetSampler`.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> data = ds.NumpySlicesDataset(np.arange(10, 20), sampler=ds.SubsetRandomSampler([0, 2, 4]))
        >>> sorted(int(x[0]) for x in data.create_tuple_iterator(output_numpy=True))
        [10, 12, 14]
    """

    shuffle = True

    def draw(self, total: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
        """Return the indices in a random order (the first `num_samples` of it)."""
        return rng.permutation(self._array)[: self.count(total, "")]


class WeightedRandomSampler(IndexSampler):
    """Draw rows `0 .. len(weights) - 1` with probabilities proportional to `weights`.

    Args:
        weights: One non-negative number per row (not all zero); a list, tuple
            or 1-d array.
        num_samples: Rows drawn per pass (None or 0: as many as the source has).
        replacement: Draw with replacement (a row may come again). Without it,
            the rows of weight 0 come last, in index order, once the others are drawn.

    Raises:
        TypeError: If a weight is not a number or `replacement` not a bool.
        ValueError: If `weights` is empty, holds a negative number or only zeros,
            or, without replacement, `num_samples` exceeds `len(weights)`.
        RuntimeError: When a source is created with it, if `weights` is longer
            than the source, or, without replacement, fewer than the rows to draw.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> sampler = ds.WeightedRandomSampler([0, 0, 1, 0], num_samples=3)
        >>> data = ds.NumpySlicesDataset(np.arange(10, 14), sampler=sampler)
        >>> data.get_dataset_size()
        3
        >>> [int(x[0]) for x in data.create_tuple_iterator(output_numpy=True)]
        [12, 12, 12]
    """

    def __init__(
        self, weights: Any, num_samples: int | None = None, replacement: bool = True
    ) -> None:
        owner = "WeightedRandomSampler"
        items = (
            list(weights)
            if isinstance(weights, list | tuple | np.ndarray)
            else [weights]
        )
        for i, w in enumerate(items):
            if not isinstance(w, int | float | np.number) or isinstance(w, bool):
                raise TypeError(
                    f"For '{owner}', every weight must be a number, but got {w!r} of type {type(w).__name__!r} at position {i}."
                )
        self.weights = [float(w) for w in items]
        if not self.weights:
            raise ValueError(
                f"For '{owner}', the argument 'weights' must not be empty."
            )
        if any(w < 0 for w in self.weights):
            raise ValueError(
                f"For '{owner}', every weight must be >= 0, but got {weights!r}."
            )
        if not any(self.weights):
            raise ValueError(
                f"For '{owner}', the weights must not all be zero, but got {weights!r}."
            )
        self.replacement = check_bool(replacement, "replacement", owner)
        self.num_samples = (
            None
            if num_samples is None
            else check_int(num_samples, "num_samples", owner, minimum=0) or None
        )
        if not self.replacement and (self.num_samples or 0) > len(self.weights):
            raise ValueError(
                f"For '{owner}', without replacement 'num_samples' must be at most the number of weights "
                f"({len(self.weights)}), but got {self.num_samples}."
            )
        self.shuffle = True
        self._p = np.asarray(self.weights) / sum(self.weights)

    def count(self, total: int, owner: str) -> int:
        """Return the rows drawn per pass, checking the weights fit a source of `total` rows."""
        if len(self.weights) > total:
            raise RuntimeError(
                f"For '{owner}', WeightedRandomSampler has {len(self.weights)} weights, but the source has "
                f"only {total} rows; give at most one weight per row."
            )
        n = total if self.num_samples is None else self.num_samples
        if not self.replacement and n > len(self.weights):
            raise RuntimeError(
                f"For '{owner}', WeightedRandomSampler without replacement draws {n} rows "
                f"('num_samples', else the source's size), more than its {len(self.weights)} weights."
            )
        return n

    def draw(self, total: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
        """Return the rows drawn for one pass."""
        n = self.count(total, "")
        if self.replacement:
            return rng.choice(len(self._p), size=n, p=self._p).astype(np.intp)
        # Without replacement: sort by exponential keys E/w (Efraimidis-Spirakis),
        # the same law as drawing one row at a time; weight 0 sorts last, by index.
        with np.errstate(divide="ignore"):
            keys = rng.exponential(size=len(self._p)) / self._p
        return np.argsort(keys, kind="stable")[:n].astype(np.intp)
