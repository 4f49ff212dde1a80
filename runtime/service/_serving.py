"""Serving the app on a port: uvicorn (asyncio) or Hypercorn (trio), with the bounds a public port needs.

An ASGI app only sees a request once its head has arrived, so the bounds that protect
the server from slow or idle clients live here, in the server: how long a request head
may take, how long an idle keep-alive connection is kept, and how many connections are
served at once (beyond that, new requests get 503 at once).
"""

from __future__ import annotations

import resource
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cadence.validation import check_positive_int, check_positive_number

if TYPE_CHECKING:
    import asyncio

    import hypercorn.config
    import uvicorn
    from starlette.types import ASGIApp

__all__ = [
    "SERVERS",
    "ServerLimits",
    "hypercorn_config",
    "raise_open_files_limit",
    "uvicorn_config",
]

SERVERS = ("uvicorn", "hypercorn-trio")
"""`cadence serve --server` choices: uvicorn on asyncio, Hypercorn's trio worker."""
_FDS_PER_CONNECTION_MARGIN = (
    64  # the process's other files: logs, checkpoints, the data set
)


@dataclass(frozen=True)
class ServerLimits:
    """Bounds on what clients may hold open.

    Args:
        header_timeout_s: Seconds a request head (request line and headers) may take to
            arrive, from its first byte, or from the connection's start for the first request.
        keep_alive_s: Seconds an idle keep-alive connection is kept between requests.
        max_connections: Connections served at once; requests on connections beyond
            get 503 (uvicorn), or connections beyond get a 503 and are closed (Hypercorn).
        send_buffer_bytes: The kernel send buffer of each connection. A client
            that stops reading pins at most this much (plus the server's own 64 KiB
            high-water mark); left to autotuning, each could pin 4 MiB.
    """

    header_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    max_connections: int = 2048
    send_buffer_bytes: int = 128 * 1024

    def __post_init__(self) -> None:
        for name in ("header_timeout_s", "keep_alive_s"):
            check_positive_number(getattr(self, name), name, "ServerLimits")
        check_positive_int(self.max_connections, "max_connections", "ServerLimits")
        check_positive_int(self.send_buffer_bytes, "send_buffer_bytes", "ServerLimits")


def raise_open_files_limit(limits: ServerLimits) -> int:
    """Raise this process's soft open-files limit so `max_connections` sockets fit; return the limit.

    Many systems start processes with a soft limit of 1024 and a hard one far above:
    without this, connections past ~1000 fail with `EMFILE` instead of being served.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = limits.max_connections + _FDS_PER_CONNECTION_MARGIN
    if soft != resource.RLIM_INFINITY and soft < wanted:
        new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
        return new
    return soft


# --- uvicorn -------------------------------------------------------------------------------


def uvicorn_config(
    app: ASGIApp, limits: ServerLimits, **options: Any
) -> uvicorn.Config:
    """A uvicorn configuration with `limits` applied (h11 with a request-head time-out)."""
    import uvicorn

    return uvicorn.Config(
        app, http=_bounded_h11(limits.header_timeout_s, limits.send_buffer_bytes), ws="none",
        timeout_keep_alive=max(1, round(limits.keep_alive_s)),
        limit_concurrency=limits.max_connections, **options,
    )  # fmt: skip


def cap_send_buffer(sock: socket.socket, size: int) -> None:
    """Fix `sock`'s kernel send buffer at `size` bytes (which turns its autotuning off)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)


def _bounded_h11(
    header_timeout_s: float, send_buffer_bytes: int
) -> type[asyncio.Protocol]:
    """Return uvicorn's h11 protocol, closing connections whose request head takes over `header_timeout_s`."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        # uvicorn bounds only the idle time after a response; a connection that never
        # sends, or sends its head a byte at a time, would be held forever.
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            sock = transport.get_extra_info("socket")
            if sock is not None:
                # Event-stream readers that stopped reading would each pin up to the
                # autotuned 4 MiB of kernel memory; with 150 of them other requests'
                # p99 went from ~30 to ~250 ms, capped it stays ~30 (docs/performance.md).
                cap_send_buffer(sock, send_buffer_bytes)
            self._arm_head_timer()

        def data_received(self, data: bytes) -> None:
            cycle: Any = (
                self.cycle
            )  # None until the first request (typed as never None)
            if self._head_timer is None and (cycle is None or cycle.response_complete):
                self._arm_head_timer()  # the next request's head starts with this byte
            super().data_received(data)

        def handle_events(self) -> None:
            cycle = self.cycle
            super().handle_events()
            if self.cycle is not cycle:  # a request head was parsed
                self._disarm_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head_timer()
            super().connection_lost(exc)

        def _arm_head_timer(self) -> None:
            self._disarm_head_timer()
            self._head_timer = self.loop.call_later(
                header_timeout_s, self._head_timed_out
            )

        def _disarm_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timed_out(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return BoundedH11Protocol


# --- Hypercorn (trio) ------------------------------------------------------------------------


def hypercorn_config(
    limits: ServerLimits, bind: str, log_level: str = "info"
) -> hypercorn.config.Config:
    """A Hypercorn configuration with `limits`' time bounds (serve it with `serve_trio`, which caps connections).

    Hypercorn's idle timer runs from a connection's start, and again after each
    response, until a request head has arrived: it bounds the head's time and the
    keep-alive time at once, so it gets the smaller of the two.
    """
    from hypercorn.config import Config

    config = Config()
    config.bind = [bind]
    config.worker_class = "trio"
    config.keep_alive_timeout = min(limits.keep_alive_s, limits.header_timeout_s)
    config.loglevel = log_level.upper()
    config.accesslog = None
    return config
