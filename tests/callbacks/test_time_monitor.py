"""TimeMonitor: line formats, data time, eval lines, and the fit train-epoch time (reference §7.2)."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from typing import TYPE_CHECKING, Any

import pytest

import cadence.callbacks._time_monitor
from cadence import Callback, Model, RunContext
from cadence.callbacks import TimeMonitor
from cadence.testing import ListDataset, constant_network

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

LINE = re.compile(
    r"^(Train|Eval) epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms( \(data time: \d+\.\d{3} ms\))?$"
)


class Clock:
    """A fake `time` module: time moves only when the test's network or dataset says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now

    def advance(self, ms: float) -> None:
        self.now += ms / 1000


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(
        sys.modules[cadence.callbacks._time_monitor.__name__], "time", fake
    )
    return fake


class SlowDataset(ListDataset):
    """Each batch takes `fetch_ms` to arrive."""

    def __init__(self, steps: int, clock: Clock, fetch_ms: float) -> None:
        super().__init__(ListDataset.of_steps(steps).batches)
        self.clock, self.fetch_ms = clock, fetch_ms

    def create_tuple_iterator(
        self, num_epochs: int = -1, output_numpy: bool = False
    ) -> Iterator[list[Any]]:
        for batch in self.batches:
            self.clock.advance(self.fetch_ms)
            yield list(batch)


def network(
    clock: Clock, step_ms: float, output: object = 0.5
) -> Callable[..., object]:
    def run(*batch: object) -> object:
        clock.advance(step_ms)
        return output

    return run


class Const:
    def clear(self) -> None:
        pass

    def update(self, *inputs: object) -> None:
        pass

    def eval(self) -> float:
        return 1.0


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_train_line_with_the_real_clock(capsys, three_steps):
    Model(constant_network()).train(2, three_steps, callbacks=TimeMonitor())
    out = lines(capsys)
    assert len(out) == 2
    assert all(LINE.match(line) and line.startswith("Train") for line in out)


def test_train_epoch_and_per_step_time(capsys, clock, three_steps):
    Model(network(clock, 10)).train(1, three_steps, callbacks=TimeMonitor())
    assert lines(capsys) == ["Train epoch time: 30.000 ms, per step time: 10.000 ms"]


def test_data_time_is_the_wait_for_batches(capsys, clock):
    data = SlowDataset(3, clock, fetch_ms=2)
    Model(network(clock, 10)).train(2, data, callbacks=TimeMonitor(data_time=True))
    assert (
        lines(capsys)
        == [
            "Train epoch time: 36.000 ms, per step time: 12.000 ms (data time: 2.000 ms)"
        ]
        * 2
    )


def eval_model(clock: Clock) -> Model:
    return Model(
        network(clock, 10),
        eval_network=network(clock, 100, (0.5,)),
        metrics={"acc": Const()},
    )


def test_model_eval_prints_an_eval_line(capsys, clock, two_steps):
    eval_model(clock).eval(two_steps, callbacks=TimeMonitor())
    assert lines(capsys) == ["Eval epoch time: 200.000 ms, per step time: 100.000 ms"]


def test_fit_times_the_train_epoch_without_the_eval_pass(
    capsys, clock, three_steps, two_steps
):
    """Fix: MindSpore's train line measured the eval pass (its epoch_begin reset the timer)."""
    eval_model(clock).fit(2, three_steps, two_steps, callbacks=TimeMonitor())
    epoch = [
        "Eval epoch time: 200.000 ms, per step time: 100.000 ms",
        "Train epoch time: 30.000 ms, per step time: 10.000 ms",
    ]
    assert lines(capsys) == epoch * 2


def test_fit_data_time_is_kept_per_phase(capsys, clock):
    train, valid = SlowDataset(3, clock, fetch_ms=2), SlowDataset(2, clock, fetch_ms=4)
    eval_model(clock).fit(1, train, valid, callbacks=TimeMonitor(data_time=True))
    assert lines(capsys) == [
        "Eval epoch time: 208.000 ms, per step time: 104.000 ms (data time: 4.000 ms)",
        "Train epoch time: 36.000 ms, per step time: 12.000 ms (data time: 2.000 ms)",
    ]


class BreakBatchNum(Callback):
    """Make `cb_params.batch_num` unusable before TimeMonitor reads it."""

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        run_context.original_args().batch_num = -1


def test_data_size_is_used_when_batch_num_is_not_positive(capsys, clock, three_steps):
    Model(network(clock, 10)).train(
        1, three_steps, callbacks=[BreakBatchNum(), TimeMonitor(data_size=6)]
    )
    assert lines(capsys) == ["Train epoch time: 30.000 ms, per step time: 5.000 ms"]


def test_without_batch_num_or_data_size_the_error_names_data_size(three_steps):
    with pytest.raises(
        TypeError,
        match=r"^For 'TimeMonitor', the argument 'data_size' must be an int > 0, but got None of type 'NoneType'\.",
    ):
        Model(constant_network()).train(
            1, three_steps, callbacks=[BreakBatchNum(), TimeMonitor()]
        )


@pytest.mark.parametrize("size", [-5, 0])
def test_a_data_size_not_above_zero_fails_at_construction(size):
    # MindSpore accepted it and failed at the epoch end, when batch_num was unusable.
    with pytest.raises(
        ValueError,
        match=rf"^For 'TimeMonitor', the argument 'data_size' must be None or an int > 0, but got {size}\.$",
    ):
        TimeMonitor(data_size=size)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"data_time": 1},
            "For 'TimeMonitor', the argument 'data_time' must be a bool, but got 1 of type 'int'.",
        ),
        (
            {"data_size": "x"},
            "For 'TimeMonitor', the argument 'data_size' must be None or an int > 0, but got 'x' of type 'str'.",
        ),
        (
            {"data_size": 2.0},
            "For 'TimeMonitor', the argument 'data_size' must be None or an int > 0, but got 2.0 of type 'float'.",
        ),
        (
            {"data_size": True},
            "For 'TimeMonitor', the argument 'data_size' must be None or an int > 0, but got True of type 'bool'.",
        ),
    ],
)
def test_validation(kwargs, message):
    with pytest.raises(TypeError, match=f"^{re.escape(message)}$"):
        TimeMonitor(**kwargs)


@pytest.mark.parametrize(("data_time", "expected"), [(False, False), (True, True)])
def test_step_hooks_are_subscribed_only_for_data_time(data_time, expected, three_steps):
    """Without `data_time` no step events are even built for TimeMonitor (it costs nothing per step)."""
    from cadence import TrainStepBegin, TrainStepEnd
    from cadence.callbacks import LambdaCallback

    seen: list[tuple[bool, bool]] = []

    def look(rc: RunContext) -> None:
        bus = rc.bus
        assert bus is not None
        seen.append((bus.wants(TrainStepBegin), bus.wants(TrainStepEnd)))

    probe = LambdaCallback(on_train_epoch_end=look)
    with contextlib.redirect_stdout(io.StringIO()):
        Model(constant_network()).train(
            1, three_steps, callbacks=[TimeMonitor(data_time=data_time), probe]
        )
    assert seen == [(expected, expected)]
