"""Collective decisions: a stop requested on any rank stops every rank at the same step boundary."""

from __future__ import annotations

import numpy as np

from ._world import current

__all__ = ["any_rank"]


def any_rank(flag: bool, where: str) -> bool:
    """Return whether `flag` is True on any rank (the flag itself when not in a multi-rank job).

    Every rank must call this at the same points, as with any collective.
    """
    world = current()
    if world is None or world.size == 1:
        return flag
    vote = np.array([1 if flag else 0], np.int64)
    with world.watchdog.guard(where):
        world.comm.Allreduce(world.mpi.IN_PLACE, vote, op=world.mpi.MAX)
    return bool(vote[0])
