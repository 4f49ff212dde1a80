"""Samplers, as `mindspore.dataset.DistributedSampler`, `RandomSampler`, `SequentialSampler`.

A sampler is another way to say what a source's `shuffle`, `num_samples` and
`num_shards`/`shard_id` arguments say; cadence turns one into those settings
(see `_shard.RowOrder`), so both spellings read the same rows.
"""

from __future__ import annotations

from typing import Any

from ..validation import check_bool
from ._checks import check_int

__all__ = ["DistributedSampler", "RandomSampler", "Sampler", "SequentialSampler"]

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
