"""Collective decisions: a stop requested on any rank stops every rank at the same step boundary.

The stop vote also carries a barrier a training step may owe: with the weights
kept once per machine (`nn/_shared_weights.py`), every rank's share must be
written before any rank reads the weights again. When nothing reads them
between the step and the loop's vote (no `TrainStepEnd` listener), the loop
lets the step leave that barrier to the vote (`deferring_sync`): the vote's
allreduce synchronises the ranks anyway, between two memory fences of the
window. A step that finds the barrier still owed (no vote came) makes it first.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from ._world import current

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = [
    "any_rank",
    "deferring_sync",
    "owe_sync",
    "settle_owed_sync",
    "sync_deferrable",
]


class _Owed(threading.local):
    allowed = False
    fence: Callable[[], None] | None = None
    """Orders this rank's stores before, and the others' after, a synchronisation."""
    barrier: Callable[[], None] | None = None
    """The whole synchronisation, for a step that finds it still owed."""


_owed = _Owed()


@contextmanager
def deferring_sync(allowed: bool) -> Iterator[None]:
    """Let a step inside the block leave its last barrier to the next `any_rank` (this thread)."""
    _owed.allowed = allowed
    try:
        yield
    finally:
        _owed.allowed = False


def sync_deferrable() -> bool:
    """Whether this rank's caller lets the step leave its last barrier to the vote.

    Ranks may differ (a listener on rank 0 only): they agree before deferring.
    """
    return _owed.allowed


def owe_sync(fence: Callable[[], None], barrier: Callable[[], None]) -> None:
    """Leave a barrier to the next vote (every rank agreed to)."""
    _owed.fence, _owed.barrier = fence, barrier


def settle_owed_sync() -> None:
    """Make the barrier a step left to a vote that did not come (before reading what it guards)."""
    barrier = _owed.barrier
    if barrier is not None:
        _owed.fence = _owed.barrier = None
        barrier()


def any_rank(flag: bool, where: str) -> bool:
    """Return whether `flag` is True on any rank (the flag itself when not in a multi-rank job).

    Every rank must call this at the same points, as with any collective.
    """
    world = current()
    if world is None or world.size == 1:
        return flag
    fence = _owed.fence
    _owed.fence = _owed.barrier = None
    if fence is not None:
        fence()
    vote = np.array([1 if flag else 0], np.int64)
    with world.watchdog.guard(where):
        world.comm.Allreduce(world.mpi.IN_PLACE, vote, op=world.mpi.MAX)
    if fence is not None:
        fence()
    return bool(vote[0])
