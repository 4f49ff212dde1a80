"""Run handles: start a `Model` run in your own task group, watch it and steer it while it runs.

`start_run(task_group, model.train_async, ...)` checks the arguments as the method
would, starts the run as a task of the host's task group (anyio, trio nursery or
`asyncio.TaskGroup`) and returns a `RunHandle` at once. The handle follows the run
through an inline subscriber that only copies counters (status, progress,
checkpoints); `events()` streams the run's events through a worker subscription
with its own bounded buffer, so a consumer that falls behind loses the oldest
events it has not read yet, never stalls the training thread.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
import weakref
from typing import TYPE_CHECKING, Any, Generic, Literal, ParamSpec, TypeVar, final

import anyio
import msgspec

from ..bus._events import (
    CheckpointSaved,
    EvalBegin,
    EvalEnd,
    EvalStepEnd,
    Event,
    RunEnded,
    TrainBegin,
    TrainEpochEnd,
    TrainStepEnd,
)
from ._loop import Cancelled, terminal_event
from ._model import Model, execute_async_run, prepare_async_run
from ._run_events import RunEvents, StreamEnd, StreamSource
from ._run_progress import RunProgress

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ..bus._bus import EventBus
    from ..bus._subscription import Subscription
    from ._loop import Run

__all__ = ["RunHandle", "RunStatus", "start_run"]

P = ParamSpec("P")
T = TypeVar("T")

RunStatus = Literal[
    "starting",
    "running",
    "stopping",
    "cancelling",
    "completed",
    "stopped",
    "failed",
    "cancelled",
]
"""Where a run is in its life; the last four are final and match its `RunEnded` event."""

_METHODS = ("train_async", "fit_async", "eval_async")
_TRACKED = (
    TrainBegin,
    TrainStepEnd,
    TrainEpochEnd,
    EvalBegin,
    EvalStepEnd,
    EvalEnd,
    CheckpointSaved,
    RunEnded,
)
# The handle of the run in progress on each bus: a bus serves one run at a time.
_active: weakref.WeakKeyDictionary[EventBus, RunHandle[Any]] = (
    weakref.WeakKeyDictionary()
)


def start_run(
    task_group: Any,
    fn: Callable[P, Awaitable[T]],
    /,
    *args: P.args,
    **kwargs: P.kwargs,
) -> RunHandle[T]:
    """Start `fn(*args, **kwargs)` (`model.train_async`, `fit_async` or `eval_async`) in `task_group`.

    The arguments are checked first, exactly as the method checks them, so a wrong
    one raises here and nothing starts. The run then executes as a task of
    `task_group` (an anyio `TaskGroup`, a trio nursery or an `asyncio.TaskGroup`):
    steps in a worker thread, worker subscribers on this event loop. A failed run
    does not fail the task group: its exception is kept in the handle and raised
    by `wait()`. Cancelling the task group cancels the run (it ends as
    `RunCancelled`). Call from the event loop's thread.

    Args:
        task_group: The task group the run becomes a task of.
        fn: A bound `train_async`, `fit_async` or `eval_async` of a `Model`.
        *args: Positional arguments of `fn`.
        **kwargs: Keyword arguments of `fn`.

    Returns:
        The run's handle, in status `"starting"`.

    Raises:
        TypeError: `task_group` or `fn` is not what is described, or an argument of `fn` is wrong.
        ValueError: An argument of `fn` has a wrong value.
        RuntimeError: The model (or its bus) is already running.

    Example:
        >>> import anyio
        >>> from cadence import Model, start_run
        >>> from cadence.testing import ListDataset, constant_network
        >>> async def main():
        ...     model = Model(constant_network(0.5))
        ...     async with anyio.create_task_group() as tg:
        ...         run = start_run(tg, model.train_async, 2, ListDataset.of_steps(3))
        ...         outcome = await run.wait()
        ...     return run.status, type(outcome).__name__, run.progress.step
        >>> anyio.run(main)
        ('completed', 'RunCompleted', 6)
    """
    model, method = _model_method(fn)
    spawn = _spawner(task_group)
    bus = model.bus
    other = _active.get(bus)
    if other is not None:
        raise RuntimeError(
            f"This model's bus is already running run {other.id!r}; a bus serves one run at a time. "
            "Wait for it (`await run.wait()`) or use another Model."
        )
    run = prepare_async_run(model, method, args, kwargs)
    handle: RunHandle[T] = RunHandle(_Token.value, model, run)
    _active[bus] = handle
    try:
        spawn(handle._main, f"cadence run {handle.id}")
    except BaseException:  # e.g. the task group is closed: leave nothing behind
        handle._discard()
        raise
    return handle


@final
class RunHandle(Generic[T]):
    """A run started by `start_run`: its status, progress and outcome, and the controls to end it.

    Read it from the event loop that runs it. `request_stop()` may be called from any thread.

    Attributes:
        id: A short random identifier (12 hex digits).
        kind: `"train"`, `"fit"` or `"eval"`.
    """

    def __init__(self, token: object, model: Model, run: Run) -> None:
        if token is not _Token.value:
            raise TypeError(
                "RunHandle objects are made by `cadence.start_run(task_group, model.train_async, ...)`."
            )
        self.id: str = uuid.uuid4().hex[:12]
        self.kind: str = run.kind
        self._model: Model | None = model
        self._run: Run | None = run
        self._bus = model.bus
        self._lock = threading.Lock()
        self._status: RunStatus = "starting"
        self._progress = RunProgress()
        self._checkpoints: tuple[CheckpointSaved, ...] = ()
        self._outcome: RunEnded | None = None
        self._published_outcome = False
        self._error: BaseException | None = None
        self._result: T | None = None
        self._done = anyio.Event()
        self._streams: set[StreamEnd] = set()
        self._tracker: Subscription[Any] | None = self._bus.subscribe(
            _TRACKED, self._track, order=2**62, name=f"RunHandle {self.id}"
        )

    def __repr__(self) -> str:
        return f"<RunHandle {self.id} {self.kind} {self._status}>"

    # --- state ---------------------------------------------------------------------

    @property
    def status(self) -> RunStatus:
        """`"starting"`, `"running"`, `"stopping"`, `"cancelling"`, then how it ended."""
        return self._status

    @property
    def done(self) -> bool:
        """Whether the run has ended (its task finished; `outcome` is set)."""
        return self._done.is_set()

    @property
    def progress(self) -> RunProgress:
        """The latest counters, loss and metrics (updated as the run publishes events)."""
        return self._progress

    @property
    def checkpoints(self) -> tuple[CheckpointSaved, ...]:
        """The `CheckpointSaved` events of this run so far, oldest first (files may since be deleted)."""
        return self._checkpoints

    @property
    def outcome(self) -> RunEnded | None:
        """The run's terminal event (`RunCompleted`, `RunStopped`, `RunFailed`, `RunCancelled`), once it ended."""
        return self._outcome

    @property
    def error(self) -> BaseException | None:
        """The exception a failed run ended with, else None."""
        return self._error

    @property
    def result(self) -> T | None:
        """What the method returned: the metrics of an `eval_async` run, else None."""
        return self._result

    # --- control --------------------------------------------------------------------

    def request_stop(self) -> None:
        """Ask the run to stop gracefully at its next step boundary (thread-safe; idempotent).

        It ends as `request_stop()` from a callback does: end hooks fire (so
        `ModelCheckpoint` saves), then `RunStopped`.
        """
        run = self._run
        if run is None:
            return
        run.request_stop()
        self._set_status("stopping", unless=("cancelling",))

    def cancel(self) -> None:
        """Cancel the run at its next step boundary (thread-safe; idempotent).

        No end hooks fire; callbacks see `on_run_ended` and `__exit__`; worker
        subscribers still handle what was queued; the run ends as `RunCancelled`.
        Files already committed (checkpoints) stay as they are.
        """
        run = self._run
        if run is None:
            return
        run.cancel()
        self._set_status("cancelling")

    async def wait(self) -> RunEnded:
        """Wait until the run has ended; return its terminal event.

        Raises:
            BaseException: The exception of a failed run (the same object each time).
        """
        await self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._outcome is not None
        return self._outcome

    def events(
        self,
        event_types: type[Event] | tuple[type[Event], ...] = Event,
        *,
        queue_size: int = 256,
    ) -> RunEvents:
        """Return an async iterator over this run's events from now on, ending after its `RunEnded`.

        Each call makes an independent stream with its own buffer of `queue_size`
        events. A consumer that falls behind by more loses the oldest events it
        has not read (`RunEvents.dropped` counts them); it always gets the newest
        ones and the terminal event. The training thread never waits for it.
        Opened after the run ended, the stream yields just the terminal event.

        Args:
            event_types: The event classes to receive (subclasses included);
                `RunEnded` is always added.
            queue_size: How many unread events the stream keeps.
        """
        source = StreamSource(
            self._bus,
            f"RunHandle {self.id}",
            self._streams,
            self._outcome if self.done else None,
        )
        return RunEvents(source, event_types, queue_size)

    # --- the run's task -------------------------------------------------------------

    async def _main(self) -> None:
        model, run = self._model, self._run
        assert model is not None
        assert run is not None
        try:
            self._result = await execute_async_run(model, run)
        except Cancelled:
            pass  # `cancel()`: the loop ended as cancelled and published RunCancelled
        except anyio.get_cancelled_exc_class():
            self._finish(run, None)
            raise
        except Exception as exc:
            self._finish(run, exc)
            return
        except (
            BaseException
        ) as exc:  # KeyboardInterrupt and friends: record, then propagate
            self._finish(run, exc)
            raise
        self._finish(run, None)

    def _finish(self, run: Run, error: BaseException | None) -> None:
        if self._done.is_set():
            return
        self._error = error
        outcome = self._outcome
        if (
            outcome is None
        ):  # ended before publishing anything (e.g. a callback's __enter__ failed)
            outcome = _unpublished_outcome(run, error)
        self._outcome = outcome
        with self._lock:
            self._status = _final_status(outcome)
        for end_stream in list(self._streams):
            end_stream(outcome, self._published_outcome)
        self._discard()  # unsubscribe; do not keep the model alive through the handle
        self._done.set()

    def _discard(self) -> None:
        if self._tracker is not None:
            self._tracker.unsubscribe()
            self._tracker = None
        if _active.get(self._bus) is self:
            del _active[self._bus]
        self._model = self._run = None

    # --- inline tracking (training thread) -------------------------------------------

    def _track(self, event: Any) -> None:
        if self._status == "starting":
            self._set_status("running", unless=("stopping", "cancelling"))
        p = self._progress
        replace = msgspec.structs.replace
        if isinstance(event, TrainStepEnd):
            self._progress = replace(
                p, epoch=event.epoch, step=event.step, loss=event.loss
            )
        elif isinstance(event, EvalStepEnd):
            if self.kind == "eval":
                self._progress = replace(p, step=event.step, loss=event.loss)
        elif isinstance(event, TrainEpochEnd):
            metrics = event.metrics if event.metrics is not None else p.metrics
            self._progress = replace(
                p, epoch=event.epoch, step=event.step, metrics=metrics
            )
        elif isinstance(event, EvalEnd):
            self._progress = replace(p, metrics=dict(event.metrics))
        elif isinstance(event, TrainBegin):
            self._progress = replace(
                p, epochs=event.epochs, steps_per_epoch=event.steps_per_epoch
            )
        elif isinstance(event, EvalBegin):
            if self.kind == "eval":
                self._progress = replace(p, steps_per_epoch=event.steps)
        elif isinstance(event, CheckpointSaved):
            self._checkpoints = (*self._checkpoints, event)
        elif isinstance(event, RunEnded):
            self._outcome = event
            self._published_outcome = True
            with (
                self._lock
            ):  # final now: a consumer that saw this event sees the final status
                self._status = _final_status(event)

    def _set_status(self, status: RunStatus, unless: tuple[str, ...] = ()) -> None:
        with self._lock:
            if self._status in _FINAL_NAMES or self._status in unless:
                return
            self._status = status


# --- helpers ---------------------------------------------------------------------


class _Token:
    """Only `start_run` makes handles."""

    value = object()


_FINAL_NAMES = ("completed", "stopped", "failed", "cancelled")


def _final_status(outcome: RunEnded) -> RunStatus:
    name = type(outcome).__name__
    status: RunStatus = (
        "completed" if name == "RunCompleted"
        else "stopped" if name == "RunStopped"
        else "cancelled" if name == "RunCancelled"
        else "failed"
    )  # fmt: skip
    return status


def _unpublished_outcome(run: Run, error: BaseException | None) -> RunEnded:
    """The outcome of a run that ended before publishing its terminal event (e.g. a callback's `__enter__` failed)."""
    if error is None or isinstance(error, Cancelled):
        return terminal_event(run.kind, run.cb, None, "cancelled")
    return terminal_event(run.kind, run.cb, error, "failed")


def _model_method(fn: Any) -> tuple[Model, str]:
    model = getattr(fn, "__self__", None)
    name = getattr(fn, "__name__", None)
    if not isinstance(model, Model) or name not in _METHODS:
        raise TypeError(
            "For 'start_run', the argument 'fn' must be a Model's bound `train_async`, `fit_async` or "
            f"`eval_async` (e.g. `start_run(tg, model.train_async, 2, dataset)`), but got {fn!r}."
        )
    return model, name


def _spawner(task_group: Any) -> Callable[[Callable[[], Awaitable[None]], str], None]:
    if isinstance(task_group, asyncio.TaskGroup):

        def create(fn: Callable[[], Awaitable[None]], name: str) -> None:
            task_group.create_task(_as_coroutine(fn), name=name)

        return create
    start_soon = getattr(task_group, "start_soon", None)
    if not callable(start_soon):
        raise TypeError(
            "For 'start_run', the argument 'task_group' must be an anyio TaskGroup, a trio nursery or an "
            f"asyncio.TaskGroup, but got {task_group!r}."
        )

    def spawn(fn: Callable[[], Awaitable[None]], name: str) -> None:
        start_soon(fn, name=name)

    return spawn


async def _as_coroutine(fn: Callable[[], Awaitable[None]]) -> None:
    await fn()
