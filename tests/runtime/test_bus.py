from __future__ import annotations

import functools

import pytest
from hypothesis import given, strategies as st

from cadence import (
    Event,
    EventBus,
    RunEnded,
    RunStopped,
    Subscription,
    TrainEpochBegin,
    TrainStepEnd,
)
from cadence.testing import EventRecorder


def step(n: int = 1) -> TrainStepEnd:
    return TrainStepEnd(epoch=1, step=n, step_in_epoch=n, loss=0.5)


def record(seen: list[int], index: int, event: object) -> None:
    seen.append(index)


@given(st.lists(st.integers(min_value=-3, max_value=3), min_size=1, max_size=12))
def test_delivery_order_is_a_stable_sort_by_order_then_subscription(orders):
    bus = EventBus()
    seen: list[int] = []
    for index, order in enumerate(orders):
        bus.subscribe(
            TrainEpochBegin, functools.partial(record, seen, index), order=order
        )
    bus.publish(TrainEpochBegin(epoch=1))
    assert seen == sorted(range(len(orders)), key=lambda i: orders[i])


def test_base_class_subscription_receives_subclasses():
    bus, rec = EventBus(), EventRecorder()
    bus.subscribe(RunEnded, rec)
    bus.subscribe(Event, rec)
    bus.publish(RunStopped(kind="train", epoch=1, step=2))
    bus.publish(TrainEpochBegin(epoch=1))
    assert rec.names() == ["RunStopped", "RunStopped", "TrainEpochBegin"]


def test_tuple_of_types():
    bus, rec = EventBus(), EventRecorder()
    bus.subscribe((TrainEpochBegin, TrainStepEnd), rec)
    bus.publish(step())
    bus.publish(TrainEpochBegin(epoch=2))
    assert rec.names() == ["TrainStepEnd", "TrainEpochBegin"]


def test_unsubscribe_and_context_manager():
    bus, rec = EventBus(), EventRecorder()
    with bus.subscribe(TrainEpochBegin, rec) as sub:
        assert isinstance(sub, Subscription)
        bus.publish(TrainEpochBegin(epoch=1))
    bus.publish(TrainEpochBegin(epoch=2))
    assert [e.epoch for e in rec.events] == [1]
    assert not sub.active
    sub.unsubscribe()  # idempotent
    assert bus.subscriptions == ()


def test_subscribing_during_delivery_takes_effect_from_the_next_event():
    bus, rec = EventBus(), EventRecorder()

    def first(event: TrainEpochBegin) -> None:
        if event.epoch == 1:
            bus.subscribe(TrainEpochBegin, rec)

    bus.subscribe(TrainEpochBegin, first)
    bus.publish(TrainEpochBegin(epoch=1))
    bus.publish(TrainEpochBegin(epoch=2))
    assert [e.epoch for e in rec.events] == [2]


def test_wants_reports_listeners_and_follows_changes():
    bus = EventBus()
    assert not bus.wants(TrainStepEnd)
    version = bus.version
    sub = bus.subscribe(Event, print)
    assert bus.wants(TrainStepEnd)
    assert bus.version != version
    sub.unsubscribe()
    assert not bus.wants(TrainStepEnd)


def test_every_and_when_filters():
    bus = EventBus()
    every, when = EventRecorder(), EventRecorder()
    bus.subscribe(TrainStepEnd, every, every=3)
    bus.subscribe(TrainStepEnd, when, when=lambda e: e.step % 2 == 0)
    for n in range(1, 10):
        bus.publish(step(n))
    assert [e.step for e in every.events] == [3, 6, 9]
    assert [e.step for e in when.events] == [2, 4, 6, 8]


def test_inline_exception_propagates_unchanged_with_a_note():
    bus, after = EventBus(), EventRecorder()

    def explode(event: TrainStepEnd) -> None:
        raise ValueError("boom")

    bus.subscribe(TrainStepEnd, explode, name="exploder")
    bus.subscribe(TrainStepEnd, after)
    with pytest.raises(ValueError, match="boom") as info:
        bus.publish(step(17))
    assert (
        "raised by subscriber 'exploder' while handling TrainStepEnd(epoch=1, step=17)"
        in info.value.__notes__[0]
    )
    assert after.events == []  # later subscribers of that event were not called
    stats = {s.name: s for s in bus.statistics().subscribers}
    assert stats["exploder"].calls == 1
    assert stats["EventRecorder"].calls == 0


def test_isolated_failures_are_counted_and_kept():
    bus, after = EventBus(), EventRecorder()

    def explode(event: TrainStepEnd) -> None:
        raise RuntimeError(f"bad step {event.step}")

    bus.subscribe(TrainStepEnd, explode, on_error="isolate", name="flaky")
    bus.subscribe(TrainStepEnd, after)
    bus.publish(step(1))
    bus.publish(step(2))
    assert len(after.events) == 2
    (flaky, _) = bus.statistics().subscribers
    assert (flaky.errors, flaky.calls, flaky.last_error) == (
        2,
        2,
        "RuntimeError: bad step 2",
    )


def test_statistics_count_calls_without_timing_and_time_when_asked():
    bus = EventBus()
    bus.subscribe(TrainStepEnd, lambda e: None, name="fast")
    for n in range(5):
        bus.publish(step(n))
    (fast,) = bus.statistics().subscribers
    assert (fast.calls, fast.total_time_s) == (5, None)
    bus.timing = True
    bus.publish(step(6))
    (fast,) = bus.statistics().subscribers
    assert fast.calls == 6
    assert fast.total_time_s is not None
    assert bus.statistics().published == {"TrainStepEnd": 6}
    assert "fast" in bus.statistics().format()


def test_calls_are_frozen_on_unsubscribe():
    bus = EventBus()
    sub = bus.subscribe(TrainStepEnd, lambda e: None)
    bus.publish(step())
    sub.unsubscribe()
    bus.subscribe(TrainStepEnd, lambda e: None)
    bus.publish(step())
    assert sub.count_calls({TrainStepEnd: 99}) == 1


def test_describe_prints_the_plan():
    bus = EventBus()
    bus.subscribe(TrainStepEnd, print, name="late", order=10)
    bus.subscribe(Event, print, name="everything", order=-1, every=2)

    async def upload(event: TrainStepEnd) -> None:
        pass

    bus.subscribe(TrainStepEnd, upload, mode="worker", queue_size=8, overflow="latest")
    text = bus.describe((TrainStepEnd, TrainEpochBegin))
    assert text.splitlines() == [
        "TrainStepEnd:",
        "  1. everything  inline  order=-1  every=2",
        "  2. test_describe_prints_the_plan.upload  worker  order=0  queue=8 overflow='latest'",
        "  3. late  inline  order=10",
        "TrainEpochBegin:",
        "  1. everything  inline  order=-1  every=2",
    ]
    assert "RunEnded:" in bus.describe()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"event_types": int},
            TypeError,
            "`event_types` must be an Event subclass or a tuple of them, got <class 'int'>",
        ),
        ({"event_types": ()}, TypeError, "at least one Event class"),
        ({"handler": 3}, TypeError, "`handler` must be callable, got 3 of type 'int'"),
        (
            {"handler": lambda a, b: None},
            TypeError,
            "must accept exactly one positional argument",
        ),
        (
            {"mode": "thread"},
            ValueError,
            "`mode` must be one of 'inline', 'worker'; got 'thread'",
        ),
        ({"order": 1.5}, TypeError, "`order` must be an int, got 1.5"),
        ({"every": 0}, ValueError, "`every` must be >= 1, got 0"),
        ({"queue_size": 0}, ValueError, "`queue_size` must be >= 1, got 0"),
        (
            {"overflow": "drop"},
            ValueError,
            "`overflow` must be one of 'block', 'drop_oldest', 'latest', 'error'; got 'drop'",
        ),
        (
            {"on_error": "ignore"},
            ValueError,
            "`on_error` must be one of 'raise', 'isolate'; got 'ignore'",
        ),
        ({"retries": -1}, ValueError, "`retries` must be >= 0, got -1"),
        ({"when": 5}, TypeError, "`handler` must be callable, got 5"),
        ({"name": 5}, TypeError, "`name` must be a str or None, got 5"),
    ],
)
def test_subscribe_checks_arguments_at_registration(kwargs, error, match):
    bus = EventBus()
    args = {"event_types": TrainStepEnd, "handler": print} | kwargs
    with pytest.raises(
        error,
        match=match.replace("(", r"\(")
        .replace(")", r"\)")
        .replace(".", r"\.")
        .replace("[", r"\["),
    ):
        bus.subscribe(args.pop("event_types"), args.pop("handler"), **args)
    assert bus.subscriptions == ()


def test_async_handlers_must_be_workers():
    async def handler(event: TrainStepEnd) -> None:
        pass

    with pytest.raises(
        TypeError,
        match="is a coroutine function; inline handlers run in the publishing thread",
    ):
        EventBus().subscribe(TrainStepEnd, handler, mode="inline")


def test_publishing_a_non_event_fails_clearly():
    with pytest.raises(
        TypeError,
        match="Only cadence Events can be published, got an object of type 'dict'",
    ):
        EventBus().publish({"epoch": 1})  # type: ignore[arg-type]


def test_bus_constructor_checks():
    with pytest.raises(
        ValueError, match="`poll_interval` must be a positive number of seconds, got 0"
    ):
        EventBus(poll_interval=0)
    with pytest.raises(
        ValueError, match="`backend` must be one of 'asyncio', 'trio'; got 'curio'"
    ):
        EventBus(backend="curio")


def test_a_new_subscriber_counts_only_events_after_it_joined():
    bus = EventBus()
    bus.subscribe(TrainStepEnd, lambda e: None, name="early")
    for n in range(5):
        bus.publish(step(n))
    bus.subscribe(TrainStepEnd, lambda e: None, name="late")
    bus.publish(step(6))
    stats = {s.name: s.calls for s in bus.statistics().subscribers}
    assert stats == {"early": 6, "late": 1}
