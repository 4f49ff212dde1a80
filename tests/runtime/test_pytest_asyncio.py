"""train_async under pytest-asyncio (strict mode), the way asyncio applications test their code."""

from __future__ import annotations

import pytest

from cadence import Model
from cadence.testing import HookRecorder, ListDataset, constant_network
from tests.helpers.models import watch_steps


@pytest.mark.asyncio
async def test_train_async_under_pytest_asyncio():
    model = Model(constant_network())
    seen = watch_steps(model)
    rec = HookRecorder()
    await model.train_async(2, ListDataset.of_steps(2), callbacks=rec)
    assert seen == [1, 2, 3, 4]
    assert rec.names()[-2:] == ["on_train_end", "__exit__"]
