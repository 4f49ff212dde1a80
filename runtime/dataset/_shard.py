"""Which rows of a random-access source one pass reads: `num_samples`, `shuffle`, `num_shards`/`shard_id`.

Sharding follows MindSpore's distributed sampler: shard `i` of `N` reads the
rows at positions `i, i + N, i + 2N, ...` of the (possibly shuffled) row order,
and every shard reads `ceil(rows / N)` of them, wrapping around to the first
rows when the division is not even, so all ranks run the same number of steps.

The shards of one pass must partition *one* order, so a sharded source does not
shuffle with the pass seed (drawn per process) but with a seed every process
computes alike: the dataset seed (`config.set_seed` / `cadence.set_seed`, else
MindSpore's default 5489) and the number of passes this source has started.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import numpy as np

from ._checks import check_int, check_optional_bool
from ._random import PEEK_PASS, get_dataset_seed
from ._samplers import IndexSampler, Sampler

if TYPE_CHECKING:
    from ._access import IndexArray
    from ._random import Pass

__all__ = [
    "Reading",
    "RowOrder",
    "SampledOrder",
    "Shard",
    "check_shard",
    "source_order",
]

_DEFAULT_SEED: Final = 5489  # MindSpore's default dataset seed: equal in every process
_INT32_MAX: Final = 2**31 - 1


class Shard:
    """One shard of a source: `shard_id` of `num_shards`."""

    __slots__ = ("num_shards", "shard_id")

    def __init__(self, num_shards: int, shard_id: int) -> None:
        self.num_shards = num_shards
        self.shard_id = shard_id

    def __repr__(self) -> str:
        return f"Shard(num_shards={self.num_shards}, shard_id={self.shard_id})"


def check_shard(num_shards: Any, shard_id: Any, owner: str) -> Shard | None:
    """Return the shard of `num_shards`/`shard_id` (None when both are None).

    Raises:
        TypeError: If one is not an int.
        ValueError: If only one of the two is given, `num_shards` < 1 or
            `shard_id` is outside [0, num_shards - 1].
    """
    if num_shards is None and shard_id is None:
        return None
    if shard_id is None:
        raise ValueError(
            f"For '{owner}', 'num_shards' is given ({num_shards!r}), so 'shard_id' must be given too, but it is None."
        )
    if num_shards is None:
        raise ValueError(
            f"For '{owner}', 'shard_id' is given ({shard_id!r}), so 'num_shards' must be given too, but it is None."
        )
    count = check_int(num_shards, "num_shards", owner, minimum=1, maximum=_INT32_MAX)
    index = check_int(shard_id, "shard_id", owner, minimum=0, maximum=count - 1)
    return Shard(count, index)


class RowOrder:
    """The rows each pass of a random-access source reads, in order.

    Args:
        total: Rows the source holds.
        num_samples: At most this many rows per pass (per shard), None for all.
        shuffle: Whether each pass reads a new random order.
        shard: The shard to read, or None for all rows.
        start: The first row read (unshuffled, unsharded only: `SequentialSampler`).
    """

    def __init__(
        self,
        total: int,
        num_samples: int | None,
        shuffle: bool,
        shard: Shard | None,
        start: int = 0,
    ) -> None:
        self.total = total
        self.shuffle = shuffle
        self.shard = shard
        self.start = start
        available = (
            max(0, total - start)
            if shard is None or total == 0
            else math.ceil(total / shard.num_shards)
        )
        self.count = available if num_samples is None else min(available, num_samples)
        self._passes = itertools.count()

    def positions(self, p: Pass) -> IndexArray:
        """Return the source row of each position of pass `p` (as `order`, never None)."""
        order = self.order(p)
        return np.arange(self.count, dtype=np.intp) if order is None else order

    def order(self, p: Pass) -> IndexArray | None:
        """Return the source row of each position of pass `p`, or None for rows `0 .. count-1`."""
        shard = self.shard
        if shard is None:
            if not self.shuffle:
                if self.start:
                    return np.arange(self.start, self.start + self.count, dtype=np.intp)
                return None
            return p.rng().permutation(self.total)[: self.count].astype(np.intp)
        positions = (
            shard.shard_id + shard.num_shards * np.arange(self.count, dtype=np.intp)
        ) % self.total
        if not self.shuffle:
            return positions
        # Peeking at shapes must not advance the epoch count every process shares.
        epoch = 0 if p is PEEK_PASS else next(self._passes)
        seed = get_dataset_seed()
        rng = np.random.default_rng((_DEFAULT_SEED if seed is None else seed, epoch))
        permuted: IndexArray = rng.permutation(self.total).astype(np.intp)[positions]
        return permuted


class SampledOrder(RowOrder):
    """The rows an `IndexSampler` picks, drawn anew each pass.

    Raises:
        RuntimeError: If the sampler names rows outside the source's `total`.
    """

    def __init__(self, total: int, sampler: IndexSampler, owner: str) -> None:
        super().__init__(total, None, sampler.shuffle, None)
        self.count = sampler.count(total, owner)
        self._sampler = sampler

    def order(self, p: Pass) -> IndexArray:
        """Return the rows the sampler picks for pass `p`."""
        return self._sampler.draw(self.total, p.rng())


class Reading(NamedTuple):
    """A source's reading arguments as its caller passed them, unchecked (`source_order` checks them).

    They travel together from every source constructor to `source_order`; the
    types are those a caller should pass.
    """

    num_samples: int | None = None
    shuffle: bool | None = None
    num_shards: int | None = None
    shard_id: int | None = None
    num_parallel_workers: int | None = None
    sampler: Any = None


def source_order(total: int, owner: str, reading: Reading) -> RowOrder:
    """Check a source's reading arguments and return its `RowOrder` (shuffle None means True).

    Raises:
        TypeError, ValueError: As `check_shard`, or for a bad `num_samples`
            or `shuffle`.
        TypeError: If `sampler` is not a cadence sampler.
        ValueError: If `sampler` comes with `shuffle`, `num_samples` or shards.

    `num_parallel_workers` must be None or an int >= 1; it changes nothing.
    """
    num_samples, shuffle, num_shards, shard_id, num_parallel_workers, sampler = reading
    # Checked, then unused: sources read on the calling thread.
    if num_parallel_workers is not None:
        check_int(num_parallel_workers, "num_parallel_workers", owner, minimum=1)
    if sampler is not None:
        return _sampler_order(
            total, owner, sampler, num_samples, shuffle, num_shards, shard_id
        )
    samples = (
        None
        if num_samples is None
        else check_int(num_samples, "num_samples", owner, minimum=1)
    )
    shuffled = check_optional_bool(shuffle, "shuffle", owner)
    return RowOrder(
        total, samples, shuffled is not False, check_shard(num_shards, shard_id, owner)
    )


def _sampler_order(
    total: int,
    owner: str,
    sampler: Any,
    num_samples: Any,
    shuffle: Any,
    num_shards: Any,
    shard_id: Any,
) -> RowOrder:
    if not isinstance(sampler, Sampler):
        raise TypeError(
            f"For '{owner}', the argument 'sampler' must be a sampler of cadence.dataset (DistributedSampler, "
            f"RandomSampler, SequentialSampler, SubsetSampler, SubsetRandomSampler, WeightedRandomSampler), but got {sampler!r} of type {type(sampler).__name__!r}."
        )
    given = {
        "shuffle": shuffle,
        "num_samples": num_samples,
        "num_shards": num_shards,
        "shard_id": shard_id,
    }
    conflicting = {k: v for k, v in given.items() if v is not None}
    if conflicting:
        raise ValueError(
            f"For '{owner}', 'sampler' decides the order, the number of rows and the shard, so "
            f"{sorted(conflicting)} must be None when it is given, but got {conflicting}."
        )
    if isinstance(sampler, IndexSampler):
        return SampledOrder(total, sampler, owner)
    shard = (
        None
        if sampler.num_shards is None or sampler.shard_id is None
        else Shard(sampler.num_shards, sampler.shard_id)
    )
    return RowOrder(
        total, sampler.num_samples, sampler.shuffle, shard, sampler.start_index
    )
