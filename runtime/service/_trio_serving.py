"""Serving the app with Hypercorn's HTTP protocol on trio, with a cap on connections held at once.

Hypercorn itself counts no connections: `hypercorn.trio.serve` accepts every one and
keeps it until its idle timer fires, so 2,000 half-open connections are 2,000 file
descriptors and tasks. Here cadence owns the accept loop (`trio.serve_listeners`) and
hands each connection to Hypercorn's per-connection server (`TCPServer`, the same class
`hypercorn.trio.serve` uses) only while fewer than `max_connections` are served;
beyond, the connection gets a 503 and is closed at once, as uvicorn's
`limit_concurrency` answers. Each accepted socket also gets the capped kernel send
buffer (`ServerLimits.send_buffer_bytes`), as on the uvicorn path.

The lifespan (start-up and shutdown of the app) runs as in Hypercorn, through its
`Lifespan` helper; shutting down stops accepting, lets connections finish within
Hypercorn's `graceful_timeout`, then ends the lifespan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ._serving import cap_send_buffer

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    import hypercorn.config
    import trio
    from starlette.types import ASGIApp

__all__ = ["ConnectionCap", "serve_trio"]

_REFUSAL_BODY: Final = (
    b'{"error":"The server holds as many connections as it allows; try again shortly."}'
)
_REFUSAL: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s"
) % (len(_REFUSAL_BODY), _REFUSAL_BODY)
# A refused connection is read for at most this long first (closing a socket with an
# unread request makes the kernel reset it, and the client would see a reset, not the
# 503), then given this long to take the answer.
_REFUSAL_READ_S: Final = 1.0
_REFUSAL_SEND_S: Final = 5.0


class ConnectionCap:
    """Serve at most `limit` connections at once with `serve`; refuse the others with a 503."""

    def __init__(
        self,
        serve: Callable[[trio.SocketStream], Awaitable[None]],
        limit: int,
        send_buffer_bytes: int,
    ) -> None:
        self._serve = serve
        self.limit = limit
        self._send_buffer_bytes = send_buffer_bytes
        self.active = 0
        self.refused = 0

    async def __call__(self, stream: trio.SocketStream) -> None:
        """Handle one accepted connection (`trio.serve_listeners` calls this in its own task)."""
        cap_send_buffer(stream.socket, self._send_buffer_bytes)  # type: ignore[arg-type]
        if self.active >= self.limit:
            self.refused += 1
            await _refuse(stream)
            return
        self.active += 1
        try:
            await self._serve(stream)
        finally:
            self.active -= 1


async def _refuse(stream: trio.SocketStream) -> None:
    import trio

    try:
        with trio.move_on_after(_REFUSAL_READ_S):
            await stream.receive_some(65536)
        with trio.move_on_after(_REFUSAL_SEND_S):
            await stream.send_all(_REFUSAL)
            await stream.send_eof()
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass
    finally:
        await trio.aclose_forcefully(stream)


async def serve_trio(
    app: ASGIApp,
    config: hypercorn.config.Config,
    limits: Any,
    shutdown: Callable[[], Awaitable[None]],
    task_status: Any = None,
) -> None:
    """Serve `app` with Hypercorn's protocol on the running trio loop until `shutdown()` returns.

    `limits` (a `ServerLimits`) caps the connections served at once at
    `max_connections` (503 beyond) and each one's send buffer; `config` (from
    `hypercorn_config`) bounds the request head and idle keep-alive time.
    `task_status.started` receives the bound URLs (`["http://127.0.0.1:8000"]`).
    """
    from functools import partial

    import trio
    from hypercorn.events import Event, Updated
    from hypercorn.trio.lifespan import Lifespan
    from hypercorn.trio.tcp_server import TCPServer
    from hypercorn.trio.worker_context import WorkerContext
    from hypercorn.typing import ConnectionState
    from hypercorn.utils import repr_socket_addr, wrap_app

    status = trio.TASK_STATUS_IGNORED if task_status is None else task_status
    wrapped = wrap_app(app, config.wsgi_max_body_size, None)  # type: ignore[arg-type]
    state: dict[str, Any] = {}
    lifespan = Lifespan(wrapped, config, state)
    context = WorkerContext(None)
    sockets = config.create_sockets().insecure_sockets
    listeners = []
    for sock in sockets:
        sock.listen(config.backlog)
        listeners.append(trio.SocketListener(trio.socket.from_stdlib_socket(sock)))
    binds = [f"http://{repr_socket_addr(s.family, s.getsockname())}" for s in sockets]

    class _TCPServer(TCPServer):
        """Hypercorn's per-connection server, ending as soon as its client has gone.

        Hypercorn's own stops reading when the client closes (or the connection breaks),
        but leaves its idle timer running: armed at the connection's start and after
        each response, it is stopped only by a request. A client that connects and
        closes without a request (or closes an idle keep-alive connection) kept the
        connection's task, and its place under the cap, until `keep_alive_timeout`.
        """

        _reading_ended = False

        async def _read_data(self) -> None:
            await super()._read_data()
            # Nothing more can arrive: no idle timer is needed to close the connection.
            self._reading_ended = True
            await self.idle_task.stop()

        async def protocol_send(self, event: Event) -> None:
            if self._reading_ended and isinstance(event, Updated) and event.idle:
                return  # not re-armed either
            await super().protocol_send(event)

    async def serve_one(stream: trio.SocketStream) -> None:
        connection_state = ConnectionState(state.copy())
        await _TCPServer(wrapped, config, context, connection_state, stream)  # type: ignore[arg-type]

    cap = ConnectionCap(serve_one, limits.max_connections, limits.send_buffer_bytes)
    async with trio.open_nursery() as lifespan_nursery:
        await lifespan_nursery.start(lifespan.handle_lifespan)
        await lifespan.wait_for_startup()
        async with trio.open_nursery() as connections:
            async with trio.open_nursery() as accepting:
                accepting.start_soon(
                    partial(
                        trio.serve_listeners,
                        cap,
                        listeners,
                        handler_nursery=connections,
                    )
                )
                # The line `cadence serve` users (and its tests) look for.
                for bind in binds:
                    await config.log.info("Running on %s (CTRL + C to quit)", bind)
                status.started(binds)
                await shutdown()
                accepting.cancel_scope.cancel()
            # Idle connections close at once; requests in progress get graceful_timeout.
            await context.terminated.set()
            connections.cancel_scope.deadline = (
                trio.current_time() + config.graceful_timeout
            )
        await lifespan.wait_for_shutdown()
        lifespan_nursery.cancel_scope.cancel()
