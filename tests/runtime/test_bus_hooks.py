"""`EventBus.subscribe_hook` and `EventBus.publish_lazy`: the entry points callback hooks and the loop use."""

import anyio
import pytest

from cadence import EventBus, TrainStepEnd


def step_end(step):
    return TrainStepEnd(epoch=1, step=step, step_in_epoch=step, loss=None)


def test_an_inline_hook_gets_its_context_and_a_lazy_event_is_not_built_for_it():
    bus = EventBus()
    got: list[object] = []
    built: list[int] = []
    bus.subscribe_hook(
        TrainStepEnd, got.append, context="ctx", snapshot=lambda e: "snap", name="h"
    )

    def make(step):
        built.append(step)
        return step_end(step)

    bus.publish_lazy(TrainStepEnd, make, (1,))
    assert (got, built) == (["ctx"], [])
    bus.subscribe(TrainStepEnd, lambda e: got.append(e.step))
    bus.publish_lazy(TrainStepEnd, make, (2,))  # now someone takes the event itself
    assert (got, built) == (["ctx", "ctx", 2], [2])


def test_a_failing_hook_is_named_with_the_lazily_built_event():
    bus = EventBus()

    def hook(context):
        raise ValueError("hook broke")

    bus.subscribe_hook(
        TrainStepEnd, hook, context=None, snapshot=lambda e: e, name="Mine.on_x"
    )
    with pytest.raises(ValueError, match="hook broke") as info:
        bus.publish_lazy(TrainStepEnd, step_end, (3,))
    assert "subscriber 'Mine.on_x'" in "".join(info.value.__notes__)
    assert "step=3" in "".join(info.value.__notes__)


def test_an_async_hook_runs_as_a_worker_with_the_snapshot_of_its_event():
    got: list[object] = []

    async def hook(snapshot):
        got.append(snapshot)

    async def main():
        bus = EventBus()
        async with bus.serve():
            sub = bus.subscribe_hook(
                TrainStepEnd, hook, context="ctx", snapshot=lambda e: ("snap", e.step),
                name="async hook",
            )  # fmt: skip
            assert sub.mode == "worker"
            bus.publish(step_end(1))
            bus.publish(step_end(2))
            await bus.drain(timeout=30)

    anyio.run(main)
    assert got == [("snap", 1), ("snap", 2)]


def test_when_filters_the_events_a_hook_answers():
    bus = EventBus()
    got: list[object] = []
    bus.subscribe_hook(
        TrainStepEnd, got.append, context="ctx", snapshot=lambda e: e, name="h",
        when=lambda e: e.step % 2 == 0,
    )  # fmt: skip
    for step in range(1, 5):
        bus.publish(step_end(step))
    assert got == ["ctx", "ctx"]
