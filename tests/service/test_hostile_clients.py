"""Slow, idle and greedy clients are bounded, on both servers: nothing they hold is held forever.

Every wait here is bounded by a socket time-out far above the server's limits; no
test asserts how long anything took.
"""

from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit

import httpx
import pytest

from cadence.service import ServerLimits

SERVERS = ["uvicorn", "hypercorn-trio"]
TIGHT = ServerLimits(header_timeout_s=0.5, keep_alive_s=0.5, max_connections=64)
WAIT_S = (
    30.0  # how long a test waits for the server to act: a bound, never a measurement
)


def connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=WAIT_S)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """Read until the server closes the connection (True) or WAIT_S passes (False)."""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    finally:
        sock.close()


@pytest.mark.parametrize("name", SERVERS)
def test_a_connection_that_sends_nothing_is_closed(make_server, name):
    server = make_server(server=name, limits=TIGHT)
    assert closed_by_server(connect(server.url))


@pytest.mark.parametrize("name", SERVERS)
def test_a_request_head_sent_a_byte_at_a_time_is_cut_off(make_server, name):
    server = make_server(server=name, limits=TIGHT)
    sock = connect(server.url)
    head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10_000
    stop = threading.Event()

    def trickle() -> None:
        # Each byte well within any per-read time-out: only a bound on the whole head ends this.
        for byte in head:
            if stop.wait(0.05):
                return
            try:
                sock.send(bytes([byte]))
            except OSError:
                return

    sender = threading.Thread(target=trickle)
    sender.start()
    try:
        assert closed_by_server(sock)
    finally:
        stop.set()
        sender.join(WAIT_S)


@pytest.mark.parametrize("name", SERVERS)
def test_an_idle_keep_alive_connection_is_closed(make_server, name):
    server = make_server(server=name, limits=TIGHT)
    sock = connect(server.url)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    reply = b""
    while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
        reply += sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 200")
    assert closed_by_server(sock)


def served_once(sock: socket.socket) -> socket.socket:
    """Send one request on `sock` and read its reply: the connection is then idle, kept alive."""
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    reply = b""
    while b"\r\n\r\n" not in reply or not reply.rstrip().endswith(b"}"):
        data = sock.recv(65536)  # bounded by the socket's time-out
        assert data, f"the server closed the connection; it sent {reply!r}"
        reply += data
    assert reply.startswith(b"HTTP/1.1 200")
    return sock


# Connections held idle after one request: Hypercorn only. uvicorn's limit_concurrency
# counts the connection a request arrives on, so there the request on the 4th of 4
# connections already gets the 503 and no 4 connections can be held after a request.
CAP_CASES = [(name, "nothing") for name in SERVERS] + [("hypercorn-trio", "a request")]


@pytest.mark.parametrize(("name", "held_after"), CAP_CASES)
def test_connections_beyond_the_cap_get_503(make_server, name, held_after):
    """Idle connections (well within the head and keep-alive time-outs) fill the cap.

    They are held with nothing sent, or idle after one request; either way, closing
    them frees their places (not only the idle timer, here 60 s, would).
    """
    limits = ServerLimits(header_timeout_s=60, keep_alive_s=60, max_connections=4)
    server = make_server(server=name, limits=limits)
    held = [connect(server.url) for _ in range(4)]
    if held_after == "a request":
        held = [served_once(sock) for sock in held]
    try:
        # Hypercorn: the server counts a connection once it is accepted; wait for the 4th.
        for _ in range(int(WAIT_S / 0.1)):
            reply = httpx.get(f"{server.url}/health", timeout=WAIT_S)
            if reply.status_code == 503:
                break
            threading.Event().wait(0.1)
        assert reply.status_code == 503
    finally:
        for sock in held:
            sock.close()
    # Once they are gone, requests are served again.
    for _ in range(int(WAIT_S / 0.1)):
        if httpx.get(f"{server.url}/health", timeout=WAIT_S).status_code == 200:
            break
        threading.Event().wait(0.1)
    else:
        pytest.fail("the server kept refusing after the connections closed")


def test_hypercorn_path_caps_each_connections_send_buffer():
    import trio

    from cadence.service._trio_serving import ConnectionCap

    seen: list[int] = []

    async def serve(stream: trio.SocketStream) -> None:
        seen.append(stream.socket.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF))

    async def main() -> None:
        ours, theirs = trio.socket.socketpair()
        with theirs:
            async with trio.SocketStream(ours) as stream:
                await ConnectionCap(serve, limit=1, send_buffer_bytes=96 * 1024)(stream)

    trio.run(main)
    assert seen[0] in (96 * 1024, 2 * 96 * 1024)  # Linux doubles what it is given


@pytest.mark.parametrize("name", SERVERS)
def test_event_streams_per_client_are_capped(make_server, name):
    server = make_server(server=name, max_streams_per_client=2)
    run = server.start(epochs=100_000, eval_every=0)
    path = f"/runs/{run['id']}/events"
    with httpx.Client(base_url=server.url, timeout=WAIT_S) as client:
        with client.stream("GET", path) as one, client.stream("GET", path) as two:
            assert (one.status_code, two.status_code) == (200, 200)
            third = client.get(path)
            assert third.status_code == 429
            assert third.json() == {
                "error": "This client already has 2 event streams open, the most this server allows "
                "per client; close one first."
            }
            assert third.headers["retry-after"] == "5"
        # Both closed: the count goes back down (the server notices the disconnects).
        for _ in range(int(WAIT_S / 0.1)):
            with client.stream("GET", path) as again:
                if again.status_code == 200:
                    break
            threading.Event().wait(0.1)
        else:
            pytest.fail("closed streams were still counted")
    server.client.delete(f"/runs/{run['id']}")
    server.wait_ended(run["id"])


@pytest.mark.parametrize("name", SERVERS)
def test_health_answers_while_slow_connections_and_stalled_readers_are_open(
    make_server, name
):
    """The functional version of tests/bench/bench_service.py --hostile: correctness, not latency."""
    limits = ServerLimits(header_timeout_s=2, keep_alive_s=2, max_connections=512)
    server = make_server(server=name, limits=limits, max_streams_per_client=64)
    run = server.start(epochs=100_000, eval_every=0)
    slow = [connect(server.url) for _ in range(100)]
    for sock in slow:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # never finished
    stalled = []
    for _ in range(15):
        sock = connect(server.url)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(
            f"GET /runs/{run['id']}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        stalled.append(sock)  # never read
    try:
        with httpx.Client(base_url=server.url, timeout=WAIT_S) as client:
            for _ in range(200):
                assert client.get("/health").status_code == 200
        assert all(closed_by_server(sock) for sock in slow)
    finally:
        for sock in slow + stalled:
            sock.close()
    server.client.delete(f"/runs/{run['id']}")
    server.wait_ended(run["id"])


def test_uvicorn_caps_each_connections_send_buffer():
    import asyncio

    from uvicorn.server import ServerState

    from cadence.service import uvicorn_config

    limits = ServerLimits(send_buffer_bytes=96 * 1024)

    async def app(scope, receive, send):  # not served: only the protocol is made
        raise AssertionError

    config = uvicorn_config(app, limits)
    config.load()
    loop = asyncio.new_event_loop()
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        before = accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        protocol = config.http_protocol_class(  # type: ignore[call-arg]
            config=config, server_state=ServerState(), app_state={}, _loop=loop
        )

        class Transport(asyncio.Transport):
            def get_extra_info(self, name, default=None):
                return {"socket": accepted, "peername": client.getsockname(),
                        "sockname": listener.getsockname()}.get(name, default)  # fmt: skip

            def is_closing(self):
                return False

            def close(self):
                pass

        protocol.connection_made(Transport())
        after = accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        assert after != before
        assert after in (96 * 1024, 2 * 96 * 1024)  # Linux doubles what it is given
    finally:
        for sock in (client, accepted, listener):
            sock.close()
        loop.close()
