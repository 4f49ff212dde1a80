"""LearningRateScheduler: the function's inputs, the optimizer's rate, eval runs, validation (reference §7.8)."""

from __future__ import annotations

import logging
import re
from typing import Any

import numpy as np
import pytest

from cadence import Callback, Model, RunContext, dataset as ds, nn
from cadence.callbacks import LearningRateScheduler
from cadence.testing import ScriptedMetric
from tests.helpers.models import train_one_step


def data(steps: int = 2) -> Any:
    x = np.arange(4 * steps, dtype=np.float32).reshape(steps, 4) / 10
    return ds.NumpySlicesDataset(
        {"x": x, "y": np.ones((steps, 1), np.float32)}, shuffle=False
    ).batch(1)


def sgd_model(lr: Any = 0.1) -> tuple[Model, nn.Dense, nn.SGD]:
    net = nn.Dense(4, 1)
    opt = nn.SGD(net.trainable_params(), lr)
    return (
        Model(
            net, nn.MSELoss(), opt, metrics={"n": ScriptedMetric(0.0, repeat_last=True)}
        ),
        net,
        opt,
    )


def recorder(steps: list[int]) -> LearningRateScheduler:
    """A scheduler that keeps the rate and records the steps it was called at."""

    def keep(lr: float, step: int) -> float:
        steps.append(step)
        return lr

    return LearningRateScheduler(keep)


class StepEndLr(Callback):
    """Record the optimizer's rate after each training step (after the scheduler ran)."""

    def __init__(self) -> None:
        self.rates: list[float] = []

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.rates.append(
            float(
                np.array2string(
                    run_context.original_args().optimizer.learning_rate.asnumpy()
                )
            )
        )


def test_halving_every_second_step():
    model, _, _ = sgd_model(0.1)
    seen = StepEndLr()
    halve = LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr)
    model.train(2, data(2), callbacks=[halve, seen])
    assert seen.rates == [0.1, 0.05, 0.05, 0.025]


def test_each_change_is_logged_at_info_as_mindspore(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model, _, _ = sgd_model(0.1)
    halve = LearningRateScheduler(lambda lr, step: lr * 0.5 if step % 2 == 0 else lr)
    with caplog.at_level(logging.INFO, logger="cadence.callbacks"):
        model.train(2, data(2), callbacks=halve)
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("cadence.callbacks", "INFO", "At step 2, learning_rate change to 0.05"),
        ("cadence.callbacks", "INFO", "At step 4, learning_rate change to 0.025"),
    ]


def test_the_function_gets_the_short_float_and_the_global_step():
    calls: list[tuple[float, int]] = []

    def keep(lr: float, step: int) -> float:
        calls.append((lr, step))
        return lr

    model, _, _ = sgd_model(0.1)
    model.train(2, data(2), callbacks=LearningRateScheduler(keep))
    assert calls == [(0.1, 1), (0.1, 2), (0.1, 3), (0.1, 4)]


def test_the_optimizer_uses_the_new_rate():
    model, net, _ = sgd_model(0.1)
    weights: list[np.ndarray[Any, Any]] = []

    class Snapshot(Callback):
        def on_train_begin(self, run_context: RunContext) -> None:
            weights.append(net.weight.asnumpy().copy())

        def on_train_step_end(self, run_context: RunContext) -> None:
            weights.append(net.weight.asnumpy().copy())

    model.train(
        1, data(3), callbacks=[LearningRateScheduler(lambda lr, step: 0.0), Snapshot()]
    )
    assert not np.array_equal(weights[0], weights[1])  # step 1 ran with lr 0.1
    np.testing.assert_array_equal(weights[2], weights[1])  # steps 2 and 3 ran with lr 0
    np.testing.assert_array_equal(weights[3], weights[1])


def test_model_eval_does_not_call_it():
    """Fix: MindSpore raised KeyError: 'optimizer' in Model.eval."""
    calls: list[int] = []
    model, _, _ = sgd_model()
    model.eval(
        data(2),
        callbacks=recorder(calls),
    )
    assert calls == []


def test_fit_calls_it_for_training_steps_only():
    steps: list[int] = []
    model, _, _ = sgd_model()
    model.fit(
        2,
        data(2),
        data(3),
        callbacks=recorder(steps),
    )
    assert steps == [1, 2, 3, 4]


def test_needs_an_optimizer_with_a_fixed_rate():
    with pytest.raises(
        ValueError,
        match=r"^For 'LearningRateScheduler', the run needs an optimizer with a fixed learning rate",
    ):
        train_one_step(LearningRateScheduler(lambda lr, s: lr))
    for dynamic in ([0.1, 0.05], nn.ExponentialDecayLR(0.1, 0.9, 1)):
        model, _, _ = sgd_model(dynamic)
        with pytest.raises(
            ValueError,
            match=r"^For 'LearningRateScheduler', the optimizer's learning rate must be a fixed value",
        ):
            model.train(1, data(2), callbacks=LearningRateScheduler(lambda lr, s: lr))


def test_the_function_must_return_a_number():
    model, _, _ = sgd_model()
    with pytest.raises(
        TypeError,
        match=r"^For 'LearningRateScheduler', 'learning_rate_function' must return a number, but returned 'x' at step 1\.",
    ):
        model.train(1, data(2), callbacks=LearningRateScheduler(lambda lr, s: "x"))  # type: ignore[arg-type,return-value]


def test_validation_not_callable():
    message = "For 'LearningRateScheduler', the argument 'learning_rate_function' must be a function (lr, cur_step_num) -> new lr, but got 0.1 of type 'float'."
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        LearningRateScheduler(0.1)  # type: ignore[arg-type]


def test_validation_wrong_arity():
    def one(lr: float) -> float:
        return lr

    with pytest.raises(
        TypeError,
        match=r"must be callable with two arguments \(lr, cur_step_num\), but .* has the signature \(lr: 'float'\)\.$",
    ):
        LearningRateScheduler(one)  # type: ignore[arg-type]
