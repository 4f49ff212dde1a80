"""`WorkerPool`: where a bus's worker subscribers run, draining them, and their failures."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import weakref
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from .._errors import DrainTimeoutError, SubscriberError
from ._workers import LoopHost, PortalHost, WorkerQueue

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Iterable

    from ._subscription import Overflow, Subscription

__all__ = ["WorkerPool"]

# How long workers may finish queued events after the block or run they serve failed.
ABORT_DRAIN_S = 30.0
# While a drain waits, it says every this many seconds who holds it up.
REPORT_EVERY_S = 5.0
_LOG = logging.getLogger("cadence.bus")


class WorkerPool:
    """The worker queues of one bus and the event loop (host) their tasks run on.

    Args:
        backend: anyio backend of the private loop started for synchronous programs.
        poll_interval: How long an active worker may take to notice a new event.
        queues: Returns the current worker queues (the bus's subscriptions own them).
    """

    def __init__(
        self,
        backend: str,
        poll_interval: float,
        queues: Callable[[], list[WorkerQueue]],
    ) -> None:
        self.backend = backend
        self.poll_interval = poll_interval
        self._subscribed = queues
        # Every queue this pool made: a removed subscription's task may still be
        # finishing its queue, and draining or stopping must include it.
        self._made: weakref.WeakSet[WorkerQueue] = weakref.WeakSet()
        self._lock = threading.RLock()
        self.host: LoopHost | PortalHost | None = None
        self.owns_host = False
        # Worker failures not raised yet, with the queue that failed.
        self.errors: list[tuple[WorkerQueue, SubscriberError]] = []
        self._idle = threading.Condition(threading.Lock())

    def _queues(self) -> list[WorkerQueue]:
        """The subscribed queues, plus removed ones whose task still runs."""
        queues = self._subscribed()
        queues.extend(q for q in list(self._made) if q.running and q not in queues)
        return queues

    def new_queue(
        self,
        sub: Subscription[Any],
        maxsize: int,
        overflow: Overflow,
        block_timeout: float | None,
    ) -> WorkerQueue:
        """Create the queue of a new worker subscription; start its task if a loop is running."""
        queue = WorkerQueue(
            sub,
            maxsize,
            overflow,
            block_timeout,
            self.report_error,
            self._notify_idle,
            self.poll_interval,
        )
        self._made.add(queue)
        with self._lock:
            if self.host is not None:
                queue.host = self.host
                self.host.spawn(queue)
        return queue

    def putter(self, queue: WorkerQueue) -> Callable[[Any], None]:
        """Return the publish-side function handing an event to `queue` (starting a loop if needed)."""

        def put(event: Any) -> None:
            if self.host is None:
                self.start_portal()
            queue.put(event)

        return put

    # --- hosts -----------------------------------------------------------------------

    def start_portal(self) -> None:
        """Start the private background loop (synchronous programs), unless a loop runs already."""
        with self._lock:
            if self.host is None:
                self.attach(PortalHost(self.backend), owned=True)

    def attach(self, host: LoopHost | PortalHost, *, owned: bool) -> None:
        """Run every worker queue's task on `host` from now on."""
        with self._lock:
            self.host = host
            self.owns_host = owned
            for queue in self._subscribed():
                queue.closing = False
                queue.host = host
                host.spawn(queue)

    def detach(self, *, force: bool = False) -> None:
        """Let worker tasks end (after their queues empty; at once with `force`) and stop the host."""
        with self._lock:
            host = self.host
            queues = self._queues()
        for queue in queues:
            queue.closing = True
            queue.wake()
            if force:
                queue.cancel()
        with self._lock:
            self.host = None
        if host is not None:
            host.stop()
        for queue in queues:
            queue.host = None

    @asynccontextmanager
    async def serve(self) -> AsyncIterator[None]:
        """Run the worker tasks on the current event loop inside the block; see `EventBus.serve`."""
        if self.host is not None and not self.owns_host:
            raise RuntimeError(
                "This EventBus is already served by an event loop; `serve()` cannot be nested."
            )
        if self.host is not None:
            await anyio.to_thread.run_sync(self.close)
        try:
            async with anyio.create_task_group() as tg:
                self.attach(LoopHost(tg), owned=False)
                clean = False
                try:
                    yield
                    clean = True
                    await self.drain()
                finally:
                    if (
                        not clean
                    ):  # the block raised: give workers a bounded chance to finish
                        with (
                            anyio.CancelScope(shield=True),
                            anyio.move_on_after(ABORT_DRAIN_S),
                        ):
                            await anyio.to_thread.run_sync(
                                self._quiet_drain, abandon_on_cancel=True
                            )
                    self.detach(force=not clean)
        except BaseExceptionGroup as group:
            # Worker tasks never raise (they report to the pool), so a group holds
            # what the block itself raised: hand that back unwrapped.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise

    def close(self, *, timeout: float | None = None) -> None:
        """Drain and stop the private loop, if one runs; raise worker failures."""
        if self.host is None:
            self.raise_errors()
            return
        if not self.owns_host:
            raise RuntimeError(
                "This EventBus is served by `serve()`; it stops when that block ends."
            )
        try:
            self.drain_sync(timeout=timeout)
        except DrainTimeoutError:
            self.detach(force=True)
            raise
        except BaseException:
            self.detach()
            raise
        self.detach()

    # --- draining ---------------------------------------------------------------------

    def drain_sync(
        self, *, timeout: float | None = None, only: Iterable[WorkerQueue] | None = None
    ) -> None:
        """Block until the queues (`only`, else all) are handled, then raise their failures."""
        host = self.host
        if host is not None and threading.get_ident() == host.thread_id:
            raise RuntimeError(
                "`drain_sync()` would deadlock on the worker event loop's thread; use `await bus.drain()`."
            )
        queues = list(only) if only is not None else self._queues()
        if host is not None:
            for queue in queues:
                queue.wake()
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        report_at = start + REPORT_EVERY_S
        with self._idle:
            while True:
                busy = [q for q in queues if q.unfinished and q.host is not None]
                if not busy:
                    break
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    pending = {q.sub.name: q.unfinished for q in busy}
                    raise DrainTimeoutError(
                        f"Worker subscribers did not finish within {timeout} s; still queued: {pending}.",
                        pending,
                    )
                if now >= report_at:
                    _report_waiting(busy, now - start, timeout)
                    report_at = now + REPORT_EVERY_S
                until = report_at if deadline is None else min(report_at, deadline)
                self._idle.wait(max(until - now, 0.0))
        self.raise_errors(only=None if only is None else queues)

    async def drain(
        self, *, timeout: float | None = None, only: Iterable[WorkerQueue] | None = None
    ) -> None:
        """`drain_sync` without blocking the event loop."""
        await anyio.to_thread.run_sync(
            lambda: self.drain_sync(timeout=timeout, only=only)
        )

    def _quiet_drain(self) -> None:
        with contextlib.suppress(
            Exception
        ):  # the caller's own error path reports the failure
            self.drain_sync(timeout=ABORT_DRAIN_S)

    def _notify_idle(self) -> None:
        with self._idle:
            self._idle.notify_all()

    # --- failures ---------------------------------------------------------------------

    def report_error(self, queue: WorkerQueue, error: SubscriberError) -> None:
        """Keep a worker failure until the publisher raises it (thread-safe)."""
        with self._lock:
            self.errors.append((queue, error))

    def raise_errors(self, only: Iterable[WorkerQueue] | None = None) -> None:
        """Raise the kept failures (of the queues `only`, else all): one as itself, several as an ExceptionGroup.

        Failures of other queues stay kept for a later call.
        """
        if not self.errors:
            return
        with self._lock:
            if only is None:
                taken, self.errors = self.errors, []
            else:
                chosen = set(map(id, only))
                taken = [e for e in self.errors if id(e[0]) in chosen]
                self.errors = [e for e in self.errors if id(e[0]) not in chosen]
        errors = [error for _, error in taken]
        if not errors:
            return
        if len(errors) == 1:
            raise errors[0]
        raise ExceptionGroup(f"{len(errors)} worker subscriber failures", errors)


def _report_waiting(
    busy: list[WorkerQueue], waited: float, timeout: float | None
) -> None:
    """Log which worker subscribers a drain still waits for, and how many events each has queued."""
    holders = ", ".join(f"{q.sub.name!r} ({q.unfinished} queued)" for q in busy)
    bound = "no drain_timeout" if timeout is None else f"drain_timeout {timeout:g} s"
    _LOG.warning(
        "cadence: waiting for worker subscriber%s %s for %.0f s (%s)",
        "s" if len(busy) > 1 else "",
        holders,
        waited,
        bound,
    )
