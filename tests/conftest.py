"""Shared fixtures: a tiny dataset and network that need no compute, and the anyio backends."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from cadence.testing import ListDataset

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def _load_porting_data() -> ModuleType:
    path = Path(__file__).parent / "porting" / "data.py"
    spec = importlib.util.spec_from_file_location("cadence_tests_porting_data", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def porting_data() -> ModuleType:
    """`tests/porting/data.py`: `make_mnist(workdir)`, `make_cifar10(workdir)`, `make_imagefolder(workdir)`."""
    return _load_porting_data()


@pytest.fixture(scope="session", autouse=True)
def _user_state_directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep what cadence writes to the user's state directory (upload ledgers) inside the test run."""
    previous = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = previous


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    """Run anyio-marked tests on both backends cadence supports."""
    return str(request.param)


@pytest.fixture
def three_steps() -> ListDataset:
    """A dataset of 3 batches per epoch (MindSpore reference traces use 3 steps)."""
    return ListDataset.of_steps(3)


@pytest.fixture
def two_steps() -> ListDataset:
    """A dataset of 2 batches per epoch (the reference's validation set)."""
    return ListDataset.of_steps(2)
