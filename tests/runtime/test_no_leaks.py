"""A finished run leaves nothing reachable behind: the Model, its bus, callbacks and worker threads go."""

from __future__ import annotations

import gc
import threading
import weakref

import anyio
import pytest

from cadence import Callback, EventBus, Model, TrainStepEnd
from cadence.testing import ListDataset, constant_network


class Probe(Callback):
    def on_train_step_end(self, run_context):
        pass

    async def on_train_epoch_end(self, run_context):
        pass


def portal_threads() -> int:
    return sum(1 for t in threading.enumerate() if "portal" in t.name)


def run_once(
    with_subscribers: bool,
) -> tuple[weakref.ref[Model], weakref.ref[EventBus], weakref.ref[Callback]]:
    model = Model(constant_network())
    cb = Probe()
    if with_subscribers:

        async def worker(event: TrainStepEnd) -> None:
            pass

        model.bus.subscribe(TrainStepEnd, worker, mode="worker")
        model.bus.subscribe(TrainStepEnd, lambda e: None)
    model.train(
        2, ListDataset.of_steps(3), callbacks=[cb] if with_subscribers else None
    )
    return weakref.ref(model), weakref.ref(model.bus), weakref.ref(cb)


@pytest.mark.parametrize("with_subscribers", [False, True])
def test_model_bus_and_callbacks_are_collected_after_a_run(with_subscribers):
    before = portal_threads()
    model, bus, cb = run_once(with_subscribers)
    gc.collect()
    assert model() is None
    assert bus() is None
    assert cb() is None
    assert portal_threads() == before


def test_callbacks_are_unsubscribed_after_each_run():
    model = Model(constant_network())
    for _ in range(3):
        model.train(1, ListDataset.of_steps(2), callbacks=[Probe()])
    assert model.bus.subscriptions == ()


def test_async_run_leaves_nothing_behind():
    refs: list[weakref.ref[Model]] = []

    async def main() -> None:
        model = Model(constant_network())
        await model.train_async(1, ListDataset.of_steps(2), callbacks=[Probe()])
        refs.append(weakref.ref(model))

    anyio.run(main)
    gc.collect()
    assert refs[0]() is None
