from __future__ import annotations

import threading
import time

import anyio
import anyio.lowlevel
import pytest

from cadence import (
    DrainTimeoutError,
    EventBus,
    QueueFullError,
    SubscriberError,
    TrainEpochBegin,
    TrainStepEnd,
)
from cadence.testing import EventRecorder


def step(n: int) -> TrainStepEnd:
    return TrainStepEnd(epoch=1, step=n, step_in_epoch=n, loss=float(n))


# --- on a private background loop (synchronous programs) -------------------------


def test_worker_sees_its_events_in_publish_order_off_the_publishing_thread():
    bus = EventBus()
    seen: list[int] = []
    threads: set[int] = set()

    async def handler(event: TrainStepEnd) -> None:
        threads.add(threading.get_ident())
        seen.append(event.step)

    bus.subscribe(TrainStepEnd, handler, mode="worker")
    for n in range(1, 201):
        bus.publish(step(n))
    bus.close()
    assert seen == list(range(1, 201))
    assert threading.get_ident() not in threads


def test_sync_worker_handlers_run_in_a_thread():
    bus, rec = EventBus(), EventRecorder()
    bus.subscribe(TrainStepEnd, rec, mode="worker")
    for n in range(1, 6):
        bus.publish(step(n))
    bus.drain_sync()
    assert [e.step for e in rec.events] == [1, 2, 3, 4, 5]
    bus.close()


def test_no_background_loop_until_an_event_reaches_a_worker():
    def portals() -> int:
        return sum(1 for t in threading.enumerate() if "portal" in t.name)

    before = portals()
    bus = EventBus()
    bus.subscribe(TrainStepEnd, EventRecorder(), mode="worker")
    bus.publish(TrainEpochBegin(epoch=1))  # nobody listens: no loop needed
    assert portals() == before
    bus.publish(step(1))
    assert portals() == before + 1
    bus.close()
    assert portals() == before


def blocked_worker(bus, **kwargs):
    """Subscribe a worker that waits on a gate; return (gate, seen)."""
    gate = threading.Event()
    seen: list[int] = []

    def handler(event: TrainStepEnd) -> None:
        gate.wait(10)
        seen.append(event.step)

    sub = bus.subscribe(TrainStepEnd, handler, mode="worker", queue_size=2, **kwargs)
    return gate, seen, sub


def wait_until(predicate, limit=10.0):
    """Poll `predicate` (state owned by another thread) until true, failing after `limit` seconds."""
    with anyio.from_thread.start_blocking_portal() as portal:
        portal.call(_poll, predicate, limit)


async def _poll(predicate, limit):
    with anyio.fail_after(limit):
        while not predicate():  # noqa: ASYNC110 - the state lives in another thread; nothing to await
            await anyio.sleep(0.001)


def busy_worker(bus, overflow):
    """A blocked worker (queue of 2) that is handling step 1: return (gate, seen)."""
    gate, seen, sub = blocked_worker(bus, overflow=overflow)
    bus.publish(step(1))
    wait_until(lambda: sub.queue is not None and len(sub.queue._items) == 0)
    return gate, seen


@pytest.mark.parametrize(
    ("overflow", "handled", "drops"),
    [
        ("drop_oldest", [1, 5, 6], 3),
        # queue of 2: [2, 3] -> full at 4: cleared to [4] -> [4, 5] -> full at 6: cleared to [6]
        ("latest", [1, 6], 4),
    ],
)
def test_overflow_policies_keep_the_newest(overflow, handled, drops):
    bus = EventBus()
    gate, seen = busy_worker(bus, overflow)
    for n in range(2, 7):
        bus.publish(step(n))
    gate.set()
    bus.close()
    assert seen == handled
    assert bus.statistics().subscribers[0].drops == drops


def test_overflow_error_raises_in_the_publisher():
    bus = EventBus()
    gate, seen = busy_worker(bus, "error")
    bus.publish(step(2))
    bus.publish(step(3))
    with pytest.raises(
        QueueFullError, match=r"queue of worker subscriber .* is full \(2 events\)"
    ):
        bus.publish(step(4))
    gate.set()
    bus.close()
    assert seen == [1, 2, 3]


def test_overflow_block_waits_for_room_and_loses_nothing():
    bus = EventBus()
    gate, seen, _ = blocked_worker(bus, overflow="block")
    released = threading.Timer(0.05, gate.set)
    released.start()
    for n in range(1, 8):
        bus.publish(step(n))  # blocks while the queue is full, until the gate opens
    bus.close()
    released.join()
    assert seen == list(range(1, 8))


def test_drain_timeout_names_what_is_pending():
    bus = EventBus()
    gate, _, _ = blocked_worker(bus, name="slow")
    bus.publish(step(1))
    with pytest.raises(
        DrainTimeoutError, match=r"did not finish within 0\.05 s"
    ) as info:
        bus.drain_sync(timeout=0.05)
    assert info.value.pending == {"slow": 1}
    gate.set()
    bus.close()


def test_draining_some_subscriptions_raises_only_their_failures():
    bus = EventBus()

    def fail(event: TrainStepEnd) -> None:
        raise OSError("down")

    first = bus.subscribe(TrainStepEnd, fail, mode="worker", name="first")
    second = bus.subscribe(TrainStepEnd, fail, mode="worker", name="second")
    bus.publish(step(1))
    deadline = time.monotonic() + 30
    while (first.errors, second.errors) != (1, 1):  # both have failed
        assert time.monotonic() < deadline
        time.sleep(0.001)
    with pytest.raises(SubscriberError, match="'first' failed") as info:
        bus.drain_sync(subscriptions=[first])
    assert info.value.subscriber == "first"
    with pytest.raises(SubscriberError, match="'second' failed"):  # kept, not lost
        bus.close()
    assert not bus.has_worker_errors


def test_draining_a_polling_worker_wakes_it():
    bus = EventBus(poll_interval=600.0)  # a worker just busy polls for ten minutes
    seen: list[int] = []
    sub = bus.subscribe(TrainStepEnd, lambda e: seen.append(e.step), mode="worker")
    bus.publish(step(1))
    bus.drain_sync(subscriptions=[sub], timeout=30)
    bus.publish(step(2))  # arrives while the worker polls: nobody wakes it ...
    bus.drain_sync(subscriptions=[sub], timeout=30)  # ... but draining does
    assert seen == [1, 2]
    bus.close()


def test_worker_failure_surfaces_attributed_at_the_next_check():
    bus = EventBus()

    async def upload(event: TrainStepEnd) -> None:
        raise OSError(f"store down at step {event.step}")

    bus.subscribe(TrainStepEnd, upload, mode="worker", name="uploader")
    bus.publish(step(17))
    with pytest.raises(
        SubscriberError,
        match=r"Worker subscriber 'uploader' failed on TrainStepEnd\(epoch=1, step=17\): OSError",
    ) as info:
        bus.drain_sync()
    assert isinstance(info.value.__cause__, OSError)
    assert info.value.subscriber == "uploader"
    assert isinstance(info.value.event, TrainStepEnd)
    assert info.value.event.step == 17
    bus.close()


def test_several_worker_failures_arrive_as_a_group():
    bus = EventBus()

    async def fail(event: TrainStepEnd) -> None:
        raise ValueError(event.step)

    bus.subscribe(TrainStepEnd, fail, mode="worker", name="a")
    bus.subscribe(TrainStepEnd, fail, mode="worker", name="b")
    bus.publish(step(1))
    with pytest.raises(ExceptionGroup) as info:
        bus.drain_sync()
    assert sorted(
        e.subscriber for e in info.value.exceptions if isinstance(e, SubscriberError)
    ) == ["a", "b"]
    bus.close()


def test_retries_then_success():
    bus = EventBus()
    attempts: list[int] = []

    async def flaky(event: TrainStepEnd) -> None:
        attempts.append(event.step)
        if len(attempts) < 3:
            raise ConnectionError("transient")

    bus.subscribe(TrainStepEnd, flaky, mode="worker", retries=2)
    bus.publish(step(1))
    bus.close()
    assert attempts == [1, 1, 1]
    assert bus.statistics().subscribers[0].errors == 0


def test_isolated_worker_failures_are_kept_not_raised():
    bus = EventBus()

    async def fail(event: TrainStepEnd) -> None:
        raise ValueError("nope")

    bus.subscribe(TrainStepEnd, fail, mode="worker", on_error="isolate")
    bus.publish(step(1))
    bus.close()
    (stats,) = bus.statistics().subscribers
    assert (stats.errors, stats.last_error, stats.calls) == (1, "ValueError: nope", 1)


def test_worker_statistics_time_every_call():
    bus = EventBus()

    async def handler(event: TrainStepEnd) -> None:
        await anyio.lowlevel.checkpoint()

    bus.subscribe(TrainStepEnd, handler, mode="worker")
    for n in range(3):
        bus.publish(step(n))
    bus.close()
    (stats,) = bus.statistics().subscribers
    assert (
        stats.calls == 3 and stats.total_time_s is not None and stats.queue_depth == 0
    )


def test_drain_sync_refuses_to_deadlock_on_the_worker_loop():
    bus = EventBus()
    errors: list[BaseException] = []

    async def handler(event: TrainStepEnd) -> None:
        try:
            bus.drain_sync()
        except RuntimeError as exc:
            errors.append(exc)

    bus.subscribe(TrainStepEnd, handler, mode="worker")
    bus.publish(step(1))
    bus.close()
    assert "would deadlock" in str(errors[0])


# --- on the caller's event loop (asyncio and trio) ---------------------------------


@pytest.mark.anyio
async def test_serve_runs_workers_on_the_callers_loop():
    bus = EventBus()
    seen: list[int] = []
    loop_thread = threading.get_ident()
    threads: set[int] = set()

    async def handler(event: TrainStepEnd) -> None:
        threads.add(threading.get_ident())
        seen.append(event.step)

    bus.subscribe(TrainStepEnd, handler, mode="worker")
    async with bus.serve():
        for n in range(1, 51):
            bus.publish(step(n))
        await bus.drain()
        assert seen == list(range(1, 51))
    assert threads == {loop_thread}


@pytest.mark.anyio
async def test_publishing_from_a_thread_while_served():
    bus = EventBus()
    seen: list[int] = []

    async def handler(event: TrainStepEnd) -> None:
        seen.append(event.step)

    bus.subscribe(TrainStepEnd, handler, mode="worker")

    def produce() -> None:
        for n in range(1, 101):
            bus.publish(step(n))
        bus.drain_sync()

    async with bus.serve():
        await anyio.to_thread.run_sync(produce)
    assert seen == list(range(1, 101))


@pytest.mark.anyio
async def test_serve_raises_worker_failures_at_exit():
    bus = EventBus()

    async def fail(event: TrainStepEnd) -> None:
        raise KeyError("x")

    bus.subscribe(TrainStepEnd, fail, mode="worker")
    with pytest.raises(SubscriberError):
        async with bus.serve():
            bus.publish(step(1))


@pytest.mark.anyio
async def test_subscribing_a_worker_while_served_starts_it():
    bus = EventBus()
    seen: list[int] = []
    async with bus.serve():

        async def handler(event: TrainStepEnd) -> None:
            seen.append(event.step)

        bus.subscribe(TrainStepEnd, handler, mode="worker")
        bus.publish(step(5))
    assert seen == [5]


@pytest.mark.anyio
async def test_block_policy_refuses_to_block_the_loop_itself():
    bus = EventBus()
    gate = anyio.Event()

    async def slow(event: TrainStepEnd) -> None:
        await gate.wait()

    bus.subscribe(TrainStepEnd, slow, mode="worker", queue_size=1)
    async with bus.serve():
        bus.publish(step(1))
        await anyio.wait_all_tasks_blocked()
        bus.publish(step(2))
        with pytest.raises(RuntimeError, match="would block forever"):
            bus.publish(step(3))
        gate.set()


def test_a_removed_busy_worker_is_still_drained_and_can_be_stopped():
    bus = EventBus()
    gate, _, sub = blocked_worker(bus, name="leaving")
    bus.publish(step(1))
    bus.publish(step(2))
    sub.unsubscribe()  # its task goes on with what was queued
    with pytest.raises(DrainTimeoutError) as info:
        bus.close(timeout=0.05)  # the removed worker still counts, and is stopped
    assert info.value.pending == {"leaving": 2}
    gate.set()


def test_a_removed_worker_finishes_its_queue_before_close_returns():
    bus = EventBus()
    gate, seen, sub = blocked_worker(bus)
    bus.publish(step(1))
    bus.publish(step(2))
    sub.unsubscribe()
    threading.Timer(0.02, gate.set).start()
    bus.close()
    assert seen == [1, 2]


# --- bounded waits, reported while they last -------------------------------------------------


def test_a_drain_reports_who_holds_it_while_it_waits(monkeypatch, caplog):
    from cadence.bus import _worker_pool

    monkeypatch.setattr(_worker_pool, "REPORT_EVERY_S", 0.01)
    bus = EventBus()
    gate, _, _ = blocked_worker(bus, name="slow")
    bus.publish(step(1))
    with (
        caplog.at_level("WARNING", logger="cadence.bus"),
        pytest.raises(DrainTimeoutError),
    ):
        bus.drain_sync(timeout=0.3)
    gate.set()
    bus.close()
    reports = [r.getMessage() for r in caplog.records]
    assert reports, "no report while the drain waited"
    for report in reports:
        assert report.startswith(
            "cadence: waiting for worker subscriber 'slow' (1 queued) for "
        )
        assert report.endswith(" s (drain_timeout 0.3 s)")


def test_a_publisher_blocked_by_a_full_queue_reports_and_gives_up(monkeypatch, caplog):
    from cadence.bus import _workers

    monkeypatch.setattr(_workers, "REPORT_EVERY_S", 0.01)
    bus = EventBus()
    gate, _, _ = blocked_worker(bus, name="stuck", overflow="block", block_timeout=0.3)
    for n in range(1, 4):  # one being handled, two queued: the queue is full
        bus.publish(step(n))
    with (
        caplog.at_level("WARNING", logger="cadence.bus"),
        pytest.raises(
            QueueFullError,
            match=r"'stuck' stayed full \(2 events\) for 0.3 s .*subscription's block_timeout",
        ),
    ):
        bus.publish(step(4))
    gate.set()
    bus.close()
    reports = [r.getMessage() for r in caplog.records]
    assert reports
    assert all("publishing waits for worker subscriber 'stuck' (" in r for r in reports)


def test_model_bounds_its_drain_by_default():
    import inspect

    from cadence import Model

    default = inspect.signature(Model).parameters["drain_timeout"].default
    assert default == 600.0
    with pytest.raises(
        ValueError, match=r"'drain_timeout' must be a number of seconds > 0, or None"
    ):
        Model(lambda x: x, drain_timeout=0)


def test_a_hook_that_never_returns_fails_the_run_at_the_drain_timeout():
    import numpy as np

    from cadence import Callback, Model, nn
    from cadence.dataset import NumpySlicesDataset

    class Stuck(Callback):
        async def on_train_epoch_end(self, run_context):
            await anyio.sleep_forever()

    net = nn.Dense(3, 2)
    model = Model(
        net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1), drain_timeout=0.2
    )
    data = NumpySlicesDataset(
        {"x": np.zeros((8, 3), np.float32), "y": np.zeros((8, 2), np.float32)},
        shuffle=False,
    ).batch(4)
    with pytest.raises(DrainTimeoutError) as info:
        model.train(1, data, callbacks=[Stuck()])
    assert info.value.pending == {"Stuck.on_train_epoch_end": 1}


@pytest.mark.parametrize(
    ("value", "error", "match"),
    [
        ("5", TypeError, r"`block_timeout` must be a number of seconds or None, got '5' of type 'str'"),
        (True, TypeError, r"`block_timeout` must be a number of seconds or None, got True of type 'bool'"),
        (0, ValueError, r"`block_timeout` must be a positive, finite number of seconds, got 0"),
        (-1.0, ValueError, r"`block_timeout` must be a positive, finite number of seconds, got -1.0"),
        (float("inf"), ValueError, r"`block_timeout` must be a positive, finite number of seconds, got inf"),
    ],
)  # fmt: skip
def test_block_timeout_is_validated(value, error, match):
    with pytest.raises(error, match=match):
        EventBus().subscribe(TrainStepEnd, print, mode="worker", block_timeout=value)


def test_block_timeout_none_waits_until_the_worker_makes_room():
    bus = EventBus()
    gate, seen, _ = blocked_worker(bus, overflow="block", block_timeout=None)
    for n in range(1, 4):  # one being handled, two queued: the queue is full
        bus.publish(step(n))
    threading.Timer(0.2, gate.set).start()
    bus.publish(step(4))  # blocks until the worker takes an event, however long
    bus.drain_sync(timeout=30)
    bus.close()
    assert seen == [1, 2, 3, 4]
