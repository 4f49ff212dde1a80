"""train_async / fit_async / eval_async on asyncio and trio: same semantics, cancellable, loop never blocked."""

from __future__ import annotations

import inspect
import threading

import anyio
import anyio.lowlevel
import pytest

from cadence import Callback, Event, Model, RunEnded, TrainStepEnd
from cadence.testing import (
    EventRecorder,
    HookRecorder,
    ListDataset,
    constant_network,
)
from tests.helpers.models import counting_model, watch_steps

pytestmark = pytest.mark.anyio


async def test_train_async_has_the_sync_trace_and_runs_steps_off_the_loop():
    loop_thread = threading.get_ident()
    step_threads: set[int] = set()

    def network(*batch):
        step_threads.add(threading.get_ident())
        return 1.0

    rec = HookRecorder()
    await Model(network).train_async(2, ListDataset.of_steps(3), callbacks=rec)
    sync = HookRecorder()
    Model(constant_network()).train(2, ListDataset.of_steps(3), callbacks=sync)
    assert rec.names() == sync.names()
    assert loop_thread not in step_threads


async def test_fit_async_and_eval_async():
    rec = HookRecorder()
    model = counting_model()
    await model.fit_async(
        2, ListDataset.of_steps(3), ListDataset.of_steps(2), callbacks=rec
    )
    assert rec.names().count("on_eval_end") == 2
    assert await model.eval_async(ListDataset.of_steps(2)) == {"n": 2}


async def test_worker_subscribers_run_on_the_callers_loop_and_are_drained():
    loop_thread = threading.get_ident()
    seen: list[tuple[int, int]] = []
    model = Model(constant_network())

    async def watcher(event: TrainStepEnd) -> None:
        seen.append((event.step, threading.get_ident()))

    model.bus.subscribe(TrainStepEnd, watcher, mode="worker")
    await model.train_async(2, ListDataset.of_steps(5))
    assert [s for s, _ in seen] == list(range(1, 11))
    assert {t for _, t in seen} == {loop_thread}


async def test_async_callback_hooks_get_a_snapshot_and_can_stop_the_run():
    steps: list[int] = []
    gate = threading.Event()

    class AsyncStopper(Callback):
        async def on_train_step_end(self, run_context):
            step = run_context.original_args().cur_step_num
            steps.append(step)
            if step == 2:
                run_context.request_stop()
                gate.set()

    def network(*batch):
        return 1.0

    hold = HookRecorder(
        on={
            "on_train_step_end": lambda rc: (
                rc.original_args().cur_step_num == 2 and gate.wait(10)
            )
        }
    )
    events = EventRecorder()
    model = Model(network)
    model.bus.subscribe(Event, events)
    await model.train_async(
        3, ListDataset.of_steps(4), callbacks=[AsyncStopper(), hold]
    )
    assert steps == [1, 2]  # each snapshot saw the step it was published at
    assert type(events.events[-1]).__name__ == "RunStopped"


async def test_cancellation_ends_the_run_as_cancelled_drains_workers_and_exits_callbacks():
    started = anyio.Event()
    token_call = _call_soon()
    handled: list[int] = []
    log: list[str] = []

    def network(*batch):
        token_call(started.set)
        threading.Event().wait(0.002)
        return 1.0

    class Exit(Callback):
        def on_run_ended(self, run_context):
            log.append(run_context.original_args().outcome)

        def __exit__(self, *exc):
            log.append("exit")

    model = Model(network)

    async def slow_worker(event: TrainStepEnd) -> None:
        await anyio.lowlevel.checkpoint()
        handled.append(event.step)

    model.bus.subscribe(TrainStepEnd, slow_worker, mode="worker")
    events = EventRecorder()
    model.bus.subscribe(Event, events)
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(model.train_async, 1000, ListDataset.of_steps(10), Exit())
            await started.wait()
            scope.cancel()
    end = events.events[-1]
    assert isinstance(end, RunEnded) and type(end).__name__ == "RunCancelled"
    assert log == ["cancelled", "exit"]
    published = [e.step for e in events.events if isinstance(e, TrainStepEnd)]
    assert handled == published  # every queued event was still handled
    assert "TrainEnd" not in events.names()


async def test_the_event_loop_stays_responsive_while_training():
    ticks = 0
    done = anyio.Event()

    def network(*batch):
        threading.Event().wait(0.001)
        return 1.0

    async def ticker():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        await Model(network).train_async(1, ListDataset.of_steps(20))
        done.set()
    assert ticks > 20  # the loop kept running other tasks between steps


async def test_two_runs_at_once_on_one_loop():
    async def one(n: int, out: list[int]) -> None:
        model = Model(constant_network())
        rec = HookRecorder()
        await model.train_async(n, ListDataset.of_steps(3), callbacks=rec)
        out.append(rec.names().count("on_train_epoch_end"))

    out: list[int] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(one, 2, out)
        tg.start_soon(one, 3, out)
    assert sorted(out) == [2, 3]


async def test_errors_propagate_unwrapped_from_train_async():
    def network(*batch):
        raise ZeroDivisionError("step failed")

    with pytest.raises(ZeroDivisionError, match="step failed"):
        await Model(network).train_async(1, ListDataset.of_steps(2))


async def test_validation_errors_raise_before_anything_starts():
    with pytest.raises(ValueError, match="'epoch' must be an int > 0"):
        await Model(constant_network()).train_async(0, ListDataset.of_steps(2))


def _call_soon():
    from cadence.bus._workers import current_call_soon

    return current_call_soon()


async def test_a_run_on_a_bus_the_caller_serves_keeps_the_callers_loop():
    model = Model(constant_network())
    seen = watch_steps(model)
    async with model.bus.serve():
        await anyio.to_thread.run_sync(lambda: model.train(1, ListDataset.of_steps(3)))
        assert seen == [1, 2, 3]  # drained at run end, on this loop
        model.bus.publish(
            TrainStepEnd(epoch=9, step=9, step_in_epoch=9, loss=None)
        )  # the loop still serves
    assert seen == [1, 2, 3, 9]


async def test_cancelled_before_the_run_starts_it_never_starts_and_nothing_hangs():
    rec = HookRecorder()
    model = Model(constant_network())
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tg:
            tg.start_soon(model.train_async, 1, ListDataset.of_steps(3), rec)
            await anyio.lowlevel.checkpoint()
            scope.cancel()
    with anyio.fail_after(5):
        while model._current is not None:  # noqa: ASYNC110 - the run thread owns this state
            await anyio.sleep(0.001)
    # Either it never started, or it started and ended cancelled: never half-run.
    assert rec.names() == [] or rec.names()[-1] == "__exit__"
    await model.train_async(1, ListDataset.of_steps(1))  # the model is usable again


@pytest.mark.parametrize("name", ["train", "fit", "eval"])
def test_async_forms_take_the_sync_signature(name):
    # The async forms are generated from the sync methods: one declaration of the parameters.
    sync, async_form = getattr(Model, name), getattr(Model, f"{name}_async")
    assert inspect.iscoroutinefunction(async_form)
    assert inspect.signature(async_form) == inspect.signature(sync)
    assert async_form.__name__ == f"{name}_async"
    assert async_form.__doc__ and async_form.__doc__ != sync.__doc__


async def test_async_form_rejects_an_unknown_argument_naming_the_method():
    model = Model(constant_network())
    with pytest.raises(TypeError, match=r"Model\.train_async.*'bogus'"):
        await model.train_async(1, ListDataset.of_steps(2), bogus=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="'epoch'"):
        await model.fit_async(0, ListDataset.of_steps(2))
