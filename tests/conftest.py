"""Shared fixtures: a tiny dataset and network that need no compute, and the anyio backends."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from cadence.testing import ListDataset

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


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
