"""`start_run` and `RunHandle`: runs in a host's task group on asyncio and trio, steered and streamed."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
import weakref
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import pytest

from cadence import (
    Callback,
    Model,
    RunCancelled,
    RunCompleted,
    RunEnded,
    RunFailed,
    RunHandle,
    RunStopped,
    TrainEpochEnd,
    TrainStepEnd,
    start_run,
)
from cadence.testing import HookRecorder, ListDataset, constant_network
from tests.helpers.models import counting_model

pytestmark = pytest.mark.anyio


class Gate:
    """A network that holds step `at` until released, so tests act at a known step."""

    def __init__(self, at: int, loss: float = 1.0) -> None:
        self.at = at
        self.loss = loss
        self.steps = 0
        self.reached = threading.Event()
        self.release = threading.Event()

    def __call__(self, *batch):
        self.steps += 1
        if self.steps == self.at:
            self.reached.set()
            assert self.release.wait(30), "the test never released the gate"
        return self.loss

    async def wait_reached(self) -> None:
        assert await anyio.to_thread.run_sync(self.reached.wait, 30)


async def start_held(tg: Any, gate: Gate, *callbacks: Any) -> RunHandle[None]:
    """Start 5 epochs of 4 steps on a Model of `gate` in `tg`; return once the gate holds its step."""
    run = start_run(tg, Model(gate).train_async, 5, ListDataset.of_steps(4), *callbacks)
    await gate.wait_reached()
    return run


def status(run: RunHandle[None]) -> str:
    return run.status  # a plain str: mypy would narrow the property between calls


def names(events):
    return [type(e).__name__ for e in events]


async def test_a_run_streams_its_events_and_ends_completed():
    model = Model(constant_network(0.5))
    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.train_async, 2, ListDataset.of_steps(3))
        assert run.status == "starting"
        assert not run.done
        events = [e async for e in run.events()]
        outcome = await run.wait()
    assert names(events)[:2] == ["TrainBegin", "TrainEpochBegin"]
    assert names(events)[-2:] == ["TrainEnd", "RunCompleted"]
    assert [e.step for e in events if isinstance(e, TrainStepEnd)] == [1, 2, 3, 4, 5, 6]
    assert isinstance(outcome, RunCompleted)
    assert outcome is run.outcome
    assert (run.status, run.done, run.error, run.result) == (
        "completed",
        True,
        None,
        None,
    )
    p = run.progress
    assert (p.epoch, p.epochs, p.step, p.steps_per_epoch, p.loss) == (2, 2, 6, 3, 0.5)
    assert run.kind == "train"
    assert len(run.id) == 12


def host_task_group(backend: str) -> Any:
    """The host's own task group: asyncio's TaskGroup or a trio nursery."""
    if backend == "asyncio":
        return asyncio.TaskGroup()
    import trio

    return trio.open_nursery()


async def test_works_in_the_hosts_own_task_group(anyio_backend: str) -> None:
    model = Model(constant_network())
    async with host_task_group(anyio_backend) as tg:
        run = start_run(tg, model.train_async, 1, ListDataset.of_steps(4))
        assert isinstance(await run.wait(), RunCompleted)
    assert run.progress.step == 4


async def test_request_stop_ends_gracefully_with_end_hooks():
    gate, rec = Gate(at=3), HookRecorder()
    async with anyio.create_task_group() as tg:
        run = await start_held(tg, gate, rec)
        assert status(run) == "running"
        run.request_stop()
        assert status(run) == "stopping"
        gate.release.set()
        outcome = await run.wait()
    assert isinstance(outcome, RunStopped)
    assert (run.status, outcome.step) == ("stopped", 3)
    assert rec.names()[-3:] == ["on_train_epoch_end", "on_train_end", "__exit__"]
    run.request_stop()  # after the end: nothing happens
    assert run.status == "stopped"


async def test_cancel_ends_at_the_next_step_without_end_hooks():
    gate, rec = Gate(at=2), HookRecorder()
    async with anyio.create_task_group() as tg:
        run = await start_held(tg, gate, rec)
        run.cancel()
        assert run.status == "cancelling"
        run.request_stop()  # a stop after a cancel does not turn it into a stop
        assert run.status == "cancelling"
        gate.release.set()
        outcome = await run.wait()
    assert isinstance(outcome, RunCancelled)
    assert (run.status, outcome.step, run.error) == ("cancelled", 2, None)
    assert "on_train_end" not in rec.names()
    assert rec.names()[-1] == "__exit__"


async def test_a_failed_run_keeps_its_error_and_does_not_fail_the_task_group():
    def broken(*batch):
        raise ValueError("bad batch")

    sibling_done = anyio.Event()

    async def sibling():
        await anyio.lowlevel.checkpoint()
        sibling_done.set()

    model = Model(broken)
    async with anyio.create_task_group() as tg:
        tg.start_soon(sibling)
        run = start_run(tg, model.train_async, 2, ListDataset.of_steps(3))
        with pytest.raises(ValueError, match="bad batch") as caught:
            await run.wait()
        await sibling_done.wait()
    assert caught.value is run.error
    assert run.status == "failed"
    assert isinstance(run.outcome, RunFailed)
    assert run.outcome.error_type == "builtins.ValueError"
    with pytest.raises(ValueError, match="bad batch"):  # again: the same error
        await run.wait()


async def test_a_run_that_fails_before_publishing_still_has_an_outcome_and_ends_streams():
    class BrokenEnter(Callback):
        def __enter__(self):
            raise OSError("no disk")

        def on_train_begin(self, run_context):
            pass

    model = Model(constant_network())
    async with anyio.create_task_group() as tg:
        run = start_run(
            tg, model.train_async, 1, ListDataset.of_steps(2), BrokenEnter()
        )
        events = [e async for e in run.events()]
        with pytest.raises(OSError, match="no disk"):
            await run.wait()
    assert names(events) == ["RunFailed"]
    assert events[0] is run.outcome
    assert isinstance(run.outcome, RunFailed)
    assert run.outcome.message == "no disk"


async def test_bad_arguments_raise_at_the_call_and_start_nothing():
    model = Model(constant_network())
    data = ListDataset.of_steps(2)
    async with anyio.create_task_group() as tg:
        with pytest.raises(ValueError, match="'epoch' must be an int > 0, but got -1"):
            start_run(tg, model.train_async, -1, data)
        with pytest.raises(
            TypeError,
            match=r"For 'Model.train_async', missing a required argument: 'train_dataset'",
        ):
            start_run(tg, model.train_async, 2)  # type: ignore[call-arg]
        with pytest.raises(
            TypeError,
            match=r"'fn' must be a Model's bound `train_async`.*got <bound method Model.train",
        ):
            start_run(tg, model.train, 2, data)  # type: ignore[arg-type]
        with pytest.raises(
            TypeError,
            match=r"'task_group' must be an anyio TaskGroup, a trio nursery or an asyncio\.TaskGroup, but got None",
        ):
            start_run(None, model.train_async, 2, data)
        assert model.bus.subscriptions == ()
    async with anyio.create_task_group() as tg:  # the model is still usable
        run = start_run(tg, model.train_async, 1, data)
    assert run.status == "completed"


async def test_one_run_per_model_at_a_time():
    gate = Gate(at=1)
    model = Model(gate)
    async with anyio.create_task_group() as tg:
        first = start_run(tg, model.train_async, 1, ListDataset.of_steps(2))
        with pytest.raises(RuntimeError, match=rf"already running run '{first.id}'"):
            start_run(tg, model.train_async, 1, ListDataset.of_steps(2))
        gate.release.set()
        await first.wait()
        second = start_run(tg, model.train_async, 1, ListDataset.of_steps(2))
        assert isinstance(await second.wait(), RunCompleted)


async def test_several_runs_at_once_and_the_event_loop_stays_free():
    gates = [Gate(at=2), Gate(at=2)]
    async with anyio.create_task_group() as tg:
        runs = [
            start_run(tg, Model(g).train_async, 2, ListDataset.of_steps(3))
            for g in gates
        ]
        for gate in gates:  # both training threads are parked mid-step at once ...
            await gate.wait_reached()
        assert [r.status for r in runs] == ["running", "running"]
        ticks = 0
        for _ in range(5):  # ... and the loop still runs other tasks
            await anyio.lowlevel.checkpoint()
            ticks += 1
        for gate in gates:
            gate.release.set()
        outcomes = [await r.wait() for r in runs]
    assert ticks == 5
    assert [type(o) for o in outcomes] == [RunCompleted, RunCompleted]
    assert runs[0].id != runs[1].id


async def test_a_consumer_that_stops_reading_loses_the_oldest_events_not_the_run():
    model = Model(constant_network())
    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.train_async, 50, ListDataset.of_steps(10))
        lagging = run.events(queue_size=4)
        everything = run.events(queue_size=10_000)
        outcome = await run.wait()  # the run ends while `lagging` is never read
        kept = [e async for e in lagging]
        full = [e async for e in everything]
    assert isinstance(outcome, RunCompleted)
    assert len(kept) <= 8  # its buffer plus what was in flight in the bus queue
    assert kept[-1] is full[-1]  # the newest events, the terminal one last
    assert kept == full[-len(kept) :]
    assert lagging.dropped == len(full) - len(kept)
    assert everything.dropped == 0


async def test_filtered_streams_always_end_with_the_terminal_event():
    model = Model(constant_network())
    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.train_async, 3, ListDataset.of_steps(2))
        async with run.events(TrainEpochEnd) as stream:
            got = [e async for e in stream]
    assert names(got) == ["TrainEpochEnd"] * 3 + ["RunCompleted"]


async def test_a_stream_closed_early_stops_and_a_late_stream_gets_the_outcome():
    gate = Gate(at=2)
    model = Model(gate)
    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.train_async, 2, ListDataset.of_steps(3))
        async with run.events() as stream:
            first = await stream.__anext__()
        assert [e async for e in stream] == []  # closed: ends at once
        gate.release.set()
        await run.wait()
    assert type(first).__name__ == "TrainBegin"
    late = [e async for e in run.events()]
    assert late == [run.outcome]
    with pytest.raises(ValueError, match="'queue_size' must be an int > 0, but got 0"):
        run.events(queue_size=0)


async def test_cancelling_the_host_task_group_cancels_the_run():
    gate = Gate(at=2)
    model = Model(gate)

    def host_cancel_arrived() -> (
        None
    ):  # white box: the flag `train_async` sets on cancellation
        current = model._current
        deadline = time.monotonic() + 30
        while current is not None and not current.control.cancelled:
            assert time.monotonic() < deadline, "the host's cancellation never arrived"
            time.sleep(0.001)
        gate.release.set()

    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.train_async, 5, ListDataset.of_steps(3))
        await gate.wait_reached()
        releaser = threading.Thread(target=host_cancel_arrived)
        releaser.start()
        tg.cancel_scope.cancel()
    releaser.join()
    assert run.status == "cancelled"
    assert isinstance(run.outcome, RunCancelled)


async def test_eval_runs_return_their_metrics_as_the_result():
    model = counting_model()
    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.eval_async, ListDataset.of_steps(3))
        await run.wait()
    assert run.kind == "eval"
    assert run.result == {"n": 3}
    assert run.progress.metrics == {"n": 3}
    assert (run.progress.step, run.progress.loss, run.progress.steps_per_epoch) == (
        3,
        0.5,
        3,
    )


async def test_fit_progress_carries_the_latest_validation_metrics():
    model = counting_model()
    async with anyio.create_task_group() as tg:
        run = start_run(
            tg, model.fit_async, 2, ListDataset.of_steps(3), ListDataset.of_steps(2)
        )
        await run.wait()
    assert run.kind == "fit"
    assert run.progress.metrics == {"n": 2.0}
    assert run.progress.step == 6


async def test_handles_are_made_by_start_run_only_and_do_not_keep_the_model():
    with pytest.raises(TypeError, match=r"made by `cadence\.start_run"):
        RunHandle(object(), None, None)  # type: ignore[arg-type]
    model = Model(constant_network())
    ref = weakref.ref(model)
    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.train_async, 1, ListDataset.of_steps(2))
    del model
    gc.collect()
    assert ref() is None
    assert isinstance(run.outcome, RunEnded)


async def test_stop_or_cancel_right_after_starting_acts_at_the_first_step_boundary():
    async with anyio.create_task_group() as tg:
        stopped = start_run(
            tg, Model(constant_network()).train_async, 3, ListDataset.of_steps(3)
        )
        stopped.request_stop()
        cancelled = start_run(
            tg, Model(constant_network()).train_async, 3, ListDataset.of_steps(3)
        )
        cancelled.cancel()
        assert (stopped.status, cancelled.status) == ("stopping", "cancelling")
        a, b = await stopped.wait(), await cancelled.wait()
    assert (type(a), a.step) == (RunStopped, 1)
    assert (type(b), b.step) == (RunCancelled, 1)


async def test_a_closed_task_group_starts_nothing_and_leaves_nothing_behind():
    model = Model(constant_network())
    async with anyio.create_task_group() as tg:
        pass
    with pytest.raises(RuntimeError):
        start_run(tg, model.train_async, 1, ListDataset.of_steps(2))
    assert model.bus.subscriptions == ()
    async with anyio.create_task_group() as tg:
        run = start_run(tg, model.train_async, 1, ListDataset.of_steps(2))
    assert run.status == "completed"
