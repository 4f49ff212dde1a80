"""A test server run as a child process: free loopback ports, a log file, a bounded start, a stop.

`tests/s3server.py` (SeaweedFS) and `tests/azurite.py` (Azurite) subclass `ServerProcess`:
each says how to launch its program and how to tell that it answers; launching, the wait
for readiness, stopping and killing, and reading the log's tail are written here once.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Self

__all__ = ["ServerProcess", "free_ports"]


def free_ports(count: int) -> list[int]:
    """Return `count` distinct TCP ports free on 127.0.0.1 now (all bound at once, then released)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [int(s.getsockname()[1]) for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


class ServerProcess:
    """One server process on loopback, logging to `directory / log_name`; `start()`, `stop()`, `kill()`.

    Subclasses set `program` (its name in messages) and `log_name`, and define `command()`,
    `ready()`, `endpoint` and `credentials()`. With `own_session`, the server runs in a new session and signals reach
    its whole process group (a launcher script and the server it starts).

    Args:
        directory: Where the server keeps its data and log; created if missing.
    """

    program = "server"
    log_name = "server.log"
    own_session = False

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        """The command line that starts the server."""
        raise NotImplementedError

    def ready(self) -> bool:
        """Whether the server answers (and has what `start()` promises); called until it does."""
        raise NotImplementedError

    @property
    def endpoint(self) -> str:
        """The URL a store client reaches the server at."""
        raise NotImplementedError

    def credentials(self) -> dict[str, Any]:
        """The store options that sign requests to this server."""
        raise NotImplementedError

    def store_options(self) -> dict[str, Any]:
        """Keyword options for `CheckpointUploader`/`open_store` that reach this server (plain HTTP)."""
        return {"endpoint": self.endpoint, "allow_http": True, **self.credentials()}

    def start(self, *, timeout: float = 60.0) -> None:
        """Start the server and wait until `ready()`; raise with the log's tail if it exits or stays silent."""
        if self.process is not None:
            raise RuntimeError(f"{self.program} is already running.")
        log = open(self.directory / self.log_name, "ab")  # noqa: SIM115 - kept open by the child
        try:
            self.process = subprocess.Popen(
                self.command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.directory,
                start_new_session=self.own_session,
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.process = None
                raise RuntimeError(
                    f"{self.program} exited during start; log:\n{self.log_tail()}"
                )
            if self.ready():
                return
            time.sleep(0.05)
        self.kill()
        raise TimeoutError(
            f"{self.program} did not answer within {timeout} s; log:\n{self.log_tail()}"
        )

    def _signal(self, process: subprocess.Popen[bytes], signum: int) -> None:
        if self.own_session:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)

    def stop(self, *, timeout: float = 30.0) -> None:
        """Stop the server: SIGTERM, wait up to `timeout` seconds, then SIGKILL."""
        process, self.process = self.process, None
        if process is None:
            return
        self._signal(process, signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            self._signal(process, signal.SIGKILL)
            process.wait()

    def kill(self) -> None:
        """Stop the server at once (SIGKILL), as a crash would."""
        process, self.process = self.process, None
        if process is None:
            return
        self._signal(process, signal.SIGKILL)
        process.wait()

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the server's log."""
        try:
            text = (self.directory / self.log_name).read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
