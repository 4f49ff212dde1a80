"""LossMonitor: printed lines, global-step printing, NaN/Inf checks, eval behaviour (reference §7.1)."""

from __future__ import annotations

import io
import math
import sys
from typing import TYPE_CHECKING

import numpy as np
import pytest

from cadence import Model, Tensor
from cadence.callbacks import LossMonitor
from cadence.testing import HookRecorder, ListDataset, constant_network

if TYPE_CHECKING:
    from collections.abc import Callable


class Const:
    """A metric whose value is fixed (no compute needed)."""

    def __init__(self, value: float | np.generic) -> None:
        self.value = value

    def clear(self) -> None:
        pass

    def update(self, *inputs: object) -> None:
        pass

    def eval(self) -> float | np.generic:
        return self.value


def scripted(*outputs):
    """A network returning the given outputs, one per call, in order."""
    it = iter(outputs)
    return lambda *batch: next(it)


def fixed(output: object) -> Callable[..., object]:
    """A network returning `output` at every step."""
    return lambda *batch: output


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_prints_a_python_float_loss_line_per_step(capsys, three_steps):
    Model(constant_network(0.25)).train(1, three_steps, callbacks=LossMonitor())
    assert lines(capsys) == [f"epoch: 1 step: {i}, loss is 0.25" for i in (1, 2, 3)]


def test_tensor_loss_prints_as_python_float_repr(capsys):
    net = scripted(
        Tensor(np.float32(2.3489904403686523)), Tensor(np.float32(2.394200086593628))
    )
    Model(net).train(1, ListDataset.of_steps(2), callbacks=LossMonitor())
    assert lines(capsys) == [
        "epoch: 1 step: 1, loss is 2.3489904403686523",
        "epoch: 1 step: 2, loss is 2.394200086593628",
    ]


def test_non_scalar_tensor_prints_its_mean(capsys):
    net = fixed(Tensor(np.array([1.0, 2.0], np.float32)))
    Model(net).train(1, ListDataset.of_steps(1), callbacks=LossMonitor())
    assert lines(capsys) == ["epoch: 1 step: 1, loss is 1.5"]


def test_per_print_times_follows_the_global_step(capsys, three_steps):
    Model(constant_network(0.5)).train(2, three_steps, callbacks=LossMonitor(2))
    assert lines(capsys) == [
        "epoch: 1 step: 2, loss is 0.5",
        "epoch: 2 step: 1, loss is 0.5",
        "epoch: 2 step: 3, loss is 0.5",
    ]


def test_per_print_times_zero_prints_nothing(capsys, three_steps):
    Model(constant_network(0.5)).train(2, three_steps, callbacks=LossMonitor(0))
    assert capsys.readouterr().out == ""


def test_reused_instance_prints_again_in_a_new_run(capsys, three_steps):
    monitor = LossMonitor(2)
    model = Model(constant_network(0.5))
    model.train(1, three_steps, callbacks=monitor)
    model.train(1, three_steps, callbacks=monitor)
    assert lines(capsys) == ["epoch: 1 step: 2, loss is 0.5"] * 2


def eval_model(output: object) -> Model:
    return Model(
        constant_network(0.5),
        eval_network=lambda *batch: output,
        metrics={"acc": Const(0.25)},
    )


def test_model_eval_prints_tuple_loss_as_tensor_with_epoch_1(capsys, two_steps):
    model = eval_model(
        (Tensor(np.float32(2.3875294)), Tensor(np.zeros((2, 3), np.float32)))
    )
    assert model.eval(two_steps, callbacks=LossMonitor()) == {"acc": 0.25}
    assert lines(capsys) == [
        "epoch: 1 step: 1, loss is 2.3875294",
        "epoch: 1 step: 2, loss is 2.3875294",
    ]


class MyLoss(LossMonitor):
    """A subclass: MindSpore printed eval-step lines in `fit` for it (its class-name filter)."""


@pytest.mark.parametrize("cls", [LossMonitor, MyLoss])
def test_fit_prints_no_eval_step_lines_and_the_eval_result_after_the_epoch(
    capsys, three_steps, two_steps, cls
):
    model = eval_model((Tensor(np.float32(9.0)),))
    model.fit(2, three_steps, two_steps, valid_frequency=2, callbacks=cls(3))
    assert lines(capsys) == [
        "epoch: 1 step: 3, loss is 0.5",
        "epoch: 2 step: 3, loss is 0.5",
        "Eval result: epoch 2, metrics: {'acc': 0.25}",
    ]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_or_inf_loss_raises_and_skips_the_end_hooks(bad, capsys):
    rec = HookRecorder()
    net = scripted(1.0, bad)
    with pytest.raises(ValueError, match="loss is NAN or INF") as excinfo:
        Model(net).train(1, ListDataset.of_steps(3), callbacks=[LossMonitor(), rec])
    # MindSpore's exact text: users grep logs for it.
    assert str(excinfo.value) == (
        "In epoch: 1 step: 2, loss is NAN or INF, training process cannot continue, terminating training."
    )
    assert "on_train_end" not in rec.names()
    assert lines(capsys) == ["epoch: 1 step: 1, loss is 1.0"]


def test_nan_in_a_tuple_output_raises_too():
    """Fix: MindSpore only checks scalar outputs and trains on with `loss is nan`."""
    net = fixed((Tensor(np.float32("nan")), Tensor(np.zeros(2, np.float32))))
    with pytest.raises(ValueError, match=r"^In epoch: 1 step: 1, loss is NAN or INF"):
        Model(net).train(2, ListDataset.of_steps(1), callbacks=LossMonitor(5))


def test_nan_message_counts_the_step_within_the_epoch():
    net = scripted(1.0, 1.0, 1.0, Tensor(np.float32("inf")))
    with pytest.raises(ValueError, match=r"^In epoch: 2 step: 1, loss is NAN or INF"):
        Model(net).train(2, ListDataset.of_steps(3), callbacks=LossMonitor(10))


def test_nan_in_model_eval_raises(two_steps):
    with pytest.raises(ValueError, match=r"^In epoch: 1 step: 1, loss is NAN or INF"):
        eval_model((Tensor(np.float32("nan")),)).eval(
            two_steps, callbacks=LossMonitor()
        )


def test_non_numeric_output_is_printed_as_is(capsys):
    Model(fixed("n/a")).train(1, ListDataset.of_steps(1), callbacks=LossMonitor())
    assert lines(capsys) == ["epoch: 1 step: 1, loss is n/a"]


@pytest.mark.parametrize(
    ("value", "cls", "message"),
    [
        (
            -1,
            ValueError,
            "For 'LossMonitor', the argument 'per_print_times' must be an int >= 0, but got -1.",
        ),
        (
            1.5,
            TypeError,
            "For 'LossMonitor', the argument 'per_print_times' must be an int >= 0, but got 1.5 of type 'float'.",
        ),
        (
            "2",
            TypeError,
            "For 'LossMonitor', the argument 'per_print_times' must be an int >= 0, but got '2' of type 'str'.",
        ),
        (
            True,
            TypeError,
            "For 'LossMonitor', the argument 'per_print_times' must be an int >= 0, but got True of type 'bool'.",
        ),
    ],
)
def test_validation(value, cls, message):
    with pytest.raises(cls, match=f"^{__import__('re').escape(message)}$"):
        LossMonitor(value)


def test_repr_names_the_public_module():
    assert LossMonitor.__module__ == "cadence.callbacks"


def test_real_network_lines(capsys):
    """Through TrainOneStepCell (a scalar Tensor) and WithEvalCell (a tuple) of `cadence.nn`."""
    from cadence import dataset as ds, nn

    x = np.arange(8, dtype=np.float32).reshape(2, 4) / 10
    data = ds.NumpySlicesDataset(
        {"x": x, "y": np.ones((2, 1), np.float32)}, shuffle=False
    ).batch(1)
    net = nn.Dense(4, 1)
    model = Model(
        net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01), metrics={"loss"}
    )
    model.train(1, data, callbacks=LossMonitor())
    model.eval(data, callbacks=LossMonitor())
    out = lines(capsys)
    assert [line.rsplit(" ", 1)[0] for line in out] == [
        "epoch: 1 step: 1, loss is",
        "epoch: 1 step: 2, loss is",
    ] * 2
    train_loss = float(out[0].rsplit(" ", 1)[1])
    assert out[0].endswith(repr(train_loss))  # a Python float
    eval_loss = out[2].rsplit(" ", 1)[1]
    assert eval_loss == str(np.float32(eval_loss))  # float32 digits


class _CountingStream(io.StringIO):
    """A non-terminal stdout that records what had been written at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.flushed: list[int] = []  # lines visible after each flush

    def flush(self) -> None:
        self.flushed.append(self.getvalue().count("\n"))


def test_lines_are_flushed_at_most_every_interval_and_all_at_the_end(monkeypatch):
    import cadence.callbacks._loss_monitor as loss_monitor

    clock = iter(
        range(1_000, 10_000)
    )  # each reading 1/64 s (exact in binary) after the last
    monkeypatch.setattr(loss_monitor, "_clock", lambda: next(clock) / 64)
    stream = _CountingStream()
    monkeypatch.setattr(sys, "stdout", stream)
    Model(constant_network(0.5)).train(
        1, ListDataset.of_steps(25), callbacks=LossMonitor()
    )
    assert stream.getvalue().count("\n") == 25
    # the first line at once, then every seventh (the first >= 0.1 s after), the rest at the end
    assert stream.flushed == [1, 8, 15, 22, 25, 25]
    assert stream.flushed[-1] == 25


def test_lines_printed_before_a_failure_are_flushed(monkeypatch):
    stream = _CountingStream()
    monkeypatch.setattr(sys, "stdout", stream)
    losses = iter([0.5, 0.5, math.nan])
    with pytest.raises(ValueError, match="loss is NAN or INF"):
        Model(lambda *batch: next(losses)).train(
            1, ListDataset.of_steps(3), callbacks=LossMonitor()
        )
    assert stream.flushed[-1] == 2


def test_has_trained_epoch_counts_the_epochs_of_earlier_runs(capsys):
    # MindSpore 1.x's argument for resumed training: lines show the overall epoch.
    Model(constant_network(0.5)).train(
        2, ListDataset.of_steps(1), callbacks=LossMonitor(has_trained_epoch=3)
    )
    assert capsys.readouterr().out.splitlines() == [
        "epoch: 4 step: 1, loss is 0.5",
        "epoch: 5 step: 1, loss is 0.5",
    ]
    with pytest.raises(
        ValueError, match="'has_trained_epoch' must be an int >= 0, but got -1"
    ):
        LossMonitor(has_trained_epoch=-1)


def test_the_eval_result_line_shows_numpy_metric_values_as_mindspore_prints_them(
    capsys, three_steps, two_steps
):
    # Metric values are numpy.float64 (as MindSpore's); NumPy 2 would write np.float64(...).
    model = Model(
        constant_network(0.5),
        eval_network=lambda *batch: (Tensor(np.float32(1.0)),),
        metrics={"acc": Const(np.float64(0.75)), "n": Const(np.int64(3))},
    )
    model.fit(1, three_steps, two_steps, callbacks=LossMonitor(3))
    assert lines(capsys)[-1] == "Eval result: epoch 1, metrics: {'acc': 0.75, 'n': 3}"
