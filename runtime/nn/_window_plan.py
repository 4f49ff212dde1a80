"""Gradient reduction through the machine's shared window (see `communication/_node_window.py`).

The same three calls as `BucketPlan` (`begin`, `ready` from backward,
`finish`), with a different cost: each gradient is copied once, as backward
reports it, into this rank's row of the window; `finish` sums the rows (the
mean's division in the same pass) and returns views of the result row.
Nothing runs during backward, so nothing competes with it for the core: with
one core per rank this beats reducing during backward, and the sum costs a
fraction of an `MPI_Allreduce` (docs/distributed.md, "How gradients travel").
"""

from __future__ import annotations

import time
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from ..communication._collectives import host_array
from ..communication._node_window import NodeWindow

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..communication._world import World
    from ._buckets import ReductionStats

__all__ = ["WindowPlan"]

Array = np.ndarray[Any, Any]


class WindowPlan:
    """One parameter list laid out end to end in the shared window; one step's reduction at a time."""

    def __init__(
        self,
        world: World,
        shapes: Sequence[tuple[int, ...]],
        dtype: np.dtype[Any],
        mean_divisor: float | None,
        stats: ReductionStats,
    ) -> None:
        sizes = [int(np.prod(s)) for s in shapes]
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()
        self._window = NodeWindow(world, offsets[-1], dtype)
        self._divisor = mean_divisor
        self._stats = stats
        result = self._window.result
        # Built once: the rows never move, so the per-step work is copies and one sum.
        self._rows = [
            [row[a:b] for a, b in pairwise(offsets)] for row in self._window.rows
        ]
        self._views = [
            result[a:b].reshape(shape)
            for a, b, shape in zip(offsets, offsets[1:], shapes, strict=False)
        ]
        self._reported = [False] * len(shapes)

    @property
    def bucket_count(self) -> int:
        """One: the whole gradient is reduced at once."""
        return 1

    def describe(self) -> str:
        """Return how gradients travel, for `DistributedGradReducer.reduction`."""
        machines = self._window.machines
        if machines <= 1:
            return "shared-memory window"
        return f"shared-memory window, then allreduce between {machines} machines"

    def shapes_match(self, arrays: Sequence[Array]) -> bool:
        """Return whether `arrays` are gradients of this plan's parameters (same count and shapes)."""
        return len(arrays) == len(self._views) and all(
            a.shape == v.shape for a, v in zip(arrays, self._views, strict=True)
        )

    def begin(self) -> None:
        """Prepare for one step's gradients."""
        self._reported = [False] * len(self._views)

    def ready(self, i: int, grad: Any) -> None:
        """Copy gradient `i` into this rank's row."""
        self._rows[self._window.current][i][:] = host_array(grad).reshape(-1)
        self._reported[i] = True

    def finish(self, grads: Sequence[Any]) -> list[Array]:
        """Copy what backward did not report, reduce, return the reduced gradients.

        The arrays returned are views of the window's result row: valid until
        the next step's reduction.
        """
        for i, done in enumerate(self._reported):
            if not done:
                self.ready(i, grads[i])
        start = time.perf_counter()
        self._window.reduce(self._divisor)
        elapsed = time.perf_counter() - start
        stats = self._stats
        with stats.lock:
            # Nothing overlaps backward: all of it is exposed.
            stats.allreduce_s += elapsed
            stats.exposed_s += elapsed
            stats.steps += 1
            stats.buckets += 1
        return list(self._views)
