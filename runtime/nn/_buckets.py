"""Bucketed gradient reduction that overlaps the backward pass.

`backward(..., on_ready=...)` reports each parameter's gradient as soon as it is
final. The gradients are grouped into buckets of about `bucket_bytes` in
reverse parameter order (the order backward produces them); when a bucket is
complete, a communication thread all-reduces it while the training thread goes
on with the rest of backward. The numba kernels and mpi4py both release the
GIL, so the two really run at the same time. `finish()` waits for the buckets
still in flight: only that wait is exposed; the rest of the communication
hides behind compute. `ReductionStats` counts both, for the benchmark.

The sums are element-wise over the ranks in the same order whatever the
bucketing, so the result is identical to one fused allreduce.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..communication._world import World

__all__ = ["DEFAULT_BUCKET_BYTES", "ONE_BUCKET", "BucketPlan", "ReductionStats"]

Array = np.ndarray[Any, Any]

DEFAULT_BUCKET_BYTES: Final = 1 << 20
ONE_BUCKET: Final = 1 << 62
"""A bucket size no model reaches: every gradient in one bucket, reduced when backward ends."""


@dataclass
class ReductionStats:
    """Where the gradient reduction's time went, summed over steps (seconds)."""

    steps: int = 0
    buckets: int = 0
    allreduce_s: float = 0.0
    """Time the communication thread spent inside allreduce."""
    exposed_s: float = 0.0
    """Time the training thread waited for reductions after backward ended."""
    barrier_s: float = 0.0
    """Of `exposed_s`, the shared window's barriers: waiting for the slowest rank of the machine."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def hidden_fraction(self) -> float:
        """Share of the allreduce time that overlapped the backward pass (0 to 1)."""
        if self.allreduce_s <= 0:
            return 0.0
        return max(0.0, 1.0 - self.exposed_s / self.allreduce_s)

    def reset(self) -> None:
        """Start counting afresh."""
        with self.lock:
            self.steps = self.buckets = 0
            self.allreduce_s = self.exposed_s = self.barrier_s = 0.0


class _Bucket:
    __slots__ = ("buffer", "done", "indices", "missing", "offsets", "started")

    def __init__(
        self,
        indices: list[int],
        shapes: Sequence[tuple[int, ...]],
        dtype: np.dtype[Any],
    ) -> None:
        self.indices = indices
        sizes = [int(np.prod(shapes[i])) for i in indices]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()
        self.buffer: Array = np.zeros(self.offsets[-1], dtype)
        self.done = threading.Event()
        self.missing: set[int] = set()
        self.started = False


class _CommThread:
    """One thread that runs the bucket allreduces in submission order."""

    def __init__(
        self, world: World, mean_divisor: float | None, stats: ReductionStats
    ) -> None:
        self._world = world
        self._divisor = mean_divisor
        self._stats = stats
        self._jobs: queue.SimpleQueue[_Bucket | None] = queue.SimpleQueue()
        self._thread = threading.Thread(
            target=self._run, name="cadence-grad-allreduce", daemon=True
        )
        self._thread.start()

    def submit(self, bucket: _Bucket) -> None:
        self._jobs.put(bucket)

    def _run(self) -> None:
        world = self._world
        while (bucket := self._jobs.get()) is not None:
            start = time.perf_counter()
            with world.watchdog.guard("gradient AllReduce"):
                world.comm.Allreduce(
                    world.mpi.IN_PLACE, bucket.buffer, op=world.mpi.SUM
                )
            if self._divisor is not None:
                bucket.buffer /= bucket.buffer.dtype.type(self._divisor)
            elapsed = time.perf_counter() - start
            with self._stats.lock:
                self._stats.allreduce_s += elapsed
                self._stats.buckets += 1
            bucket.done.set()


class BucketPlan:
    """The buckets of one parameter list, and the reduction of one step at a time."""

    def __init__(
        self,
        world: World,
        shapes: Sequence[tuple[int, ...]],
        dtypes: Sequence[np.dtype[Any]],
        mean_divisor: float | None,
        bucket_bytes: int,
        stats: ReductionStats,
    ) -> None:
        self._world = world
        self._shapes = list(shapes)
        self._buckets: list[_Bucket] = []
        self._where: list[tuple[_Bucket, int]] = [None] * len(shapes)  # type: ignore[list-item]
        current: list[int] = []
        size = 0
        dtype: np.dtype[Any] | None = None
        # Reverse order: backward finishes the last layers' gradients first.
        for i in reversed(range(len(shapes))):
            nbytes = int(np.prod(shapes[i])) * dtypes[i].itemsize
            if current and (dtypes[i] != dtype or size + nbytes > bucket_bytes):
                self._add(current, dtype)
                current, size = [], 0
            current.append(i)
            size += nbytes
            dtype = dtypes[i]
        if current:
            self._add(current, dtype)
        self._stats = stats
        self._comm = _CommThread(world, mean_divisor, stats)

    def _add(self, indices: list[int], dtype: np.dtype[Any] | None) -> None:
        assert dtype is not None
        bucket = _Bucket(indices, self._shapes, dtype)
        for slot, i in enumerate(indices):
            self._where[i] = (bucket, slot)
        self._buckets.append(bucket)

    @property
    def bucket_count(self) -> int:
        """The number of buckets."""
        return len(self._buckets)

    can_step: Final = False
    """Buckets hand back gradients only: the optimizer applies every step (see `WindowPlan.can_step`)."""

    def describe(self) -> str:
        """Return how gradients travel, for `DistributedGradReducer.reduction`."""
        return "allreduce buckets"

    def begin(self) -> None:
        """Prepare for one step's gradients."""
        for b in self._buckets:
            b.done.clear()
            b.started = False
            b.missing = set(b.indices)

    def destinations(self) -> list[Array | None]:
        """None for every gradient: the buckets take copies (their layout is not the parameters')."""
        return []

    def ready(self, i: int, grad: Array) -> None:
        """Copy gradient `i` into its bucket; start the bucket's allreduce when it is complete."""
        bucket, slot = self._where[i]
        bucket.buffer[bucket.offsets[slot] : bucket.offsets[slot + 1]] = grad.ravel()
        bucket.missing.discard(i)
        if not bucket.missing and not bucket.started:
            bucket.started = True
            self._comm.submit(bucket)

    def finish(self, grads: Sequence[Array]) -> list[Array]:
        """Reduce what backward did not report, wait for every bucket, return the reduced gradients.

        The arrays returned are views of the buckets: valid until the next step.
        """
        for bucket in self._buckets:
            if not bucket.started:
                for i in list(bucket.missing):
                    self.ready(i, np.asarray(grads[i]))
        start = time.perf_counter()
        limit = (
            self._world.timeout + 5.0
        )  # the watchdog aborts first; this only bounds the wait
        for bucket in self._buckets:
            if not bucket.done.wait(limit):
                raise RuntimeError(
                    f"cadence: the gradient allreduce did not finish within {limit:g} s on {self._world.describe()}."
                )
        with self._stats.lock:
            self._stats.exposed_s += time.perf_counter() - start
            self._stats.steps += 1
        out: list[Array] = [np.empty(0)] * len(self._shapes)
        for bucket in self._buckets:
            for slot, i in enumerate(bucket.indices):
                out[i] = bucket.buffer[
                    bucket.offsets[slot] : bucket.offsets[slot + 1]
                ].reshape(self._shapes[i])
        return out
