"""`EventBus`: ordered inline delivery and queued worker delivery of typed events."""

from __future__ import annotations

import contextlib
import inspect
import operator
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, final

from ._events import Event
from ._statistics import BusStatistics
from ._subscription import (
    Mode,
    OnError,
    Overflow,
    Subscription,
    check_choice,
    check_event_types,
    check_handler,
    check_int,
    check_seconds,
    describe_callable,
    describe_event,
    is_async_callable,
)
from ._worker_pool import WorkerPool

if TYPE_CHECKING:
    from ._workers import WorkerQueue

__all__ = ["EventBus"]

E = TypeVar("E", bound=Event)

# One entry per subscriber: the function to call, the fixed argument to pass
# instead of the event (None: pass the event), the subscription.
_Entry = tuple[Callable[[Any], object], Any, Subscription[Any]]
# A delivery plan groups consecutive entries that take the same argument into
# segments `(argument or None, (call, call, ...))`, so delivering to a callback
# list costs one tight loop of calls, as a hand-written loop would.
_Segment = tuple[Any, tuple[Callable[[Any], object], ...]]
_Backends = Literal["asyncio", "trio"]


@final
class EventBus:
    """An in-process event bus: `publish` delivers each event to its subscribers in a fixed order.

    Inline subscribers run in the publishing thread, before `publish` returns, by
    ascending `order` and then subscription order. Worker subscribers get the
    event through their own bounded queue and handle it in a task on an event
    loop (yours inside `serve()`, else a private one on a background thread), so a
    slow one never stalls the publisher unless its queue is full and its overflow
    policy is `"block"`.

    Args:
        poll_interval: How long an active worker may take to notice a new event, in
            seconds (waking it per event would cost the publisher microseconds).
        timing: Measure every inline call's duration for `statistics()`; off by
            default because timing costs more than calling a no-op handler.
        backend: The anyio backend of the private worker loop (`"asyncio"` or `"trio"`).

    Example:
        >>> from cadence import EventBus, TrainEpochBegin
        >>> bus = EventBus()
        >>> seen = []
        >>> sub = bus.subscribe(TrainEpochBegin, lambda e: seen.append(e.epoch))
        >>> bus.publish(TrainEpochBegin(epoch=1))
        >>> seen
        [1]
    """

    def __init__(
        self,
        *,
        poll_interval: float = 0.005,
        timing: bool = False,
        backend: str = "asyncio",
    ) -> None:
        interval: Any = poll_interval  # checked at run time: callers may pass anything
        if (
            not isinstance(interval, int | float)
            or isinstance(interval, bool)
            or not interval > 0
        ):
            raise ValueError(
                f"`poll_interval` must be a positive number of seconds, got {poll_interval!r}."
            )
        check_choice("backend", backend, _Backends)
        self._poll_interval = float(poll_interval)
        self._timing = bool(timing)
        self._backend = backend
        self._lock = threading.RLock()
        # Kept sorted by (order, seq); plans are built from it front to back and
        # are never sorted at publish time.
        self._subs: list[Subscription[Any]] = []
        self._seq = 0
        # Event class -> delivery plan; rebuilt lazily after any (un)subscribe.
        self._plans: dict[type[Event], tuple[_Segment, ...]] = {}
        self._entries: dict[type[Event], tuple[_Entry, ...]] = {}
        # Bumped on every (un)subscribe, so publishers caching `wants()` know to ask again.
        self.version = 0
        self._published: dict[type[Event], int] = {}
        self._pool = WorkerPool(backend, float(poll_interval), self._worker_queues)

    # --- subscribing -----------------------------------------------------------

    def subscribe(
        self,
        event_types: type[E] | tuple[type[E], ...],
        handler: Callable[[E], object],
        *,
        order: int = 0,
        mode: Mode = "inline",
        every: int | None = None,
        when: Callable[[E], object] | None = None,
        queue_size: int = 1024,
        overflow: Overflow = "block",
        block_timeout: float | None = 600.0,
        on_error: OnError = "raise",
        retries: int = 0,
        name: str | None = None,
    ) -> Subscription[E]:
        """Call `handler(event)` for every published event of `event_types` (subclasses included).

        Args:
            event_types: An `Event` subclass or a tuple of them.
            handler: A callable taking the event. In `"worker"` mode it may be an
                `async def` function; a synchronous worker handler runs in a thread.
            order: Inline subscribers run by ascending `order`, ties in subscription order.
            mode: `"inline"` (in the publishing thread) or `"worker"` (queued, in a task).
            every: Deliver only every n-th matching event (the n-th, 2n-th, ...).
            when: Deliver only events for which `when(event)` is truthy.
            queue_size: Capacity of a worker subscriber's queue.
            overflow: What publishing does when that queue is full: `"block"` until
                there is room, `"drop_oldest"`, `"latest"` (discard all queued events,
                keep the new one), or `"error"` (raise `QueueFullError`).
            block_timeout: With `overflow="block"`, how many seconds a publisher waits
                for room before it raises `QueueFullError` (it logs every 5 s whom it
                waits for meanwhile); None waits as long as it takes.
            on_error: `"raise"`: a failure ends the run (inline: at once, the
                original exception with a note naming the subscriber; worker: as a
                `SubscriberError` at the publisher's next check or drain). `"isolate"`:
                count it, keep it in `statistics()`, go on.
            retries: How often a worker retries a failed event (with backoff) before
                it counts as failed.
            name: The name used in statistics and errors; defaults to the handler's qualified name.

        Returns:
            A `Subscription`; call `unsubscribe()` or use it in a `with` block to stop.

        Raises:
            TypeError: `event_types` is not Event classes, `handler` cannot take one
                argument, or an `async def` handler was given in inline mode.
            ValueError: A choice or number is out of range.

        Example:
            >>> from cadence import EventBus, TrainStepEnd
            >>> bus = EventBus()
            >>> sub = bus.subscribe(TrainStepEnd, print, every=100, order=-1)
        """
        options = {
            "order": order, "mode": mode, "every": every, "when": when, "queue_size": queue_size,
            "overflow": overflow, "block_timeout": block_timeout, "on_error": on_error,
            "retries": retries, "name": name,
        }  # fmt: skip
        return self._subscribe(event_types, handler, options)

    def _subscribe(
        self,
        event_types: Any,
        handler: Callable[..., object],
        options: Mapping[str, Any],
        *,
        arg: Any = None,
        prepare: Callable[[Any], Any] | None = None,
    ) -> Subscription[Any]:
        # The one implementation behind `subscribe` and `subscribe_hook`; `options` are
        # `subscribe`'s keyword arguments (its signature is their one declaration).
        # `arg`: pass this fixed object instead of the event (a hook's RunContext).
        # `prepare`: worker mode only, turns the event into the queued payload in the
        # publishing thread (a hook's snapshot).
        order, mode, every, when, queue_size, overflow, block_timeout, on_error, retries, name = (
            _read_options(options)
        )  # fmt: skip
        types = check_event_types(event_types)
        check_choice("mode", mode, Mode)
        check_handler(handler, mode)
        check_int("order", order, minimum=-(2**63))
        check_int("every", every, minimum=1, allow_none=True)
        if when is not None:
            check_handler(when, "inline")
        check_int("queue_size", queue_size, minimum=1)
        check_choice("overflow", overflow, Overflow)
        check_seconds("block_timeout", block_timeout, allow_none=True)
        check_choice("on_error", on_error, OnError)
        check_int("retries", retries, minimum=0)
        if name is not None and not isinstance(name, str):
            raise TypeError(
                f"`name` must be a str or None, got {name!r} of type {type(name).__name__!r}."
            )
        with self._lock:
            self._seq += 1
            sub: Subscription[Any] = Subscription(
                self, types, handler, name=name or describe_callable(handler), order=order,
                seq=self._seq, mode=mode, every=every, when=when, on_error=on_error,
                retries=retries, arg=arg, prepare=prepare,
            )  # fmt: skip
            sub.set_counted(self._timing, self._published)
            if mode == "worker":
                sub.queue = self._pool.new_queue(
                    sub, queue_size, overflow, block_timeout
                )
            self._insert(sub)
        return sub

    def subscribe_hook(
        self,
        event_type: type[Event],
        hook: Callable[[Any], object],
        *,
        context: Any,
        snapshot: Callable[[Any], Any],
        name: str,
        when: Callable[[Any], object] | None = None,
    ) -> Subscription[Any]:
        """Subscribe a callback hook: called with a run's context for each `event_type` event, not with the event.

        This is how `Callback` hooks join a run (runtime/training/_callback_bridge.py). A
        synchronous hook runs inline and receives `context` itself; an `async def`
        hook runs as a worker subscriber and receives `snapshot(event)`, built in
        the publishing thread so that it sees the run as it was then.

        Args:
            event_type: The event the hook answers (`TrainStepEnd` for `on_train_step_end`).
            hook: The bound hook method.
            context: What an inline hook receives (the run's `RunContext`).
            snapshot: Builds what an `async def` hook receives, from the event.
            name: The name used in statistics and errors, e.g. `"LossMonitor.on_train_step_end"`.
            when: Call the hook only for events for which `when(event)` is truthy.

        Returns:
            The `Subscription`; the run unsubscribes it when the hook's phase ends.
        """
        options = {**_SUBSCRIBE_DEFAULTS, "name": name, "when": when}
        if is_async_callable(hook):
            options["mode"] = "worker"
            return self._subscribe(event_type, hook, options, prepare=snapshot)
        return self._subscribe(event_type, hook, options, arg=context)

    def _worker_queues(self) -> list[WorkerQueue]:
        with self._lock:
            return [s.queue for s in self._subs if s.queue is not None]

    def _insert(self, sub: Subscription[Any]) -> None:
        key = (sub.order, sub.seq)
        index = len(self._subs)
        while index and (self._subs[index - 1].order, self._subs[index - 1].seq) > key:
            index -= 1
        self._subs.insert(index, sub)
        self._plans = {}
        self._entries = {}
        self.version += 1

    def unsubscribe(self, subscription: Subscription[Any]) -> None:
        """Remove `subscription`; idempotent. A worker finishes the events already queued."""
        with self._lock:
            if subscription in self._subs:
                subscription._frozen_calls = subscription.count_calls(self._published)
                self._subs.remove(subscription)
                self._plans = {}
                self._entries = {}
                self.version += 1
                queue = subscription.queue
                if queue is not None:
                    queue.closing = True
                    queue.wake()
        subscription._bus = None

    # --- publishing -------------------------------------------------------------

    def publish(self, event: Event) -> None:
        """Deliver `event` to its subscribers: inline ones now, in order; worker ones by queue.

        An inline subscriber's exception propagates from here unchanged, with a
        note naming the subscriber and the event (unless it subscribed with
        `on_error="isolate"`); later subscribers of this event are not called.
        """
        cls = event.__class__
        plan = self._plans.get(cls)
        if plan is None:
            plan = self._build_plan(cls)
        if plan:
            self._deliver(cls, plan, event)

    def _deliver(
        self,
        cls: type[Event],
        plan: tuple[_Segment, ...],
        event: Event | None,
        make: Callable[..., Event] | None = None,
        args: tuple[Any, ...] = (),
    ) -> None:
        """Call the plan's subscribers in order; `event` is None only if none of them receives it.

        A failure's note names the event, built then by `make(*args)` if it was not built.
        """
        self._published[cls] += 1
        call = None
        try:
            for arg, calls in plan:
                if arg is None:
                    arg = event
                for call in calls:
                    call(arg)
        except BaseException as exc:
            if event is None:
                assert make is not None
                event = make(*args)
            self._blame(exc, cls, call, event)
            raise

    def publish_lazy(
        self, event_type: type[Event], make: Callable[..., Event], args: tuple[Any, ...]
    ) -> None:
        """`publish(make(*args))`, without building the event when no subscriber receives it.

        Callback hooks are subscribed with the run's RunContext as their argument:
        when they are all an event has, the loop's per-step event (and the mean
        loss it carries) would be built for nobody. `make` is still called if a
        hook raises, to name the event in the error's note.
        """
        plan = self._plans.get(event_type)
        if plan is None:
            plan = self._build_plan(event_type)
        if not plan:
            return
        if any(arg is None for arg, _ in plan):  # someone receives the event itself
            self._deliver(event_type, plan, make(*args))
        else:
            self._deliver(event_type, plan, None, make, args)

    def wants(self, event_type: type[Event]) -> bool:
        """Return whether publishing an event of `event_type` would reach any subscriber.

        Publishers use it to skip building events nobody listens to.
        """
        plan = self._plans.get(event_type)
        if plan is None:
            plan = self._build_plan(event_type)
        return bool(plan)

    def _build_plan(self, cls: type[Any]) -> tuple[_Segment, ...]:
        if not issubclass(cls, Event):
            raise TypeError(
                f"Only cadence Events can be published, got an object of type {cls.__name__!r}."
            )
        with self._lock:
            entries = tuple(
                self._entry(sub)
                for sub in self._subs
                if issubclass(cls, sub.event_types)
            )
            segments: list[tuple[Any, list[Callable[[Any], object]]]] = []
            for call, arg, _ in entries:
                if segments and segments[-1][0] is arg:
                    segments[-1][1].append(call)
                else:
                    segments.append((arg, [call]))
            plan = tuple((arg, tuple(calls)) for arg, calls in segments)
            self._entries[cls] = entries
            self._plans[cls] = plan
            self._published.setdefault(cls, 0)
        return plan

    def _entry(self, sub: Subscription[Any]) -> _Entry:
        if sub.queue is not None:
            return (self._enqueuer(sub.queue), None, sub)
        if sub.counted:
            return (sub.counting_call(self._timing), None, sub)
        return (sub.handler, sub.arg, sub)

    def _enqueuer(self, queue: WorkerQueue) -> Callable[[Any], None]:
        sub = queue.sub
        every, when = sub.every, sub.when
        if every is None and when is None:
            return self._pool.putter(queue)
        seen = [0]
        put = self._pool.putter(queue)

        def filtered(event: Any) -> None:
            seen[0] += 1
            if (every is None or seen[0] % every == 0) and (
                when is None or when(event)
            ):
                put(event)

        return filtered

    def _blame(
        self, exc: BaseException, cls: type[Event], call: object, event: Event
    ) -> None:
        if isinstance(exc, KeyboardInterrupt):
            return  # Ctrl-C (or the CLI's SIGTERM) landed in the subscriber: not its failure
        entries = self._entries.get(cls, ())
        index = next((i for i, entry in enumerate(entries) if entry[0] is call), None)
        if index is None or getattr(exc, "_cadence_blamed", False):
            return
        with contextlib.suppress(
            AttributeError
        ):  # exceptions with __slots__ cannot carry the marker
            exc._cadence_blamed = True  # type: ignore[attr-defined]
        sub = entries[index][2]
        exc.add_note(
            f"cadence: raised by subscriber {sub.name!r} while handling {describe_event(event)}"
        )
        # Subscribers after the failing one were never called: keep derived counts honest.
        for _, _, later in entries[index + 1 :]:
            if not later.counted:
                later.calls -= 1

    # --- worker hosting, draining, errors (delegated to the WorkerPool) --------------

    @asynccontextmanager
    async def serve(self) -> AsyncIterator[EventBus]:
        """Run worker subscribers as tasks on the current event loop (asyncio or trio) inside the block.

        Leaving the block drains every queue, stops the worker tasks and raises
        worker failures. If the block raises, workers get a bounded time (30 s) to
        finish what was queued. A private background loop that was running is
        drained and stopped first.

        Example:
            >>> import anyio
            >>> from cadence import EventBus, TrainEpochBegin
            >>> async def main() -> list[int]:
            ...     bus, seen = EventBus(), []
            ...     async def record(e: TrainEpochBegin) -> None:
            ...         seen.append(e.epoch)
            ...     bus.subscribe(TrainEpochBegin, record, mode="worker")
            ...     async with bus.serve():
            ...         bus.publish(TrainEpochBegin(epoch=1))
            ...     return seen
            >>> anyio.run(main)
            [1]
        """
        async with self._pool.serve():
            yield self

    def start_workers(self) -> None:
        """Start the loop worker subscribers run on now, rather than at the first event one receives.

        A synchronous program's bus starts a private background loop for its
        workers when the first event for a worker is published, and stops it at
        `close()` (a run's end does that). A callback that subscribes a worker
        at the start of training calls this so the loop's start-up (about a
        millisecond, several while matrix products keep every core busy) falls
        before the first step rather than inside one. Does nothing when the loop
        runs already, including a bus served by `serve()`.

        Example:
            >>> from cadence import EventBus, TrainBegin
            >>> bus = EventBus()
            >>> sub = bus.subscribe(TrainBegin, lambda event: None, mode="worker")
            >>> bus.start_workers()
            >>> bus.close()
        """
        self._pool.start_portal()

    def close(self, *, timeout: float | None = None) -> None:
        """Drain worker queues and stop the private worker loop, if one was started.

        Raises:
            DrainTimeoutError: Events were still queued after `timeout` seconds
                (the workers are then stopped, abandoning them).
            SubscriberError: A worker subscriber failed (several: an ExceptionGroup).
        """
        self._pool.close(timeout=timeout)

    def drain_sync(
        self,
        *,
        timeout: float | None = None,
        subscriptions: Iterable[Subscription[Any]] | None = None,
    ) -> None:
        """Block until worker subscribers handled everything queued, then raise their failures.

        Args:
            timeout: Seconds to wait at most; None waits as long as needed.
            subscriptions: Wait only for these (e.g. the uploader a checkpoint
                deleter depends on); by default every worker subscriber.

        Raises:
            DrainTimeoutError: Events were still queued after `timeout` seconds;
                `pending` says how many, per subscriber.
            SubscriberError: A worker subscriber failed (several: an ExceptionGroup);
                with `subscriptions`, only their failures are raised (others are
                kept for a later drain).
            RuntimeError: Called on the worker event loop's own thread (await `drain()` there).
        """
        self._pool.drain_sync(timeout=timeout, only=_queues_of(subscriptions))

    async def drain(
        self,
        *,
        timeout: float | None = None,
        subscriptions: Iterable[Subscription[Any]] | None = None,
    ) -> None:
        """`drain_sync` without blocking the event loop: wait until worker subscribers are idle."""
        await self._pool.drain(timeout=timeout, only=_queues_of(subscriptions))

    def finish_run(self, *, timeout: float | None = None) -> None:
        """Drain workers at the end of a run; stop the private worker loop if the bus started one.

        A bus served by `serve()` keeps its loop (it belongs to the caller).
        """
        if self._pool.owns_host:
            self._pool.close(timeout=timeout)
        else:
            self._pool.drain_sync(timeout=timeout)

    @property
    def has_worker_errors(self) -> bool:
        """Whether a worker subscriber failed and the failure was not raised yet."""
        return bool(self._pool.errors)

    def raise_worker_errors(self) -> None:
        """Raise the failures worker subscribers reported since the last call, if any.

        One failure is raised as its `SubscriberError`; several as an `ExceptionGroup`.
        """
        self._pool.raise_errors()

    # --- introspection -------------------------------------------------------------

    @property
    def timing(self) -> bool:
        """Whether inline calls are timed for `statistics()`; settable."""
        return self._timing

    @timing.setter
    def timing(self, value: bool) -> None:
        with self._lock:
            self._timing = bool(value)
            for sub in self._subs:
                sub.set_counted(self._timing, self._published)
            self._plans = {}
            self._entries = {}
            self.version += 1

    @property
    def subscriptions(self) -> tuple[Subscription[Any], ...]:
        """The active subscriptions, in delivery order."""
        return tuple(self._subs)

    def describe(self, event_types: tuple[type[Event], ...] | None = None) -> str:
        """Return the delivery plan, per event type: who runs, in which order, inline or as a worker.

        Args:
            event_types: The event types to describe; by default every type some
                subscriber listens to (and their subclasses).

        Example:
            >>> from cadence import EventBus, TrainEpochBegin
            >>> bus = EventBus()
            >>> _ = bus.subscribe(TrainEpochBegin, print, name="printer")
            >>> print(bus.describe((TrainEpochBegin,)))
            TrainEpochBegin:
              1. printer  inline  order=0
        """
        from ._codec import event_types as all_event_types

        if event_types is None:
            listened = {t for s in self._subs for t in s.event_types}
            event_types = tuple(
                c for c in all_event_types() if any(issubclass(c, t) for t in listened)
            )
        lines: list[str] = []
        for cls in event_types:
            subs = [s for s in self._subs if issubclass(cls, s.event_types)]
            lines.append(
                f"{cls.__name__}:" if subs else f"{cls.__name__}: (no subscribers)"
            )
            for i, s in enumerate(subs, 1):
                extra = ""
                if s.queue is not None:
                    extra = f"  queue={s.queue.maxsize} overflow={s.queue.overflow!r}"
                if s.every is not None:
                    extra += f"  every={s.every}"
                if s.when is not None:
                    extra += "  when=..."
                if s.on_error != "raise":
                    extra += f"  on_error={s.on_error!r}"
                lines.append(f"  {i}. {s.name}  {s.mode}  order={s.order}{extra}")
        return "\n".join(lines)

    def statistics(self) -> BusStatistics:
        """Return publish counts and per-subscriber calls, times, queue depths, drops and errors."""
        with self._lock:
            published = dict(self._published)
            subs = list(self._subs)
        return BusStatistics(
            published={cls.__name__: n for cls, n in published.items() if n},
            subscribers=tuple(s.statistics(published, self._timing) for s in subs),
        )

    def __repr__(self) -> str:
        workers = sum(1 for s in self._subs if s.mode == "worker")
        return f"<EventBus: {len(self._subs)} subscribers ({workers} workers)>"


# `subscribe`'s keyword arguments and their defaults, read from its signature so that
# `subscribe_hook` starts from the same options without declaring them again.
_SUBSCRIBE_DEFAULTS: dict[str, Any] = {
    p.name: p.default
    for p in inspect.signature(EventBus.subscribe).parameters.values()
    if p.kind is inspect.Parameter.KEYWORD_ONLY
}
# The options in the order `_subscribe` unpacks them.
_read_options = operator.itemgetter(
    "order", "mode", "every", "when", "queue_size", "overflow", "block_timeout", "on_error",
    "retries", "name",
)  # fmt: skip


def _queues_of(
    subscriptions: Iterable[Subscription[Any]] | None,
) -> list[WorkerQueue] | None:
    if subscriptions is None:
        return None
    return [s.queue for s in subscriptions if s.queue is not None]
