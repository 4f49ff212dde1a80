"""`cadence.loss_value`: the one reading of a step's loss (events, built-in callbacks)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from cadence import Model, Tensor, TrainStepEnd, loss_value
from cadence.testing import ListDataset


@pytest.mark.parametrize(
    ("outputs", "expected"),
    [
        (Tensor(np.float32(0.25)), 0.25),
        (Tensor(np.array([1.0, 2.0, 6.0], np.float32)), 3.0),
        (Tensor(np.array([[1, 3]], np.int32)), 2.0),
        (np.float64(1.5), 1.5),
        (np.array([2.0, 4.0]), 3.0),
        (0.75, 0.75),
        (3, 3.0),
        (True, 1.0),
        ([1.0, 5.0], 1.0),  # a list counts by its first element, as a tuple
        ((Tensor(np.array([2.0, 4.0], np.float32)), "logits"), 3.0),
    ],
)
def test_numeric_outputs_give_their_mean(outputs: Any, expected: float) -> None:
    value = loss_value(outputs)
    assert type(value) is float
    assert value == pytest.approx(expected)


@pytest.mark.parametrize(
    "outputs",
    [
        None,
        "2.5",
        b"2.5",
        (),
        [],
        np.array([], np.float32),
        Tensor(np.zeros((0, 3), np.float32)),
        np.array(["a", "b"]),
        object(),
        ("logits", Tensor(np.float32(1.0))),  # the first element is what counts
    ],
)
def test_non_numeric_outputs_give_none(outputs: Any) -> None:
    assert loss_value(outputs) is None


def test_nan_passes_through_for_the_callbacks_to_judge() -> None:
    value = loss_value(Tensor(np.float32("nan")))
    assert value is not None and np.isnan(value)


def test_step_events_carry_loss_value_of_the_outputs() -> None:
    outputs = (Tensor(np.array([0.5, 1.0], np.float32)), "logits")
    model = Model(lambda *batch: outputs)
    seen: list[float | None] = []
    model.bus.subscribe(TrainStepEnd, lambda event: seen.append(event.loss))
    model.train(1, ListDataset.of_steps(2))
    assert seen == [0.75, 0.75]
