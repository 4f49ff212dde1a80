"""Every row of the termination table in docs/events.md: what still fires for each way a run ends."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import given, strategies as st

from cadence import Callback, Event, Model, RunEnded, SubscriberError, TrainStepEnd
from cadence.testing import (
    EventRecorder,
    HookRecorder,
    ListDataset,
    constant_network,
)
from tests.helpers.models import counting_model, train_one_step


def run_train(callbacks, epochs=2, steps=3, network=None, kind="train"):
    """Train (or fit) with an EventRecorder on every event; return (events recorder, model)."""
    model = counting_model(network, eval_loss=0.1)
    events = EventRecorder()
    model.bus.subscribe(Event, events, order=-100)
    if kind == "fit":
        model.fit(
            epochs,
            ListDataset.of_steps(steps),
            ListDataset.of_steps(2),
            callbacks=callbacks,
        )
    else:
        model.train(epochs, ListDataset.of_steps(steps), callbacks=callbacks)
    return events, model


def stop_at(rc, step):
    if rc.original_args().cur_step_num == step:
        rc.request_stop()


def terminal(events: EventRecorder) -> Any:
    ends = [e for e in events.events if isinstance(e, RunEnded)]
    assert len(ends) == 1, "exactly one terminal event"
    assert events.events[-1] is ends[0], "the terminal event comes last"
    return ends[0]


def test_completed():
    rec = HookRecorder()
    events, _ = run_train(rec)
    assert rec.names()[-2:] == ["on_train_end", "__exit__"]
    end = terminal(events)
    assert (type(end).__name__, end.kind, end.epoch, end.step) == (
        "RunCompleted",
        "train",
        2,
        6,
    )


def test_stop_at_step_end_skips_the_rest_of_the_epoch_but_not_the_end_hooks():
    rec = HookRecorder(on={"on_train_step_end": lambda rc: stop_at(rc, 2)})
    events, _ = run_train(rec)
    names = rec.names()
    assert names.count("on_train_step_end") == 2
    assert names[-4:] == [
        "on_train_step_end",
        "on_train_epoch_end",
        "on_train_end",
        "__exit__",
    ]
    stops = [
        i["stop"] for n, i in rec.calls if n in ("on_train_epoch_end", "on_train_end")
    ]
    assert stops == [True, True]
    assert "StopRequested" in events.names()
    assert type(terminal(events)).__name__ == "RunStopped"


@pytest.mark.parametrize(
    "hook", ["on_train_begin", "on_train_epoch_begin", "on_train_step_begin"]
)
def test_stop_in_a_begin_hook_still_runs_one_step(hook):
    rec = HookRecorder(on={hook: lambda rc: rc.request_stop()})
    events, _ = run_train(rec)
    assert rec.names().count("on_train_step_end") == 1
    assert rec.names()[-3:] == ["on_train_epoch_end", "on_train_end", "__exit__"]
    assert type(terminal(events)).__name__ == "RunStopped"


def test_stop_at_epoch_end_skips_later_epochs():
    rec = HookRecorder(on={"on_train_epoch_end": lambda rc: rc.request_stop()})
    events, _ = run_train(rec, epochs=3)
    assert rec.names().count("on_train_epoch_end") == 1
    assert rec.names()[-2:] == ["on_train_end", "__exit__"]
    assert type(terminal(events)).__name__ == "RunStopped"


def test_stop_in_fit_still_runs_that_epochs_eval_pass():
    rec = HookRecorder(on={"on_train_step_end": lambda rc: rc.request_stop()})
    events, _ = run_train(rec, kind="fit")
    names = rec.names()
    assert names.count("on_train_step_end") == 1
    assert names.count("on_eval_end") == 1
    assert type(terminal(events)).__name__ == "RunStopped"


def test_stop_inside_fits_eval_pass_ends_the_pass_not_the_training():
    rec = HookRecorder(on={"on_eval_step_end": lambda rc: rc.request_stop()})
    events, _ = run_train(rec, kind="fit")
    names = rec.names()
    assert (
        names.count("on_eval_step_end") == 2
    )  # one per pass, each pass stopped after its first step
    assert names.count("on_train_step_end") == 6
    assert type(terminal(events)).__name__ == "RunCompleted"


def test_stop_from_a_worker_subscriber_is_noticed_at_a_step_boundary():
    model = Model(constant_network())
    requested = threading.Event()

    async def stopper(event: TrainStepEnd) -> None:
        if event.step == 2:
            model.request_stop()
            requested.set()

    model.bus.subscribe(TrainStepEnd, stopper, mode="worker")
    gate = HookRecorder(
        on={
            "on_train_step_end": lambda rc: (
                rc.original_args().cur_step_num == 2 and requested.wait(10)
            )
        }
    )
    events = EventRecorder()
    model.bus.subscribe(Event, events)
    model.train(3, ListDataset.of_steps(3), callbacks=gate)
    assert gate.names().count("on_train_step_end") == 2
    assert type(terminal(events)).__name__ == "RunStopped"


def failing_network(at_step):
    calls = [0]

    def network(*batch):
        calls[0] += 1
        if calls[0] == at_step:
            raise ArithmeticError(f"bad step {at_step}")
        return 1.0

    return network


class Finalizer(Callback):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def on_run_failed(self, run_context, exception):
        self.log.append(f"failed:{type(exception).__name__}")

    def on_run_ended(self, run_context):
        self.log.append(f"ended:{run_context.original_args().outcome}")

    def __exit__(self, *exc):
        self.log.append(f"exit:{exc[0].__name__ if exc[0] else None}")


def test_exception_in_a_step_skips_end_hooks_runs_finalizers_and_exits_in_reverse():
    log: list[str] = []
    rec = HookRecorder()
    events = EventRecorder()
    model = Model(failing_network(4))
    model.bus.subscribe(Event, events)
    with pytest.raises(ArithmeticError, match="bad step 4"):
        model.train(2, ListDataset.of_steps(3), callbacks=[Finalizer(log), rec])
    names = rec.names()
    assert "on_train_epoch_end" in names  # epoch 1 ended normally
    assert names.count("on_train_epoch_end") == 1
    assert "on_train_end" not in names
    assert names[-1] == "__exit__"
    assert log == ["failed:ArithmeticError", "ended:failed", "exit:ArithmeticError"]
    end = terminal(events)
    assert (type(end).__name__, end.error_type, end.message, end.step) == (
        "RunFailed",
        "builtins.ArithmeticError",
        "bad step 4",
        4,
    )
    assert rec.calls[-1][1]["exc_type"] is ArithmeticError


def test_exception_in_a_callback_propagates_unchanged_and_named():
    def explode(rc):
        raise KeyError("missing")

    rec = HookRecorder(on={"on_train_epoch_end": explode})
    with pytest.raises(KeyError) as info:
        run_train(rec)
    assert any(
        "HookRecorder.on_train_epoch_end" in note for note in info.value.__notes__
    )
    assert "on_train_end" not in rec.names()


def test_a_truthy_exit_suppresses_the_exception():
    class Swallow(Callback):
        def __exit__(self, *exc):
            return True

    events = EventRecorder()
    model = Model(failing_network(2))
    model.bus.subscribe(Event, events)
    model.train(1, ListDataset.of_steps(3), callbacks=[Swallow()])  # returns normally
    assert type(terminal(events)).__name__ == "RunFailed"


def test_exits_run_in_reverse_order():
    log: list[str] = []

    class Named(Callback):
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            log.append(f"enter {self.name}")
            return self

        def __exit__(self, *exc):
            log.append(f"exit {self.name}")

    train_one_step([Named("a"), Named("b")])
    assert log == ["enter a", "enter b", "exit b", "exit a"]


def test_worker_failure_fails_the_run_at_the_next_boundary():
    model = Model(constant_network())

    async def upload(event: TrainStepEnd) -> None:
        raise OSError("disk full")

    model.bus.subscribe(TrainStepEnd, upload, mode="worker", name="uploader")
    events = EventRecorder()
    model.bus.subscribe(Event, events)
    with pytest.raises((SubscriberError, ExceptionGroup)) as info:
        model.train(1, ListDataset.of_steps(3))
    # The worker may fail on several steps before the loop's next boundary: one error or a group.
    errors = (
        info.value.exceptions
        if isinstance(info.value, ExceptionGroup)
        else (info.value,)
    )
    assert all(
        isinstance(e, SubscriberError) and e.subscriber == "uploader" for e in errors
    )
    assert type(terminal(events)).__name__ == "RunFailed"


def test_finalizer_failures_are_isolated_and_raised_after_all_ran():
    log: list[str] = []

    class Bad(Callback):
        def on_run_ended(self, run_context):
            raise RuntimeError("finalizer broke")

    with pytest.raises(RuntimeError, match="finalizer broke"):
        train_one_step([Bad(), Finalizer(log)])
    assert log == ["ended:completed", "exit:RuntimeError"] or log == [
        "ended:completed",
        "exit:None",
    ]


def test_finalizer_failure_during_a_failed_run_becomes_a_note():
    class Bad(Callback):
        def on_run_failed(self, run_context, exception):
            raise RuntimeError("also broke")

    with pytest.raises(ArithmeticError) as info:
        Model(failing_network(1)).train(1, ListDataset.of_steps(1), callbacks=[Bad()])
    assert any("also broke" in note for note in info.value.__notes__)


def test_model_runs_one_loop_at_a_time():
    model = Model(constant_network())
    errors: list[BaseException] = []

    def nested(rc):
        try:
            model.train(1, ListDataset.of_steps(1))
        except RuntimeError as exc:
            errors.append(exc)

    model.train(
        1,
        ListDataset.of_steps(1),
        callbacks=HookRecorder(on={"on_train_begin": nested}),
    )
    assert "already running" in str(errors[0])


@given(
    epochs=st.integers(min_value=1, max_value=4),
    steps=st.integers(min_value=1, max_value=4),
    k=st.integers(min_value=1, max_value=16),
)
def test_a_stop_at_any_step_follows_the_table(epochs, steps, k):
    """A stop requested at any global step k follows the table.

    The rest of that epoch's steps are skipped, its epoch end and the train end
    still fire, nothing after them, and the run ends RunStopped.
    """
    rec = HookRecorder(on={"on_train_step_end": lambda rc: stop_at(rc, k)})
    events, _ = run_train(rec, epochs=epochs, steps=steps)
    total = epochs * steps
    last = min(k, total)
    assert rec.names().count("on_train_step_end") == last
    assert rec.names().count("on_train_epoch_end") == (last - 1) // steps + 1
    assert rec.names()[-2:] == ["on_train_end", "__exit__"]
    expected = "RunStopped" if k <= total else "RunCompleted"
    assert type(terminal(events)).__name__ == expected
    names = events.names()
    assert names[names.index("TrainEnd") :] == ["TrainEnd", expected]


# --- Ctrl-C is not a subscriber failure; the library installs no signal handler ----------------


class _InterruptAt(Callback):
    """Raise KeyboardInterrupt in a step-end hook, as a Ctrl-C landing there does."""

    def on_train_step_end(self, run_context: Any) -> None:
        if run_context.original_args().cur_step_num == 2:
            raise KeyboardInterrupt


class _Failing(Callback):
    def on_train_step_end(self, run_context: Any) -> None:
        raise OSError("disk full")


def test_a_keyboard_interrupt_in_a_hook_is_not_blamed_on_it():
    with pytest.raises(KeyboardInterrupt) as info:
        run_train([_InterruptAt()])
    notes = getattr(info.value, "__notes__", [])
    assert not any("raised by subscriber" in note for note in notes), notes


def test_a_real_hook_failure_is_still_attributed():
    with pytest.raises(OSError, match="disk full") as info:
        run_train([_Failing()])
    assert any(
        "raised by subscriber '_Failing.on_train_step_end'" in note
        for note in getattr(info.value, "__notes__", [])
    )


def test_a_run_installs_no_signal_handler():
    import signal

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    run_train([])
    assert {sig: signal.getsignal(sig) for sig in before} == before
