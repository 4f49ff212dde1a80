"""Worker delivery: bounded per-subscriber queues drained by tasks on an anyio event loop.

The publishing (training) thread only appends to a queue under a short lock. It
does not wake the event loop per event, because a cross-thread wake costs several
microseconds: a worker that has just handled something waits at most
`poll_interval` seconds for more (events arriving meanwhile are picked up then,
with no wake), and only a worker whose queue stayed empty for that long sleeps
until the publisher wakes it. So a busy worker costs the publisher nothing extra,
and an idle one costs no CPU. Drains wake every worker at once.

The loop is either the caller's own (`EventBus.serve()`, used by `train_async`)
or a private one on a background thread, started when the first event reaches a
worker subscriber in a synchronous program (`PortalHost`).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

from .._errors import QueueFullError, SubscriberError
from ._subscription import describe_event

# A publisher blocked by a full queue (overflow="block") reports every REPORT_EVERY_S
# seconds whom it waits for, and gives up with QueueFullError after the subscription's
# `block_timeout` (an option of `EventBus.subscribe`).
REPORT_EVERY_S = 5.0
_LOG = logging.getLogger("cadence.bus")

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from anyio.abc import TaskGroup

    from ._subscription import Overflow, Subscription

__all__ = ["LoopHost", "PortalHost", "WorkerQueue", "current_call_soon"]

_RETRY_BASE_S = 0.05
_RETRY_MAX_S = 2.0


def current_call_soon() -> Callable[[Callable[[], object]], object]:
    """Return a thread-safe "run this soon on the current event loop" (asyncio or trio).

    The callback runs with the event loop's library marked as current, so it may
    use anyio (start tasks, set events) although it is not inside a task.
    """
    token = anyio.lowlevel.current_token()
    backend, native = token.backend_class, token.native_token

    def call_soon(fn: Callable[[], object]) -> None:
        backend.run_sync_soon(fn, (), native)

    return call_soon


class LoopHost:
    """Worker tasks on an event loop the caller is running (a task group of theirs)."""

    def __init__(self, task_group: TaskGroup) -> None:
        self.task_group = task_group
        self.call_soon = current_call_soon()
        self.thread_id = threading.get_ident()

    def spawn(self, queue: WorkerQueue) -> None:
        """Start `queue`'s worker task; callable from any thread."""
        queue.running = True
        if threading.get_ident() == self.thread_id:
            self.task_group.start_soon(
                queue.run, name=f"cadence worker {queue.sub.name}"
            )
        else:
            self.call_soon(lambda: self.task_group.start_soon(queue.run))

    def stop(self) -> None:
        """Nothing to stop: the caller's task group ends with its `async with` block."""


class PortalHost:
    """Worker tasks on a private event loop in a background thread."""

    def __init__(self, backend: str = "asyncio") -> None:
        self._cm: AbstractContextManager[anyio.from_thread.BlockingPortal] = (
            anyio.from_thread.start_blocking_portal(backend)
        )
        self.portal = self._cm.__enter__()
        self.call_soon = self.portal.call(current_call_soon)
        self.thread_id: int = self.portal.call(threading.get_ident)

    def spawn(self, queue: WorkerQueue) -> None:
        """Start `queue`'s worker task on the background loop."""
        queue.running = True
        self.portal.start_task_soon(queue.run, name=f"cadence worker {queue.sub.name}")

    def stop(self) -> None:
        """Cancel remaining worker tasks and join the background thread."""
        self.portal.call(self.portal.stop, True)
        self._cm.__exit__(None, None, None)


class WorkerQueue:
    """One worker subscriber's bounded FIFO and the task that drains it.

    Invariant: `unfinished` counts events queued plus the one being handled; it
    reaches 0 only when the worker has handled everything it was given.
    """

    def __init__(
        self,
        sub: Subscription[Any],
        maxsize: int,
        overflow: Overflow,
        block_timeout: float | None,
        report_error: Callable[[WorkerQueue, SubscriberError], None],
        on_idle: Callable[[], None],
        poll_interval: float,
    ) -> None:
        self.sub = sub
        self.maxsize = maxsize
        self.overflow = overflow
        self.block_timeout = block_timeout
        self._report_error = report_error
        self._on_idle = on_idle
        self._poll = poll_interval
        self._items: deque[tuple[Any, Any]] = deque()
        self._lock = threading.Lock()
        self._not_full = threading.Condition(self._lock)
        self.unfinished = 0
        self.closing = False
        self.host: LoopHost | PortalHost | None = None
        self._waiter: anyio.Event | None = None
        self._scope: anyio.CancelScope | None = None
        # Its task was started and has not ended (possibly after the subscription
        # was removed); set by the host when it spawns the task.
        self.running = False
        self._waiting = False  # the worker task waits for an event
        self._timed = False  # ... with a `poll_interval` timeout (it was just busy)
        self._busy = False  # it handled something since it last waited

    @property
    def depth(self) -> int:
        """Events queued and not yet handled."""
        return self.unfinished

    # --- publisher side (any thread) ---------------------------------------------

    def put(self, event: Any) -> None:
        """Queue `event`, applying the overflow policy when full."""
        sub = self.sub
        item = (event, sub.prepare(event) if sub.prepare is not None else event)
        with self._lock:
            if len(self._items) >= self.maxsize:
                self._overflow()
            self._items.append(item)
            self.unfinished += 1
            # A timed wait ends by itself within `poll_interval`: only an untimed one needs a wake.
            wake = self._waiting and not self._timed
            if wake:
                self._waiting = False
        if wake:
            self.wake()

    def _overflow(self) -> None:
        # Called with the lock held and the queue full.
        if self.overflow == "drop_oldest":
            self._items.popleft()
            self.unfinished -= 1
            self.sub.drops += 1
        elif self.overflow == "latest":
            dropped = len(self._items)
            self._items.clear()
            self.unfinished -= dropped
            self.sub.drops += dropped
        elif self.overflow == "error":
            raise QueueFullError(
                f"The queue of worker subscriber {self.sub.name!r} is full ({self.maxsize} events) "
                "and its overflow policy is 'error'. Raise `queue_size`, or choose overflow="
                "'block', 'drop_oldest' or 'latest'."
            )
        else:  # block
            host = self.host
            if host is not None and threading.get_ident() == host.thread_id:
                raise RuntimeError(
                    f"Publishing from the worker event loop would block forever: the queue of "
                    f"{self.sub.name!r} is full and its overflow policy is 'block'. Publish from "
                    "another thread, or use another overflow policy."
                )
            self._waiting = False
            self.wake()
            self._wait_not_full()

    def _wait_not_full(self) -> None:
        # Called with the lock held: a bounded wait, reported while it lasts.
        start = time.monotonic()
        limit = math.inf if self.block_timeout is None else self.block_timeout
        while len(self._items) >= self.maxsize:
            waited = time.monotonic() - start
            if waited >= limit:
                raise QueueFullError(
                    f"The queue of worker subscriber {self.sub.name!r} stayed full ({self.maxsize} events) "
                    f"for {limit:g} s with overflow='block': the worker is stuck or far too slow "
                    "(the limit is the subscription's block_timeout)."
                )
            signalled = self._not_full.wait(min(REPORT_EVERY_S, limit - waited))
            if not signalled and len(self._items) >= self.maxsize:
                _LOG.warning(
                    "cadence: publishing waits for worker subscriber %r (%d queued, queue full) "
                    "for %.0f s (overflow='block')",
                    self.sub.name,
                    self.unfinished,
                    time.monotonic() - start,
                )

    def wake(self) -> None:
        """Wake the worker task now if it waits (thread-safe)."""
        host = self.host
        if host is not None:
            host.call_soon(self._set_waiter)

    def _set_waiter(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            waiter.set()

    # --- worker side (the host's event loop) --------------------------------------

    async def run(self) -> None:
        """Handle queued events in order until closed.

        Shielded: cancelling the host's scope (e.g. cancelling `train_async`) lets
        the worker finish what was queued; only `cancel()` stops it early.
        """
        try:
            with anyio.CancelScope(shield=True) as scope:
                self._scope = scope
                await self._serve()
        finally:
            self.running = False

    def cancel(self) -> None:
        """Stop the worker task now, abandoning queued events (thread-safe)."""
        scope, host = self._scope, self.host
        if scope is not None and host is not None:
            host.call_soon(scope.cancel)

    async def _serve(self) -> None:
        while True:
            with self._lock:
                item = self._items.popleft() if self._items else None
                if item is not None:
                    self._not_full.notify()
                elif self.closing:
                    return
                else:
                    self._timed, self._busy = self._busy, False
                    self._waiting = True
                    self._waiter = anyio.Event()
            if item is None:
                await self._wait()
                continue
            try:
                await self._handle(*item)
            finally:
                with self._lock:
                    self.unfinished -= 1
                    idle = self.unfinished == 0
                self._busy = True
                if idle:
                    self._on_idle()

    async def _wait(self) -> None:
        waiter = self._waiter
        assert waiter is not None
        if self._timed:
            with anyio.move_on_after(self._poll):
                await waiter.wait()
        else:
            await waiter.wait()
        with self._lock:
            self._waiting = False
            self._waiter = None

    async def _handle(self, event: Any, payload: Any) -> None:
        sub = self.sub
        arg = sub.arg if sub.arg is not None else payload
        attempt = 0
        while True:
            start = time.perf_counter_ns()
            try:
                if sub.is_async:
                    await sub.handler(arg)
                else:
                    await anyio.to_thread.run_sync(
                        sub.handler, arg, abandon_on_cancel=True
                    )
            except Exception as exc:
                if attempt < sub.retries:
                    attempt += 1
                    await anyio.sleep(
                        min(_RETRY_BASE_S * 2 ** (attempt - 1), _RETRY_MAX_S)
                    )
                    continue
                self._failed(event, exc, attempt)
                return
            finally:
                elapsed = time.perf_counter_ns() - start
                sub.calls += 1
                sub.total_time_ns += elapsed
                sub.max_time_ns = max(sub.max_time_ns, elapsed)
            return

    def _failed(self, event: Any, exc: Exception, retried: int) -> None:
        sub = self.sub
        sub.errors += 1
        sub.last_error = f"{type(exc).__name__}: {exc}"
        if sub.on_error == "isolate":
            return
        tries = f" after {retried} retries" if retried else ""
        error = SubscriberError(
            sub.name,
            event,
            f"Worker subscriber {sub.name!r} failed{tries} on {describe_event(event)}: {type(exc).__name__}: {exc}",
        )
        error.__cause__ = exc
        self._report_error(self, error)
