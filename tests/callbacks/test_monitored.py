"""The shared Monitor: mode resolution, improvement with min_delta, reading values from cb_params."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cadence import CallbackParams, Tensor
from cadence.callbacks import MonitorUnavailableWarning
from cadence.callbacks._monitored import LOSS_LIKE, Monitor


def monitor(
    name: str = "eval_loss", mode: str = "auto", min_delta: float = 0.0
) -> Monitor:
    return Monitor("Owner", name, mode, min_delta, subject="Watching")


@pytest.mark.parametrize("name", sorted(LOSS_LIKE))
def test_auto_minimizes_loss_like_names(name):
    assert monitor(name).direction == "min"
    assert monitor(name).worst == math.inf


@pytest.mark.parametrize("name", ["acc", "accuracy", "f1", "my_loss"])
def test_auto_maximizes_other_names(name):
    assert monitor(name).direction == "max"
    assert monitor(name).worst == -math.inf


def test_explicit_modes_win():
    assert monitor("acc", "min").direction == "min"
    assert monitor("loss", "max").direction == "max"


def test_improvement_needs_more_than_min_delta():
    low = monitor("loss", min_delta=-0.1)
    assert low.min_delta == 0.1
    assert low.improves(0.5, 0.7)
    assert not low.improves(0.6, 0.7)
    high = monitor("acc", min_delta=0.1)
    assert high.improves(0.9, 0.7)
    assert not high.improves(0.75, 0.7)
    assert not high.improves(math.nan, 0.7)


@pytest.mark.parametrize(
    ("outputs", "expected"),
    [
        (0.0, 0.0),
        (Tensor(np.float32(0.5)), 0.5),
        ((Tensor(np.array([1.0, 3.0], np.float32)), Tensor(np.zeros(2))), 2.0),
        ([2.5, "label"], 2.5),
    ],
)
def test_loss_is_the_mean_of_the_last_output(outputs, expected):
    assert monitor("loss").read(CallbackParams(net_outputs=outputs)) == expected


@pytest.mark.parametrize(
    "value", [0, 0.0, np.float32(0.0), np.array(0.0), Tensor(np.float32(0.0)), [0.0]]
)
def test_eval_results_zero_in_any_form_is_a_value(value):
    assert monitor("acc").read(CallbackParams(eval_results={"acc": value})) == 0.0


def test_missing_value_warns_with_the_choices():
    with pytest.warns(
        MonitorUnavailableWarning,
        match=r"^Watching is conditioned on 'acc', which is not available\. Available choices are: \['loss', 'eval_loss', 'f1'\]\.",
    ):
        assert (
            monitor("acc").read(
                CallbackParams(eval_results={"f1": 1.0, "eval_loss": 2.0})
            )
            is None
        )
    with pytest.warns(
        MonitorUnavailableWarning,
        match=r"'loss', which is not available\. Available choices are: \['loss'\]",
    ):
        assert monitor("loss").read(CallbackParams()) is None


@pytest.mark.parametrize("value", ["0.5", [1.0, 2.0], object()])
def test_non_scalar_values_raise(value):
    with pytest.raises(
        ValueError,
        match=r"^For 'Owner', the monitored value 'acc' must be a single number, but got ",
    ):
        monitor("acc").read(CallbackParams(eval_results={"acc": value}))


def test_non_numeric_loss_raises():
    with pytest.raises(
        ValueError,
        match=r"the monitored value 'loss' must be a single number, but got 'n/a'\.",
    ):
        monitor("loss").read(CallbackParams(net_outputs="n/a"))
