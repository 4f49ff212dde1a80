"""Gradient reduction through the machine's shared window (see `communication/_node_window.py`).

The same three calls as `BucketPlan` (`begin`, `ready` from backward,
`finish`), with a different cost: each gradient is copied once, as backward
reports it, into this rank's row of the window; `finish` sums the rows (the
mean's division in the same pass) and returns views of the result row.
Nothing runs during backward, so nothing competes with it for the core: with
one core per rank this beats reducing during backward, and the sum costs a
fraction of an `MPI_Allreduce` (docs/distributed.md, "How gradients travel").
With plain SGD on one machine, `finish_stepping` steps the parameters the
ranks keep once per machine, each rank its share (`_shared_weights.py`).
"""

from __future__ import annotations

import time
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from cadence.kernels import _numba_cache, _scalar

from ..communication._collectives import host_array
from ..communication._node_window import (
    SHARED_WEIGHTS_ENV,
    NodeWindow,
    env_flag,
    sum_columns,
)
from ..communication._vote import owe_sync, sync_deferrable
from ._shared_weights import ATTACHED, ELIGIBLE, SharedWeights, make_private

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..communication._world import World
    from ._buckets import ReductionStats

__all__ = ["WindowPlan"]

Array = np.ndarray[Any, Any]


_CACHE = _numba_cache.install(__file__, _scalar.__file__)
_sgd_step: Any = numba.njit(_scalar.sgd_step)


@numba.njit(nogil=True, cache=_CACHE, error_model="numpy")
def _step_from_rows(
    rows: Array, lo: int, param: Array, divisor: Any, lr: float, wd: float
) -> None:
    """Plain SGD on `param` from the mean of `rows[:, lo:lo + param.size]`, in one pass.

    The same arithmetic as the reduction followed by `sgd_update` (the mean is
    rounded to the rows' dtype first), without writing the mean anywhere.
    """
    n = param.size
    x = rows[0, lo : lo + n]
    if rows.shape[0] == 2:
        y = rows[1, lo : lo + n]
        for j in range(n):
            g = (x[j] + y[j]) / divisor
            param[j] = _sgd_step(param[j], g, 0.0, 0.0, lr, 0.0, 0.0, wd, False)[0]
        return
    for j in range(n):
        g = x[j]
        for r in range(1, rows.shape[0]):
            g += rows[r, lo + j]
        g = g / divisor
        param[j] = _sgd_step(param[j], g, 0.0, 0.0, lr, 0.0, 0.0, wd, False)[0]


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
        # One vote byte per parameter per rank: whether it is stepped in the shared weights row.
        # (And one: whether this rank lets the step's last barrier wait for the stop vote.)
        self._window = NodeWindow(world, offsets[-1], dtype, flags=len(shapes) + 1)
        self._world = world
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
        # The same rows shaped as the parameters: the destinations backward may write into.
        self._shaped = [
            [r.reshape(shape) for r, shape in zip(rows, shapes, strict=True)]
            for rows in self._rows
        ]
        self._offsets = offsets
        # Read once; ranks that disagree agree on the least (their own copies): see the votes.
        self._share_weights = env_flag(SHARED_WEIGHTS_ENV, True)
        self._shared = (
            SharedWeights(self._window, offsets, shapes)
            if self._window.weights is not None
            else None
        )
        self._reported = [False] * len(shapes)
        self.copies_skipped = 0
        """Gradients backward wrote straight into the row (no copy in `ready`): for tests and benchmarks."""

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

    def destinations(self) -> list[Array]:
        """This step's row, one view per parameter: where backward may write the gradients itself."""
        return self._shaped[self._window.current]

    def ready(self, i: int, grad: Any) -> None:
        """Copy gradient `i` into this rank's row, unless backward wrote it there."""
        row = self._shaped[self._window.current][i]
        if grad is row:
            self.copies_skipped += 1
        else:
            row[...] = host_array(grad).reshape(row.shape)
        self._reported[i] = True

    @property
    def can_step(self) -> bool:
        """Whether `finish_stepping` may apply SGD steps (every rank reads every row here)."""
        return self._window.all_read

    def _copy_unreported(self, grads: Sequence[Any]) -> None:
        for i, done in enumerate(self._reported):
            if not done:
                self.ready(i, grads[i])

    def finish(self, grads: Sequence[Any]) -> list[Array]:
        """Copy what backward did not report, reduce, return the reduced gradients.

        The arrays returned are views of the window's result row: valid until
        the next step's reduction.
        """
        self._copy_unreported(grads)
        shared = self._shared
        if shared is not None:
            shared.vote((), None)  # the optimizer updates every parameter
        start = time.perf_counter()
        self._window.reduce(self._divisor)
        if shared is not None:  # every rank voted so: nobody writes the row this step
            shared.detach_all()
        self._count(time.perf_counter() - start)
        return list(self._views)

    def finish_stepping(
        self,
        grads: Sequence[Any],
        params: Sequence[Any],
        steps: dict[int, tuple[float, float]],
    ) -> list[Array | None]:
        """`finish`, applying plain SGD to each parameter in `steps` (by id) from the summed rows.

        The optimizer's pass disappears: the mean gradient is never written,
        each weight is updated as its columns are summed. Returns None for the
        stepped parameters (the optimizer skips them), the reduced gradient for
        the others. Only where `can_step`.
        """
        self._copy_unreported(grads)
        shared = self._shared
        assert shared is not None, "only the all-read layout steps (see can_step)"
        shared.vote(params, steps if self._share_weights else None, sync_deferrable())
        start = time.perf_counter()
        rows = self._window.arrived()
        waited = time.perf_counter() - start
        decided, deferred = shared.decide()
        dtype = self._window.result.dtype
        divisor = dtype.type(1.0 if self._divisor is None else self._divisor)
        out: list[Array | None] = []
        attaching: list[int] = []
        for i, p in enumerate(params):
            rate = steps.get(id(p))
            if decided[i] == ATTACHED and rate is not None:
                shared.step_share(rows, i, divisor, rate, _step_from_rows)
                out.append(None)
                continue
            make_private((p,))  # from this row or another cell's
            if decided[i] == ELIGIBLE:
                attaching.append(i)
            out.append(self._step_own_copy(rows, i, p, rate, divisor))
        if attaching or ATTACHED in decided:
            if attaching or not deferred:
                waited += self._publish(shared, attaching, params)
            else:  # the loop's stop vote is the barrier (communication/_vote.py)
                owe_sync(self._window.fence, self._settle)
        self._count(time.perf_counter() - start, waited)
        return out

    def _step_own_copy(
        self,
        rows: Array,
        i: int,
        param: Any,
        rate: tuple[float, float] | None,
        divisor: Any,
    ) -> Array | None:
        """Step this rank's own copy of `param` from the rows, or sum its gradient for the optimizer."""
        lo, hi = self._offsets[i], self._offsets[i + 1]
        data = param._data
        if rate is None or data.dtype != divisor.dtype or not data.flags.c_contiguous:
            sum_columns(rows, lo, hi, self._window.result, divisor)
            return self._views[i]
        _step_from_rows(rows, lo, data.reshape(-1), divisor, *rate)
        return None

    def _publish(
        self, shared: SharedWeights, attaching: list[int], params: Sequence[Any]
    ) -> float:
        """End a step that wrote the shared row: every share is written before any rank reads it.

        Parameters being attached take rank 0's stepped values, between two barriers
        (no rank may still be copying its old view out). Returns the time spent waiting.
        """
        window, watchdog = self._window, self._world.watchdog
        start = time.perf_counter()
        with watchdog.guard("shared weights update"):
            window.sync()
            if attaching:
                shared.publish_leader(attaching, params)
                window.sync()
                shared.attach(attaching, params)
        return time.perf_counter() - start

    def _settle(self) -> None:
        with self._world.watchdog.guard("shared weights update"):
            self._window.sync()

    def _count(self, elapsed: float, waited: float = 0.0) -> None:
        stats = self._stats
        with stats.lock:
            stats.barrier_s += waited
            # Nothing overlaps backward: all of it is exposed.
            stats.allreduce_s += elapsed
            stats.exposed_s += elapsed
            stats.steps += 1
            stats.buckets += 1
