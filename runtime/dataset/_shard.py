"""Sharding a source over data-parallel ranks: `num_shards`/`shard_id` and `DistributedSampler`.

Shard `i` of `n` reads the rows at positions `i, i + n, i + 2n, ...` of the
pass's row order, wrapping around to the start so that every shard has
`ceil(rows / n)` rows (every rank then runs the same number of steps, which
collectives need). With `batch(B)` on every rank, the ranks' batches k
together are rows `k*n*B ... (k+1)*n*B - 1` of the unsharded order: the
global batch one process would read with `batch(n*B)`.

A shuffled, sharded source must shuffle identically on every rank, or the
shards overlap; its order comes from the dataset seed (or a fixed one when
none was set) and a per-source pass counter, never from OS entropy.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import numpy as np

from ._checks import check_bool, check_int, check_optional_bool
from ._random import get_dataset_seed

if TYPE_CHECKING:
    from ._access import IndexArray

__all__ = ["DistributedSampler", "Shard", "check_sharding", "source_plan"]

# Used when no seed was set, so that the ranks agree (MindSpore uses a fixed default seed too).
_DEFAULT_SHARD_SEED: Final = 5489


class Shard(NamedTuple):
    """One shard of a source: which of how many, and whether its rows are shuffled."""

    num_shards: int
    shard_id: int

    def count(self, rows: int) -> int:
        """Return the rows in this shard of `rows` rows."""
        return math.ceil(rows / self.num_shards)

    def positions(self, rows: int) -> IndexArray:
        """Return the positions of this shard's rows in a pass order of `rows` rows."""
        k = np.arange(self.count(rows), dtype=np.intp)
        return (k * self.num_shards + self.shard_id) % rows

    def shared_order(self, rows: int, pass_index: int) -> IndexArray:
        """Return a random order of `rows` rows that every rank draws the same for `pass_index`."""
        seed = get_dataset_seed()
        rng = np.random.default_rng(
            [_DEFAULT_SHARD_SEED if seed is None else seed, pass_index]
        )
        return rng.permutation(rows).astype(np.intp)


class DistributedSampler:
    """Read one shard of a source, as `mindspore.dataset.DistributedSampler`.

    Pass it as `sampler=` to a source; it is the same as `num_shards=` and
    `shard_id=` with the sampler's `shuffle`.

    Args:
        num_shards: The number of shards (usually `get_group_size()`).
        shard_id: This shard (usually `get_rank()`), in [0, num_shards - 1].
        shuffle: Whether each pass reads the rows in a new random order (the
            same order on every shard, so shards never overlap).
        num_samples: Rows per shard per pass at most (None: the whole shard).
        offset: Accepted for compatibility; only -1 (the default) is supported.

    Raises:
        TypeError, ValueError: For a bad argument.

    Example:
        >>> import numpy as np
        >>> import cadence.dataset as ds
        >>> sampler = ds.DistributedSampler(num_shards=2, shard_id=1, shuffle=False)
        >>> data = ds.NumpySlicesDataset({"x": np.arange(5)}, sampler=sampler)
        >>> [int(row[0].asnumpy()) for row in data]
        [1, 3, 0]
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
        self.num_shards = check_int(num_shards, "num_shards", owner, minimum=1)
        self.shard_id = check_int(
            shard_id, "shard_id", owner, minimum=0, maximum=num_shards - 1
        )
        self.shuffle = check_bool(shuffle, "shuffle", owner)
        self.num_samples = (
            None
            if num_samples is None
            else check_int(num_samples, "num_samples", owner, minimum=1)
        )
        if check_int(offset, "offset", owner) != -1:
            raise ValueError(
                f"For '{owner}', the argument 'offset' must be -1 (cadence does not support offsets), but got {offset!r}."
            )

    def __repr__(self) -> str:
        return (
            f"DistributedSampler(num_shards={self.num_shards}, shard_id={self.shard_id}, "
            f"shuffle={self.shuffle}, num_samples={self.num_samples})"
        )


class ShardPlan(NamedTuple):
    """What a source reads: its shard (or None), whether it shuffles, rows per pass at most."""

    shard: Shard | None
    shuffle: bool
    num_samples: int | None


def source_plan(
    owner: str,
    shuffle: Any,
    num_samples: Any,
    sampler: Any,
    num_shards: Any,
    shard_id: Any,
) -> ShardPlan:
    """Check a source's `shuffle`, `num_samples`, `sampler`, `num_shards`, `shard_id`; return its reading plan."""
    return check_sharding(
        owner,
        sampler=sampler,
        num_shards=num_shards,
        shard_id=shard_id,
        shuffle=check_optional_bool(shuffle, "shuffle", owner),
        num_samples=None
        if num_samples is None
        else check_int(num_samples, "num_samples", owner, minimum=1),
    )


def check_sharding(
    owner: str,
    *,
    sampler: Any,
    num_shards: Any,
    shard_id: Any,
    shuffle: bool | None,
    num_samples: int | None,
) -> ShardPlan:
    """Return a source's reading plan from its checked `shuffle` and `num_samples` and its sharding arguments.

    Raises:
        RuntimeError: As MindSpore: `num_shards` without `shard_id` (or the other
            way round), or a sampler together with sharding or `shuffle`.
        TypeError, ValueError: For a bad value.
    """
    if sampler is not None:
        if not isinstance(sampler, DistributedSampler):
            raise NotImplementedError(
                f"For '{owner}', the argument 'sampler' supports only a DistributedSampler in cadence, "
                f"but got {sampler!r}."
            )
        if num_shards is not None or shard_id is not None:
            raise RuntimeError(
                f"For '{owner}', 'sampler' and 'num_shards'/'shard_id' cannot be given together "
                f"(got sampler={sampler!r}, num_shards={num_shards!r}, shard_id={shard_id!r})."
            )
        if shuffle is not None:
            raise RuntimeError(
                f"For '{owner}', 'sampler' and 'shuffle' cannot be given together; the sampler's "
                f"'shuffle' decides (got shuffle={shuffle!r})."
            )
        limit = sampler.num_samples
        if num_samples is not None:
            limit = num_samples if limit is None else min(limit, num_samples)
        return ShardPlan(
            Shard(sampler.num_shards, sampler.shard_id), sampler.shuffle, limit
        )
    if (num_shards is None) != (shard_id is None):
        raise RuntimeError(
            f"For '{owner}', 'num_shards' and 'shard_id' must be given together, "
            f"but got num_shards={num_shards!r} and shard_id={shard_id!r}."
        )
    shard = None
    if num_shards is not None:
        n = check_int(num_shards, "num_shards", owner, minimum=1)
        shard = Shard(
            n, check_int(shard_id, "shard_id", owner, minimum=0, maximum=n - 1)
        )
    return ShardPlan(shard, shuffle is not False, num_samples)
