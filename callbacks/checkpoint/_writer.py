"""The background side of checkpointing: parameter snapshots and one writer thread per callback.

The training thread captures the checkpoint (a `CheckpointSnapshot`: one copy
of the parameters' bytes into memory the writer keeps mapped from one save to
the next) and hands the rest — the write, fsync, rename, hashing, the `latest`
pointer — to a single writer thread, so files are committed in the order they
were asked for.
Errors raised there are kept and re-raised in the training thread at the next
hook, or when the writer is drained.
"""

from __future__ import annotations

import collections
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import CheckpointSnapshot

if TYPE_CHECKING:
    from collections.abc import Callable

    from cadence import CheckpointSaved

__all__ = ["CheckpointWriter", "snapshot_parameters"]


def snapshot_parameters(network: Any) -> dict[str, Any]:
    """Return `{name: copy of the array}` for every parameter of `network`, in save order."""
    entries: dict[str, Any] = {}
    for name, param in network.parameters_and_names():
        data = param.asnumpy() if hasattr(param, "asnumpy") else param
        entries[getattr(param, "name", None) or name] = np.array(data, copy=True)
    return entries


class CheckpointWriter:
    """Runs checkpoint jobs one at a time, in order, in a thread; collects events and errors.

    Args:
        max_pending: How many jobs may wait or run at once; `submit` blocks while
            that many are pending (each holds a parameter snapshot in memory).
    """

    def __init__(self, max_pending: int = 2) -> None:
        self._max_pending = max_pending
        self._executor: ThreadPoolExecutor | None = None
        self._pending: collections.deque[Future[None]] = collections.deque()
        self._lock = threading.Lock()
        self._errors: list[BaseException] = []
        # Events of committed files, published by the training thread (see `take_events`).
        self._events: collections.deque[CheckpointSaved] = collections.deque()
        self._done_paths: dict[str, Future[None]] = {}
        # Snapshots whose file is committed, kept for the next captures (their memory is mapped).
        self._free: list[CheckpointSnapshot] = []

    def snapshot(self) -> CheckpointSnapshot:
        """Return a snapshot to capture the next file into: a free one if any, else a new one."""
        with self._lock:
            return self._free.pop() if self._free else CheckpointSnapshot()

    def release(self, snapshot: CheckpointSnapshot) -> None:
        """Take back a snapshot whose file is written (or abandoned), for a later capture."""
        with self._lock:
            if len(self._free) <= self._max_pending:
                self._free.append(snapshot)

    def submit(self, job: Callable[[], None], *, path: str | None = None) -> None:
        """Queue `job`; block while `max_pending` jobs are pending. `path` names the file it commits."""
        while len(self._pending) >= self._max_pending:
            self._wait(self._pending.popleft())
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="cadence-checkpoint"
            )
        future = self._executor.submit(self._guard, job)
        self._pending.append(future)
        if path is not None:
            self._done_paths[path] = future

    def _guard(self, job: Callable[[], None]) -> None:
        try:
            job()
        except BaseException as exc:
            with self._lock:
                self._errors.append(exc)

    @staticmethod
    def _wait(future: Future[None]) -> None:
        future.result()  # _guard never raises: errors are kept in `_errors`

    def wait_for(self, path: str) -> None:
        """Block until the job that commits `path` (if any) has finished."""
        future = self._done_paths.get(path)
        if future is not None:
            self._wait(future)

    def drain(self) -> None:
        """Wait for every pending job, then raise the first error any job raised (others as notes)."""
        while self._pending:
            self._wait(self._pending.popleft())
        self._done_paths.clear()
        self.raise_errors()

    def raise_errors(self) -> None:
        """Raise the first error a job raised since the last call, if any."""
        with self._lock:
            errors, self._errors = self._errors, []
        if errors:
            first = errors[0]
            for other in errors[1:]:
                first.add_note(
                    f"cadence: another checkpoint write also failed: {type(other).__name__}: {other}"
                )
            raise first

    def add_event(self, event: CheckpointSaved) -> None:
        """Record a committed file's event (called from the writer thread)."""
        self._events.append(event)

    @property
    def has_events(self) -> bool:
        """Whether `take_events` would return any (a cheap check for every step)."""
        return bool(self._events)

    def take_events(self) -> list[CheckpointSaved]:
        """Remove and return the events recorded so far, oldest first."""
        taken = []
        while self._events:
            taken.append(self._events.popleft())
        return taken

    def close(self) -> None:
        """Drain (raising job errors), stop the thread and free the snapshots; a later `submit` starts anew."""
        try:
            self.drain()
        finally:
            executor, self._executor = self._executor, None
            if executor is not None:
                executor.shutdown(wait=True)
            with self._lock:
                self._free.clear()
