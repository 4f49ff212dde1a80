"""Server-Sent Events: one run's history as a `text/event-stream`, resumable by event id.

Each bus event is one SSE message: `id:` its number in the run, `data:` the event
as JSON (`cadence.encode_event`, its class name in `"type"`). A client that fell
behind the kept history gets an `event: gap` message saying which ids it missed.
The stream ends after the run's terminal event; a client that reconnects after
that gets 204 No Content, which tells a browser's `EventSource` to stop.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING

import anyio
from starlette.responses import Response

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Callable

    from starlette.types import Receive, Scope, Send

    from ._records import RunRecord

__all__ = ["EventStreamResponse", "frames"]

RETRY_MS = 2000
BATCH_EVENTS = 256


async def frames(
    record: RunRecord, last_seen: int, heartbeat_s: float
) -> AsyncGenerator[bytes, None]:
    """Yield SSE messages for `record`'s events after id `last_seen`, live, until the run's last one."""
    yield b"retry: %d\n\n" % RETRY_MS
    while True:
        changed = record.changed
        # Bounded batches: a reader that stopped reading pins at most one batch in the
        # server's send buffer, not the run's whole history.
        pending = record.since(last_seen, limit=BATCH_EVENTS)
        if pending:
            # Everything that is due goes out in one write: a reader that fell behind
            # catches up in few system calls, and the event loop stays free.
            chunk = []
            first = pending[0][0]
            if first > last_seen + 1:
                chunk.append(
                    b'event: gap\ndata: {"first":%d,"last":%d}\n\n'
                    % (last_seen + 1, first - 1)
                )
            chunk.extend(b"id: %d\ndata: %s\n\n" % (seq, data) for seq, data in pending)
            last_seen = pending[-1][0]
            yield b"".join(chunk)
            continue
        if record.finished:
            return
        with anyio.move_on_after(heartbeat_s) as idle:
            await changed.wait()
        if idle.cancelled_caught:
            yield b": keep-alive\n\n"


class EventStreamResponse(Response):
    """Streams SSE messages; stops as soon as the client disconnects, even while no event is due."""

    media_type = "text/event-stream"

    def __init__(
        self,
        messages: AsyncGenerator[bytes, None],
        on_close: Callable[[], None] | None = None,
    ) -> None:
        # Not `Response.__init__`: it would declare a Content-Length for an empty body.
        self.status_code = 200
        self.background = None
        self.init_headers({"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self._messages = messages
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the response head, then each message as it comes; `on_close()` once it ended."""
        try:
            await self._stream(receive, send)
        finally:
            if self._on_close is not None:
                self._on_close()

    async def _stream(self, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(_cancel_on_disconnect, receive, tg.cancel_scope)
            try:
                async with aclosing(self._messages) as messages:
                    async for message in messages:
                        await send(
                            {
                                "type": "http.response.body",
                                "body": message,
                                "more_body": True,
                            }
                        )
                await send(
                    {"type": "http.response.body", "body": b"", "more_body": False}
                )
            except OSError:  # the client went away while we were sending
                pass
            tg.cancel_scope.cancel()


async def _cancel_on_disconnect(receive: Receive, scope: anyio.CancelScope) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    scope.cancel()
