"""LambdaCallback: each function runs at its hook, in train, fit and eval; validation (reference §7.5)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from cadence import Model, RunContext
from cadence.callbacks import LambdaCallback
from cadence.testing import ListDataset, ScriptedMetric, constant_network

if TYPE_CHECKING:
    from collections.abc import Callable

HOOKS = [
    "on_train_epoch_begin",
    "on_train_epoch_end",
    "on_train_step_begin",
    "on_train_step_end",
    "on_train_begin",
    "on_train_end",
    "on_eval_epoch_begin",
    "on_eval_epoch_end",
    "on_eval_step_begin",
    "on_eval_step_end",
    "on_eval_begin",
    "on_eval_end",
]


def model() -> Model:
    return Model(
        constant_network(),
        eval_network=lambda *batch: (0.5,),
        metrics={"n": ScriptedMetric(0.0, repeat_last=True)},
    )


def recording(calls: list[str]) -> LambdaCallback:
    def make(name: str) -> Callable[[RunContext], None]:
        return lambda run_context: calls.append(name)

    return LambdaCallback(**{name: make(name) for name in HOOKS})


def test_fit_calls_train_and_eval_functions():
    """Fix: MindSpore never ran a LambdaCallback's `on_eval_*` functions in `fit`."""
    calls: list[str] = []
    model().fit(
        1, ListDataset.of_steps(1), ListDataset.of_steps(1), callbacks=recording(calls)
    )
    assert calls == [
        "on_train_begin",
        "on_train_epoch_begin",
        "on_train_step_begin",
        "on_train_step_end",
        "on_eval_begin",
        "on_eval_epoch_begin",
        "on_eval_step_begin",
        "on_eval_step_end",
        "on_eval_epoch_end",
        "on_eval_end",
        "on_train_epoch_end",
        "on_train_end",
    ]


def test_model_eval_calls_the_eval_functions():
    calls: list[str] = []
    model().eval(ListDataset.of_steps(2), callbacks=recording(calls))
    step = ["on_eval_step_begin", "on_eval_step_end"]
    assert calls == [
        "on_eval_begin",
        "on_eval_epoch_begin",
        *step,
        *step,
        "on_eval_epoch_end",
        "on_eval_end",
    ]


def test_functions_receive_the_run_context_and_may_stop():
    seen: list[int] = []

    def stop_at_2(run_context: RunContext) -> None:
        step = run_context.original_args().cur_step_num
        seen.append(step)
        if step == 2:
            run_context.request_stop()

    Model(constant_network()).train(
        3,
        ListDataset.of_steps(2),
        callbacks=LambdaCallback(on_train_step_end=stop_at_2),
    )
    assert seen == [1, 2]


def test_functions_are_instance_attributes_and_missing_ones_do_nothing():
    def fn(run_context: RunContext) -> None:
        pass

    cb = LambdaCallback(on_train_end=fn)
    assert cb.on_train_end is fn
    assert "on_train_begin" not in vars(cb)
    cb.on_train_begin(RunContext({}))  # the base class's no-op


def test_validation_not_callable():
    message = "For 'LambdaCallback', the argument 'on_train_step_end' must be None or a function taking the run context, but got 1 of type 'int'."
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        LambdaCallback(on_train_step_end=1)  # type: ignore[arg-type]


def test_validation_wrong_arity():
    def no_args() -> None:
        pass

    with pytest.raises(
        TypeError,
        match=r"^For 'LambdaCallback', the argument 'on_eval_end' must be callable with one argument \(the run context\), but .* has the signature \(\)\.$",
    ):
        LambdaCallback(on_eval_end=no_args)  # type: ignore[arg-type]
