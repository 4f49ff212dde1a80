"""Static checks of the public API's types: mypy (run by tests/test_static_checks.py) reads this file.

Nothing here runs under pytest; each `assert_type` is checked by the type checker, and
each `# type: ignore[...]` marks a line that must be rejected (`warn_unused_ignores`
turns a line that stops being rejected into an error).
"""

from __future__ import annotations

from typing import assert_type

from cadence import (
    Event,
    EventBus,
    Model,
    RunContext,
    Subscription,
    TrainEpochBegin,
    TrainStepEnd,
)
from cadence.testing import ListDataset, constant_network


def on_step(event: TrainStepEnd) -> None:
    print(event.loss)


async def on_step_async(event: TrainStepEnd) -> None:
    print(event.step)


def on_anything(event: Event) -> None:
    print(event.time_ns)


def check_bus() -> None:
    bus = EventBus()
    assert_type(bus.subscribe(TrainStepEnd, on_step), Subscription[TrainStepEnd])
    assert_type(
        bus.subscribe(TrainStepEnd, on_step_async, mode="worker"),
        Subscription[TrainStepEnd],
    )
    bus.subscribe(
        TrainStepEnd, on_anything
    )  # a handler of a base class accepts subclasses
    bus.subscribe(TrainEpochBegin, on_step)  # type: ignore[arg-type]
    bus.subscribe(TrainStepEnd, on_step, mode="thread")  # type: ignore[arg-type]
    bus.publish(TrainEpochBegin(epoch=1))
    bus.publish({"epoch": 1})  # type: ignore[arg-type]


def check_model() -> None:
    model = Model(constant_network())
    assert_type(model.bus, EventBus)
    model.train(1, ListDataset.of_steps(1))
    model.train("1", ListDataset.of_steps(1))  # type: ignore[arg-type]


def check_run_context(rc: RunContext) -> None:
    rc.request_stop()
    assert_type(rc.get_stop_requested(), bool)
