"""The diverged-training check of ModelCheckpoint and BackupAndRestore."""

from __future__ import annotations

import numpy as np
import pytest

import cadence as ms
from cadence import nn
from cadence.callbacks.checkpoint._finite import finite_loss, finite_weights


def _net(value: float, dtype: type = np.float32) -> nn.Cell:
    net = nn.Dense(4, 3)
    net.weight.set_data(ms.Tensor(np.full((3, 4), value, dtype)))
    return net


@pytest.mark.parametrize(
    ("value", "dtype", "finite"),
    [
        (0.5, np.float32, True),
        (np.nan, np.float32, False),
        (-np.inf, np.float32, False),
        (3e38, np.float32, True),  # the sum overflows; every element is finite
        (60000.0, np.float16, True),
        (np.inf, np.float64, False),
    ],
)
def test_finite_weights(value: float, dtype: type, finite: bool) -> None:
    assert finite_weights(_net(value, dtype)) is finite


@pytest.mark.parametrize(
    ("outputs", "finite"),
    [
        (None, True),
        (ms.Tensor(np.float32(0.3)), True),
        (ms.Tensor(np.float32(np.nan)), False),
        ((ms.Tensor(np.float32(np.inf)), ms.Tensor(np.zeros(2, np.float32))), False),
        ("not a number", True),  # nothing to judge
    ],
)
def test_finite_loss(outputs: object, finite: bool) -> None:
    assert finite_loss({"net_outputs": outputs}) is finite
