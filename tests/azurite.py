"""A real Azure Blob Storage emulator for tests: Azurite (npm package `azurite`) on 127.0.0.1.

The package is installed once per machine into a cache folder with the machine's npm
(`npm install --prefix <cache> azurite@3`), from the npm registry; the server listens on
a free loopback port, keeps its data in a folder the caller gives, and is stopped with
the process. Azurite's account and key are its documented, public development ones.

Used by the `azurite` fixture in `tests/callbacks/conftest.py` (as `tests.azurite`).
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import hmac
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.helpers.server_process import ServerProcess, free_ports

__all__ = ["ACCOUNT", "ACCOUNT_KEY", "AzuriteServer", "install_azurite"]

ACCOUNT = "devstoreaccount1"
ACCOUNT_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
"""Azurite's well-known development key (public, in Azure's documentation): not a secret."""
CONTAINER = "ckpt"
VERSION = "3"  # the npm major version installed
_API_VERSION = "2021-08-06"


def cache_dir() -> Path:
    """Where Azurite is installed: `$CADENCE_TEST_CACHE/azurite`, else `~/.cache/cadence-tests/azurite`."""
    root = (
        os.environ.get("CADENCE_TEST_CACHE") or Path.home() / ".cache" / "cadence-tests"
    )
    return Path(root) / "azurite"


def install_azurite(timeout: float = 600.0) -> Path:
    """Return the `azurite-blob` executable, installing the npm package into the cache first if needed.

    Raises:
        FileNotFoundError: npm is not installed.
        RuntimeError: `npm install` failed (its output is in the message).
    """
    prefix = cache_dir()
    binary = prefix / "node_modules" / ".bin" / "azurite-blob"
    if binary.is_file():
        return binary
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise FileNotFoundError(
            "node and npm are needed to install Azurite (npm package `azurite`)"
        )
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error",
         f"azurite@{VERSION}"],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not binary.is_file():
        raise RuntimeError(
            f"npm install azurite failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )
    return binary


class AzuriteServer(ServerProcess):
    """One `azurite-blob` process on loopback with one container; `start()`, `stop()`.

    Args:
        directory: Where the emulator keeps its data and log.
        binary: The `azurite-blob` executable (`install_azurite()`).
    """

    program = "azurite"
    log_name = "azurite.log"
    own_session = True  # the npm launcher starts node: signals go to both

    def __init__(self, directory: str | os.PathLike[str], binary: Path) -> None:
        super().__init__(directory)
        self.binary = binary
        [self.port] = free_ports(1)
        self.container = CONTAINER

    @property
    def endpoint(self) -> str:
        """The blob endpoint, path-style with the account: `http://127.0.0.1:<port>/devstoreaccount1`."""
        return f"http://127.0.0.1:{self.port}/{ACCOUNT}"

    def credentials(self) -> dict[str, Any]:
        """Azurite's public development account and key."""
        return {"store_config": {"account_name": ACCOUNT, "account_key": ACCOUNT_KEY}}

    def command(self) -> list[str]:
        """The `azurite-blob` command line: blob service only, on this port and folder."""
        return [str(self.binary), "--blobHost", "127.0.0.1", "--blobPort", str(self.port),
                "--location", str(self.directory / "data"), "--disableTelemetry",
                "--skipApiVersionCheck", "--silent"]  # fmt: skip

    def ready(self) -> bool:
        """Whether the emulator answers; the first answer creates the container."""
        try:
            self._request("PUT", f"/{self.container}", "restype=container")
        except OSError:
            return False
        return True

    def _request(self, method: str, path: str, query: str) -> int:
        """Send one request signed with the account key (Shared Key); return the status."""
        date = email.utils.formatdate(usegmt=True)
        headers = {"x-ms-date": date, "x-ms-version": _API_VERSION}
        canonical_headers = "".join(f"{k}:{v}\n" for k, v in sorted(headers.items()))
        params = "".join(
            f"\n{k}:{v}"
            for k, v in sorted(p.split("=", 1) for p in query.split("&") if p)
        )
        resource = f"/{ACCOUNT}/{ACCOUNT}{path}{params}"
        content_type = "application/octet-stream"
        # VERB, then Content-Encoding, -Language, -Length (empty for 0), -MD5, Content-Type,
        # Date, If-Modified-Since, If-Match, If-None-Match, If-Unmodified-Since, Range.
        to_sign = (
            f"{method}\n\n\n\n\n{content_type}\n"
            + "\n" * 6
            + canonical_headers
            + resource
        )
        key = base64.b64decode(ACCOUNT_KEY)
        signature = base64.b64encode(
            hmac.new(key, to_sign.encode(), hashlib.sha256).digest()
        )
        request = urllib.request.Request(
            f"{self.endpoint}{path}?{query}", method=method, data=b"" if method == "PUT" else None,
            headers={**headers, "Content-Type": content_type,
                     "Authorization": f"SharedKey {ACCOUNT}:{signature.decode()}"},
        )  # fmt: skip
        try:
            with urllib.request.urlopen(request, timeout=5) as reply:
                return int(reply.status)
        except urllib.error.HTTPError as exc:
            if exc.code == 409:  # the container exists already
                return 409
            raise RuntimeError(
                f"azurite answered {exc.code}: {exc.read()[:500]!r}"
            ) from None
