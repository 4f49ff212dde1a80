"""ReduceLROnPlateau: printed lines, cooldown, min_lr, optimizer checks, state, validation (reference §7.7)."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import numpy as np
import pytest

from cadence import Model, dataset as ds, nn
from cadence.callbacks import MonitorUnavailableWarning, ReduceLROnPlateau
from cadence.testing import ScriptedMetric
from tests.helpers.models import train_one_step


def data() -> Any:
    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 10
    return ds.NumpySlicesDataset(
        {"x": x, "y": np.ones((2, 1), np.float32)}, shuffle=False
    ).batch(2)


def sgd_model(*acc: float, lr: Any = 0.01) -> tuple[Model, nn.SGD]:
    net = nn.Dense(4, 1)
    opt = nn.SGD(net.trainable_params(), lr)
    return Model(
        net, nn.MSELoss(), opt, metrics={"acc": ScriptedMetric(*acc, repeat_last=True)}
    ), opt


def lr_of(opt: nn.SGD) -> float:
    return float(opt.learning_rate.asnumpy())


def test_reduces_on_a_plateau_down_to_min_lr(capsys):
    model, opt = sgd_model(0.5)
    plateau = ReduceLROnPlateau(
        "acc", factor=0.5, patience=1, verbose=True, min_lr=0.002
    )
    model.fit(6, data(), data(), callbacks=plateau)
    assert capsys.readouterr().out.splitlines() == [
        "Epoch 00002: ReduceLROnPlateau reducing learning rate to 0.005.",
        "Epoch 00003: ReduceLROnPlateau reducing learning rate to 0.0025.",
        "Epoch 00004: ReduceLROnPlateau reducing learning rate to 0.002.",
    ]
    assert lr_of(opt) == pytest.approx(0.002)
    assert opt.learning_rate.asnumpy().dtype == np.float32


def test_cooldown_skips_the_epochs_after_a_reduction(capsys):
    """Fix: MindSpore's cooldown=1 had no effect (the counter was decremented before being tested)."""
    model, _ = sgd_model(0.5)
    plateau = ReduceLROnPlateau(
        "acc", factor=0.5, patience=1, verbose=True, cooldown=1, min_lr=0.002
    )
    model.fit(6, data(), data(), callbacks=plateau)
    assert capsys.readouterr().out.splitlines() == [
        "Epoch 00002: ReduceLROnPlateau reducing learning rate to 0.005.",
        "Epoch 00004: ReduceLROnPlateau reducing learning rate to 0.0025.",
        "Epoch 00006: ReduceLROnPlateau reducing learning rate to 0.002.",
    ]


def test_improvements_reset_the_patience(capsys):
    model, opt = sgd_model(0.1, 0.2, 0.2, 0.3, 0.3, 0.3)
    model.fit(
        6,
        data(),
        data(),
        callbacks=ReduceLROnPlateau("acc", factor=0.5, patience=2, verbose=False),
    )
    assert capsys.readouterr().out == ""
    assert lr_of(opt) == pytest.approx(0.005)  # one reduction, at epoch 6


def test_monitor_loss_in_train():
    model, opt = sgd_model(1.0)
    model.train(
        3,
        data(),
        callbacks=ReduceLROnPlateau("loss", factor=0.5, patience=1, mode="max"),
    )
    assert lr_of(opt) == pytest.approx(
        0.0025
    )  # the loss falls, so "max" sees no improvement twice


def test_a_missing_value_warns_and_leaves_the_rate():
    model, opt = sgd_model(1.0)
    with pytest.warns(
        MonitorUnavailableWarning,
        match=r"^Learning rate reduction is conditioned on 'eval_loss', which is not available\.",
    ):
        model.train(2, data(), callbacks=ReduceLROnPlateau(patience=0))
    assert lr_of(opt) == pytest.approx(0.01)


def test_needs_an_optimizer():
    with pytest.raises(
        ValueError,
        match=r"^For 'ReduceLROnPlateau', the run needs an optimizer with a fixed learning rate",
    ):
        train_one_step(ReduceLROnPlateau())


@pytest.mark.parametrize(
    "lr",
    [[0.1, 0.05], nn.ExponentialDecayLR(0.1, 0.9, 1)],
    ids=["per-step list", "schedule"],
)
def test_rejects_a_dynamic_learning_rate_before_training(lr: Any) -> None:
    model, _ = sgd_model(1.0, lr=lr)
    with pytest.raises(
        ValueError,
        match=r"does not support dynamic learning rate and group learning rate now",
    ):
        model.train(1, data(), callbacks=ReduceLROnPlateau())


def test_state_round_trips_through_json_and_resumes():
    model, opt = sgd_model(0.5)
    first = ReduceLROnPlateau("acc", factor=0.5, patience=2, cooldown=3)
    model.fit(2, data(), data(), callbacks=first)
    state = msgspec.json.decode(msgspec.json.encode(first.state_dict()))
    assert state == {"wait": 1, "cooldown_counter": 0, "best": 0.5}
    resumed = ReduceLROnPlateau("acc", factor=0.5, patience=2, cooldown=3)
    resumed.load_state_dict(state)
    model.fit(3, data(), data(), callbacks=resumed, initial_epoch=2)
    assert lr_of(opt) == pytest.approx(0.005)
    assert resumed.state_dict() == {"wait": 0, "cooldown_counter": 3, "best": 0.5}
    assert ReduceLROnPlateau.state_key == "ReduceLROnPlateau"
    assert ReduceLROnPlateau().state_dict()["best"] is None


@pytest.mark.parametrize(
    ("kwargs", "cls", "message"),
    [
        (
            {"factor": 1},
            TypeError,
            "For 'ReduceLROnPlateau', the argument 'factor' must be a float in (0.0, 1.0), but got 1 of type 'int'.",
        ),
        (
            {"factor": 1.0},
            ValueError,
            "For 'ReduceLROnPlateau', the argument 'factor' must be in (0.0, 1.0), but got 1.0.",
        ),
        (
            {"factor": 0.0},
            ValueError,
            "For 'ReduceLROnPlateau', the argument 'factor' must be in (0.0, 1.0), but got 0.0.",
        ),
        (
            {"patience": -1},
            ValueError,
            "For 'ReduceLROnPlateau', the argument 'patience' must be an int >= 0, but got -1.",
        ),
        (
            {"cooldown": -1},
            ValueError,
            "For 'ReduceLROnPlateau', the argument 'cooldown' must be an int >= 0, but got -1.",
        ),
        (
            {"cooldown": 0.5},
            TypeError,
            "For 'ReduceLROnPlateau', the argument 'cooldown' must be an int >= 0, but got 0.5 of type 'float'.",
        ),
        (
            {"min_lr": "x"},
            TypeError,
            "For 'ReduceLROnPlateau', the argument 'min_lr' must be a number, but got 'x' of type 'str'.",
        ),
        (
            {"min_lr": -1},
            ValueError,
            "For 'ReduceLROnPlateau', the argument 'min_lr' must be in [0.0, inf], but got -1.",
        ),
        (
            {"min_delta": "x"},
            TypeError,
            "For 'ReduceLROnPlateau', the argument 'min_delta' must be a number, but got 'x' of type 'str'.",
        ),
        (
            {"verbose": 1},
            TypeError,
            "For 'ReduceLROnPlateau', the argument 'verbose' must be a bool, but got 1 of type 'int'.",
        ),
        (
            {"mode": "bad"},
            ValueError,
            "For 'ReduceLROnPlateau', the argument 'mode' must be one of 'auto', 'min', 'max', but got 'bad'.",
        ),
        (
            {"monitor": None},
            TypeError,
            "For 'ReduceLROnPlateau', the argument 'monitor' must be of type 'str', but got None of type 'NoneType'.",
        ),
    ],
)
def test_validation(kwargs, cls, message):
    with pytest.raises(cls, match=f"^{re.escape(message)}$"):
        ReduceLROnPlateau(**kwargs)
