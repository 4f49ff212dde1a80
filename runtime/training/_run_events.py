"""`RunEvents`: one consumer's stream of a run's events, with its own bounded buffer."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, final

import anyio

from ..bus._events import Event, RunEnded

if TYPE_CHECKING:
    from types import TracebackType

    from ..bus._bus import EventBus
    from ..bus._subscription import Subscription

__all__ = ["RunEvents", "StreamEnd", "StreamSource"]

StreamEnd = Callable[[RunEnded, bool], None]
"""How a run tells a stream it ended: `end(outcome, published)` (published: the stream saw the event)."""


@dataclass(frozen=True, slots=True)
class StreamSource:
    """What a `RunEvents` stream reads from: its run's bus, and where it registers to hear the end."""

    bus: EventBus
    name: str
    """The run's name, for the subscription's name."""
    streams: set[StreamEnd]
    """The run's open streams; each registers its end function here while it is open."""
    outcome: RunEnded | None
    """The terminal event if the run has already ended, else None."""


@final
class RunEvents:
    """One consumer's stream of a run's events: an async iterator and an async context manager.

    Made by `RunHandle.events()`. Leaving `async with` (or `aclose()`) stops the
    stream early; otherwise it ends after the run's terminal event.
    """

    def __init__(
        self,
        source: StreamSource,
        event_types: type[Event] | tuple[type[Event], ...],
        queue_size: int,
    ) -> None:
        qs: Any = queue_size  # checked at run time: callers may pass anything
        if not isinstance(qs, int) or isinstance(qs, bool) or qs < 1:
            raise ValueError(
                f"For 'RunHandle.events', the argument 'queue_size' must be an int > 0, but got {queue_size!r}."
            )
        # checked by `subscribe`; RunEnded is added so the stream knows when to end
        types: tuple[Any, ...] = (
            event_types if isinstance(event_types, tuple) else (event_types,)
        )
        if not any(isinstance(t, type) and issubclass(RunEnded, t) for t in types):
            types = (*types, RunEnded)
        self._maxlen = queue_size
        self._buffer: deque[Event] = deque()
        self._own_drops = 0
        self._bus_drops = 0  # drops of the bus queue, kept after unsubscribing
        self._ended = False  # nothing more will arrive
        self._wake: anyio.Event | None = None
        self._streams = source.streams
        self._sub: Subscription[Any] | None = None
        if source.outcome is not None:  # the run has ended: just its terminal event
            self._buffer.append(source.outcome)
            self._ended = True
            return
        self._sub = source.bus.subscribe(
            types, self._deliver, mode="worker", queue_size=queue_size,
            overflow="drop_oldest", name=f"{source.name} events",
        )  # fmt: skip
        self._streams.add(self._source_ended)

    @property
    def dropped(self) -> int:
        """How many events this stream lost because its consumer fell behind."""
        sub = self._sub
        return self._own_drops + (sub.drops if sub is not None else self._bus_drops)

    async def _deliver(self, event: Event) -> None:
        # A worker handler on the run's event loop: it never waits, so the bus
        # queue in front of it stays short and the publisher never blocks.
        if len(self._buffer) >= self._maxlen:
            self._buffer.popleft()
            self._own_drops += 1
        self._buffer.append(event)
        self._notify()

    def _notify(self) -> None:
        wake, self._wake = self._wake, None
        if wake is not None:
            wake.set()

    def _source_ended(self, outcome: RunEnded, published: bool) -> None:
        if not published:
            self._buffer.append(outcome)
        self._ended = True
        self._close_subscription()
        self._notify()

    def _close_subscription(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            self._bus_drops = sub.drops
            sub.unsubscribe()
        self._streams.discard(self._source_ended)

    def __aiter__(self) -> RunEvents:
        return self

    async def __anext__(self) -> Event:
        while not self._buffer:
            if self._ended:
                raise StopAsyncIteration
            self._wake = wake = anyio.Event()
            await wake.wait()
        event = self._buffer.popleft()
        if isinstance(event, RunEnded):
            self._ended = True
            self._buffer.clear()
        return event

    async def aclose(self) -> None:
        """Stop receiving events; the stream then ends. Idempotent."""
        self._ended = True
        self._buffer.clear()
        self._close_subscription()
        self._notify()

    async def __aenter__(self) -> RunEvents:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
