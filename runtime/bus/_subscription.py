"""`Subscription`: the handle `EventBus.subscribe` returns, and the checks made when subscribing."""

from __future__ import annotations

import inspect
import time
import weakref
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, final, get_args

from ._events import Event
from ._statistics import SubscriberStatistics

if TYPE_CHECKING:
    from collections.abc import Callable

    from ._bus import EventBus
    from ._workers import WorkerQueue

__all__ = ["Mode", "OnError", "Overflow", "Subscription"]

E = TypeVar("E", bound=Event)
Mode = Literal["inline", "worker"]
Overflow = Literal["block", "drop_oldest", "latest", "error"]
OnError = Literal["raise", "isolate"]


@final
class Subscription(Generic[E]):
    """A handler's registration on an `EventBus`; undo it with `unsubscribe()` or a `with` block.

    Example:
        >>> from cadence import EventBus, TrainEpochBegin
        >>> bus = EventBus()
        >>> with bus.subscribe(TrainEpochBegin, print) as sub:
        ...     sub.active
        True
        >>> sub.active
        False
    """

    __slots__ = (
        "__weakref__",
        "_baseline",
        "_bus",
        "_frozen_calls",
        "arg",
        "calls",
        "counted",
        "drops",
        "errors",
        "event_types",
        "every",
        "handler",
        "is_async",
        "last_error",
        "max_time_ns",
        "mode",
        "name",
        "on_error",
        "order",
        "prepare",
        "queue",
        "retries",
        "seq",
        "total_time_ns",
        "when",
    )

    def __init__(
        self,
        bus: EventBus,
        event_types: tuple[type[E], ...],
        handler: Callable[..., Any],
        *,
        name: str,
        order: int,
        seq: int,
        mode: Mode,
        every: int | None,
        when: Callable[[E], object] | None,
        on_error: OnError,
        retries: int,
        arg: Any = None,
        prepare: Callable[[E], Any] | None = None,
    ) -> None:
        self._bus: weakref.ref[EventBus] | None = weakref.ref(bus)
        self.event_types = event_types
        self.handler = handler
        self.name = name
        # Ordering key: inline subscribers of one event run by ascending (order, seq).
        self.order = order
        self.seq = seq
        self.mode: Mode = mode
        self.every = every
        self.when = when
        self.on_error: OnError = on_error
        self.retries = retries
        self.arg = arg
        self.prepare = prepare
        self.is_async = is_async_callable(handler)
        self.queue: WorkerQueue | None = None
        # Counters. Unfiltered, untimed inline subscribers are not counted per call
        # (it would double their cost); their calls derive from the bus's publish
        # counts since `_baseline`, and are frozen into `_frozen_calls` on removal.
        self._baseline: dict[type[Event], int] | None = None  # set when added to a bus
        self._frozen_calls: int | None = None
        self.calls = 0
        self.counted = not self.derivable
        self.drops = 0
        self.errors = 0
        self.last_error: str | None = None
        self.total_time_ns = 0
        self.max_time_ns = 0

    @property
    def active(self) -> bool:
        """Whether the subscription still receives events."""
        return self._bus is not None

    @property
    def bus(self) -> EventBus | None:
        """The bus this subscription belongs to, or None once removed (or the bus is gone)."""
        return self._bus() if self._bus is not None else None

    def unsubscribe(self) -> None:
        """Stop receiving events; idempotent. Events already queued for a worker are still handled."""
        bus = self.bus
        if bus is not None:
            bus.unsubscribe(self)
        self._bus = None

    def __enter__(self) -> Subscription[E]:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.unsubscribe()

    def __repr__(self) -> str:
        types = ", ".join(t.__name__ for t in self.event_types)
        state = "" if self.active else ", inactive"
        return f"<Subscription {self.name!r} to ({types}), mode={self.mode!r}, order={self.order}{state}>"

    def counting_call(self, timing: bool) -> Callable[[Any], None]:
        """Return the inline delivery function of a filtered, isolated or timed subscriber.

        Unlike a plain handler in a delivery plan, it counts its own calls.
        """
        handler, fixed, every, when = self.handler, self.arg, self.every, self.when
        isolate = self.on_error == "isolate"
        seen = 0

        def deliver(event: Any) -> None:
            nonlocal seen
            seen += 1
            if (every is not None and seen % every) or (
                when is not None and not when(event)
            ):
                return
            start = time.perf_counter_ns() if timing else 0
            try:
                handler(event if fixed is None else fixed)
            except Exception as exc:
                if not isolate:
                    raise
                self.errors += 1
                self.last_error = f"{type(exc).__name__}: {exc}"
            finally:
                self.calls += 1
                if timing:
                    elapsed = time.perf_counter_ns() - start
                    self.total_time_ns += elapsed
                    self.max_time_ns = max(self.max_time_ns, elapsed)

        return deliver

    def statistics(
        self, published: dict[type[Event], int], timing: bool
    ) -> SubscriberStatistics:
        """Return this subscriber's counters (`published` is the bus's publish count per type)."""
        queue = self.queue
        timed = self.mode == "worker" or timing
        return SubscriberStatistics(
            name=self.name,
            mode=self.mode,
            order=self.order,
            event_types=tuple(t.__name__ for t in self.event_types),
            calls=self.count_calls(published),
            total_time_s=self.total_time_ns / 1e9 if timed else None,
            max_time_s=self.max_time_ns / 1e9 if timed else None,
            queue_depth=queue.depth if queue is not None else 0,
            drops=self.drops,
            errors=self.errors,
            last_error=self.last_error,
        )

    def count_calls(self, published: dict[type[Event], int]) -> int:
        """Return how many events this subscriber handled (or was handed, for inline ones)."""
        if self._frozen_calls is not None:
            return self._frozen_calls
        baseline = self._baseline or {}
        derived = sum(
            count - baseline.get(cls, 0)
            for cls, count in published.items()
            if issubclass(cls, self.event_types)
        )
        return self.calls if self.counted else self.calls + derived

    @property
    def derivable(self) -> bool:
        """Whether calls can be derived from publish counts (unfiltered, non-isolated inline subscribers)."""
        return (
            self.mode == "inline"
            and self.every is None
            and self.when is None
            and self.on_error == "raise"
        )

    def set_counted(self, counted: bool, published: dict[type[Event], int]) -> None:
        """Switch between counting calls one by one and deriving them, keeping the total.

        The first call (when the subscription joins a bus) starts counting from the
        bus's current publish counts, so earlier events do not count.
        """
        if self._baseline is not None:
            self.calls = self.count_calls(published)
        self._baseline = dict(published)
        self.counted = counted or not self.derivable


# --- checks made at subscribe time -----------------------------------------------


def check_event_types(event_types: object) -> tuple[type[Event], ...]:
    """Return `event_types` as a non-empty tuple of Event classes, or raise TypeError."""
    items = event_types if isinstance(event_types, tuple | list) else (event_types,)
    if not items:
        raise TypeError(
            "`event_types` must name at least one Event class, got an empty sequence."
        )
    for item in items:
        if not (isinstance(item, type) and issubclass(item, Event)):
            raise TypeError(
                "`event_types` must be an Event subclass or a tuple of them, "
                f"got {item!r} of type {type(item).__name__!r}."
            )
    return tuple(items)


# Functions whose signature already passed `check_handler` (weakly held): the
# callback bridge subscribes the same hook functions on every run.
_CHECKED: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def is_async_callable(fn: object) -> bool:
    """Return whether calling `fn` returns a coroutine (async functions and async `__call__`)."""
    call = vars(type(fn)).get(
        "__call__"
    )  # an object whose class defines `async def __call__`
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def check_handler(handler: object, mode: str, *, takes_arg: bool = True) -> None:
    """Raise TypeError unless `handler` is callable with one positional argument and fits `mode`."""
    if not callable(handler):
        raise TypeError(
            f"`handler` must be callable, got {handler!r} of type {type(handler).__name__!r}."
        )
    if is_async_callable(handler) and mode == "inline":
        raise TypeError(
            f"`handler` {describe_callable(handler)} is a coroutine function; inline handlers run in "
            "the publishing thread and must be synchronous. Subscribe it with mode='worker'."
        )
    if not takes_arg:
        return
    key = getattr(handler, "__func__", handler)
    bound = hasattr(handler, "__func__")
    try:
        if _CHECKED.get(key) is bound:
            return
    except TypeError:  # not weakly referenceable: check every time
        key = None
    try:
        sig = inspect.signature(handler)
    except (TypeError, ValueError):  # some builtins have no signature; trust them
        return
    try:
        sig.bind(object())
    except TypeError:
        raise TypeError(
            f"`handler` {describe_callable(handler)} must accept exactly one positional argument "
            f"(the event), but its signature is {sig}."
        ) from None
    if key is not None:
        _CHECKED[key] = bound


def check_choice(name: str, value: object, choices: object) -> None:
    """Raise ValueError unless `value` is one of the Literal `choices`."""
    allowed = get_args(choices)
    if value not in allowed:
        listed = ", ".join(repr(c) for c in allowed)
        raise ValueError(f"`{name}` must be one of {listed}; got {value!r}.")


def check_int(
    name: str, value: object, *, minimum: int, allow_none: bool = False
) -> None:
    """Raise TypeError/ValueError unless `value` is an int (not bool) >= `minimum`."""
    if value is None and allow_none:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(
            f"`{name}` must be an int, got {value!r} of type {type(value).__name__!r}."
        )
    if value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}, got {value!r}.")


def check_seconds(name: str, value: object, *, allow_none: bool = False) -> None:
    """Raise TypeError/ValueError unless `value` is a positive, finite number of seconds (or None if allowed)."""
    if value is None and allow_none:
        return
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError(
            f"`{name}` must be a number of seconds{' or None' if allow_none else ''}, "
            f"got {value!r} of type {type(value).__name__!r}."
        )
    if not 0 < value < float("inf"):
        raise ValueError(
            f"`{name}` must be a positive, finite number of seconds, got {value!r}."
        )


def describe_event(event: object) -> str:
    """Return `TrainStepEnd(epoch=2, step=17)`: an event's class and its counters, for messages."""
    fields = [
        f"{k}={getattr(event, k)!r}" for k in ("epoch", "step") if hasattr(event, k)
    ]
    return f"{type(event).__name__}({', '.join(fields)})"


def describe_callable(fn: object) -> str:
    """Return a readable name for a handler: `LossMonitor.on_train_step_end`, `log_loss`."""
    name = getattr(fn, "__qualname__", None) or getattr(
        type(fn), "__qualname__", repr(fn)
    )
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(owner, type):
        name = f"{type(owner).__qualname__}.{getattr(fn, '__name__', name)}"
    return str(name).replace(".<locals>", "")
