"""`Run`: one `train`, `fit` or `eval` call, its loop, its events and its finalization, top to bottom.

Hook order, `cb_params` keys and counters, stop and exception semantics follow
MindSpore 2.10 (see docs/events.md for the termination table). Read it in order:
`execute` (the run as a whole), `_train` (epochs), `_train_epoch` (steps),
`_evaluate_in_fit` and `_evaluate` (an evaluation pass), `_finalize` (the end).
"""

from __future__ import annotations

import math
import threading
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import anyio

from ..bus import _events as ev
from ..communication._metric_states import snapshot_metrics
from ..communication._parallel_context import is_data_parallel
from ..communication._vote import any_rank, deferring_sync
from ._callback_bridge import EVAL_HOOKS, TRAIN_HOOKS, CallbackSet
from ._cb_params import evaluation_pass, for_run
from ._loss_value import loss_value
from ._run_context import loop_context
from ._run_control import RunControl

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from ..bus._bus import EventBus
    from ..bus._events import RunKind
    from ._run_context import RunContext
    from ._run_spec import RunSpec

__all__ = ["Cancelled", "Run", "dataset_size", "terminal_event"]


class Cancelled(BaseException):
    """Raised inside the training thread when the host cancelled an async run."""


class Run:
    """One call of `train`, `fit` or `eval`, built from its `RunSpec`.

    `execute()` runs synchronously in whatever thread calls it; the async forms
    call it in a worker thread and may `cancel()` it from the event loop. A run
    started from a hook of another run on the same thread (`Model.eval` inside a
    training callback) is nested in it: `parent` is that run.
    """

    def __init__(
        self, spec: RunSpec, bus: EventBus, *, parent: Run | None = None
    ) -> None:
        self.spec = spec
        self.kind: RunKind = spec.kind
        self.bus = bus
        self.parent = parent
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.callbacks = CallbackSet(bus, spec.callbacks, spec.where)
        self.cb = for_run(spec, self.callbacks.callbacks)
        self.control = RunControl()
        self.rc = loop_context(self.cb, bus, self.control)
        # The outermost run: the host cancels it, and every run nested in it ends too.
        self.root: Run = self if parent is None else parent.root
        self.thread: int | None = None  # the thread executing it, while it runs
        # The network last put in training or inference mode, and which mode.
        self.mode: tuple[Any, bool] | None = None
        self.outcome = "completed"
        self.result: Any = None
        self._stop_published = False
        # Stops are collective in a data-parallel job: every rank votes at every boundary.
        self._data_parallel = is_data_parallel()
        # Whether anyone listens to the step events, as of bus version `_wants_version`.
        self._wants_version = -1
        self._wants_begin = self._wants_end = True
        self._needs_two = spec.loss_fn is not None  # MindSpore's check of each batch

    def request_stop(self) -> None:
        """Ask the loop to stop at its next step boundary (thread-safe), as `request_stop()` in a hook does."""
        self.control.request_stop()

    def cancel(self) -> None:
        """Ask the loop to end as cancelled at its next step boundary (thread-safe)."""
        self.root.control.cancel()

    # --- the run as a whole ------------------------------------------------------

    def execute(self) -> Any:
        """Run the loop with its callbacks entered and finalized; return `eval`'s metrics, else None."""
        self.thread = threading.get_ident()
        error: BaseException | None = None
        with ExitStack() as stack:
            self.callbacks.enter(stack)
            final_subs = [] if self.parent else self.callbacks.subscribe_final(self.rc)
            try:
                if self.kind == "eval":
                    self.result = self._evaluate(None, self.rc, self.control)
                else:
                    self._train()
                self.bus.drain_sync(timeout=self.spec.drain_timeout)
                self.outcome = "stopped" if self.control.stop_requested else "completed"
            except BaseException as exc:
                self.outcome = "cancelled" if _is_cancellation(exc) else "failed"
                error = exc
            finally:
                self.thread = None
                if self.parent is None:
                    self._finalize(error, final_subs)
                else:
                    self._finalize_nested(error)
            if error is not None:
                raise error
        if self.callbacks.final_errors and error is None:
            _raise_all(self.callbacks.final_errors)
        return self.result

    # --- training: epochs, then steps ---------------------------------------------

    def _train(self) -> None:
        spec, cb, bus = self.spec, self.cb, self.bus
        network = spec.train_network
        assert network is not None
        with self.callbacks.hooks(TRAIN_HOOKS, self.rc, self.control):
            self._set_mode(network, training=True)
            with self.control.resume_window(spec.epochs):
                bus.publish(
                    ev.TrainBegin(
                        epochs=spec.epochs,
                        initial_epoch=spec.initial_epoch,
                        steps_per_epoch=cb["batch_num"],
                    )
                )
            first = self._first_epoch()
            for epoch in range(first, spec.epochs + 1):
                self._train_epoch(epoch, network)
                if self._stop_now():
                    break
            bus.publish(
                ev.TrainEnd(
                    epoch=cb.get("cur_epoch_num", first - 1), step=cb["cur_step_num"]
                )
            )

    def _first_epoch(self) -> int:
        """The first epoch to run: after `initial_epoch`, or later if `on_train_begin` resumed."""
        done = self.spec.initial_epoch
        resumed = self.control.resume_epoch
        if resumed is not None and resumed > done:
            done = resumed
            self.cb["epoch_num"] = self.spec.epochs - done
        return done + 1

    def _train_epoch(self, epoch: int, network: Any) -> None:
        """One training epoch: its steps, then `fit`'s evaluation pass, then its end events."""
        cb, control, publish = self.cb, self.control, self.bus.publish
        cb["cur_epoch_num"] = epoch
        publish(ev.TrainEpochBegin(epoch=epoch))
        train_step = self._train_step
        for step_in_epoch, item in enumerate(_epoch(self.spec.train_dataset), 1):
            train_step(epoch, step_in_epoch, item, network)
            # `_stop_now()`, inlined: one call less on every step.
            if self._vote_stop() if self._data_parallel else control.stop_requested:
                break
        if self.spec.evaluates_after(epoch):
            self._evaluate_in_fit(epoch)
        _reset(self.spec.train_dataset)
        self._notice_stop()
        publish(
            ev.TrainEpochEnd(
                epoch=epoch,
                step=cb["cur_step_num"],
                loss=loss_value(cb.get("net_outputs")),
                metrics=cb.get("metrics"),
            )
        )
        # An evaluation pass's results live until the end of its epoch.
        cb.pop("metrics", None)
        cb.pop("eval_results", None)
        self._notice_stop()

    def _train_step(
        self, epoch: int, step_in_epoch: int, item: Any, network: Any
    ) -> None:
        """One training step: count it, publish `TrainStepBegin`, call the network, publish `TrainStepEnd`."""
        try:
            batch = list(item)
        except TypeError as exc:
            raise _batch_error(exc, self.kind, "train_dataset", item) from None
        if self._needs_two and len(batch) != 2:
            raise ValueError(
                "When 'loss_fn' is not None, 'train_dataset' should return two elements, but got "
                f"{len(batch)}, please check the number of elements returned by 'train_dataset'."
            )
        cb, bus = self.cb, self.bus
        # Read back, not counted here: a hook may have moved the counter.
        step = cb["cur_step_num"] + 1
        cb["cur_step_num"] = step
        cb["train_dataset_element"] = batch
        if bus.version != self._wants_version:  # subscriptions changed: ask again
            self._wants_version = bus.version
            self._wants_begin = bus.wants(ev.TrainStepBegin)
            self._wants_end = bus.wants(ev.TrainStepEnd)
        if self._wants_begin:
            bus.publish(
                ev.TrainStepBegin(epoch=epoch, step=step, step_in_epoch=step_in_epoch)
            )
        if self._data_parallel:
            # Nothing reads the weights before the stop vote unless TrainStepEnd has a
            # listener: then the vote may be the step's last barrier (communication/_vote.py).
            with deferring_sync(not self._wants_end):
                outputs = network(*batch)
        else:
            outputs = network(*batch)
        cb["net_outputs"] = outputs
        if self._wants_end:  # built (with its loss) only if someone takes the event
            bus.publish_lazy(
                ev.TrainStepEnd, _train_step_end, (epoch, step, step_in_epoch, outputs)
            )
        # The step boundary (as `_boundary`, inlined: this runs every step of every run).
        if self.control.cancelled:
            raise Cancelled("the run was cancelled by its host")
        if bus.has_worker_errors:
            bus.raise_worker_errors()

    def _boundary(self) -> None:
        # Checked after every step: cancellation first, then worker failures.
        if self.root.control.cancelled:
            raise Cancelled("the run was cancelled by its host")
        if self.bus.has_worker_errors:
            self.bus.raise_worker_errors()

    def _stop_now(self) -> bool:
        """Return whether training stops at this boundary (in a data-parallel job: whether any rank asked)."""
        return self._vote_stop() if self._data_parallel else self.control.stop_requested

    def _vote_stop(self) -> bool:
        # Every rank reaches this boundary and votes, so all stop at the same step.
        if any_rank(self.control.stop_requested, "stop vote"):
            self.control.request_stop()
            return True
        return False

    def _notice_stop(self) -> None:
        """Publish `StopRequested` once, when the loop first sees a stop request at an epoch's end."""
        if self.control.stop_requested and not self._stop_published:
            self._stop_published = True
            self.bus.publish(
                ev.StopRequested(
                    phase="train",
                    epoch=self.cb.get("cur_epoch_num"),
                    step=self.cb["cur_step_num"],
                )
            )

    def _set_mode(self, network: Any, *, training: bool) -> None:
        """Put `network` in training or inference mode, remembered so a nested evaluation can give it back."""
        self.mode = (network, training)
        _set_train(network, training)

    # --- evaluation ------------------------------------------------------------------

    def _evaluate_in_fit(self, epoch: int) -> None:
        """`fit`'s evaluation pass after `epoch`: own RunContext, callbacks entered again, as MindSpore."""
        spec = self.spec
        assert spec.evaluation is not None
        control = RunControl()  # a stop in the pass ends the pass, not the training
        rc = loop_context(self.cb, self.bus, control)
        with (
            evaluation_pass(
                self.cb, spec.evaluation, spec.valid_dataset, spec.valid_steps
            ),
            ExitStack() as stack,
        ):
            self.callbacks.enter(stack)
            self._evaluate(epoch, rc, control)  # sets `metrics` and `eval_results`
        self._set_mode(spec.train_network, training=True)

    def _evaluate(
        self, epoch: int | None, rc: RunContext, control: RunControl
    ) -> dict[str, Any]:
        """One evaluation pass over the validation dataset; return its metrics."""
        spec, bus, cb, depth = self.spec.evaluation, self.bus, self.cb, self.depth
        assert spec is not None
        with self.callbacks.hooks(EVAL_HOOKS, rc, control, depth=depth):
            self._set_mode(spec.network, training=False)
            for metric in spec.metrics.values():
                metric.clear()
            # fit's metrics are the whole validation set's, over every rank's shard.
            states = (
                snapshot_metrics(spec.metrics)
                if epoch is not None and self._data_parallel
                else None
            )
            cb["dataset_sink_mode"] = False
            bus.publish(ev.EvalBegin(epoch=epoch, steps=cb["batch_num"], depth=depth))
            bus.publish(ev.EvalEpochBegin(epoch=epoch, depth=depth))
            wants_begin = bus.wants(ev.EvalStepBegin)
            wants_end = bus.wants(ev.EvalStepEnd)
            loss_sum, loss_n = 0.0, 0
            for item in _epoch(self.spec.valid_dataset):
                try:
                    batch = list(item)
                except TypeError as exc:
                    raise _batch_error(exc, self.kind, "valid_dataset", item) from None
                step = cb["cur_step_num"] + 1
                cb["cur_step_num"] = step
                cb["eval_dataset_element"] = batch
                if wants_begin:
                    bus.publish(ev.EvalStepBegin(epoch=epoch, step=step, depth=depth))
                outputs = spec.network(*batch)
                cb["net_outputs"] = outputs
                loss = loss_value(outputs)
                if wants_end:
                    bus.publish(
                        ev.EvalStepEnd(epoch=epoch, step=step, loss=loss, depth=depth)
                    )
                spec.update(outputs)
                if loss is not None:
                    loss_sum, loss_n = loss_sum + loss, loss_n + 1
                self._boundary()
                if control.stop_requested:
                    break
            bus.publish(
                ev.EvalEpochEnd(epoch=epoch, step=cb["cur_step_num"], depth=depth)
            )
            _reset(self.spec.valid_dataset)
            if states is not None:
                states.reduce()
                loss_sum, loss_n = states.reduce_mean_parts(loss_sum, loss_n)
            metrics = spec.results()
            cb["metrics"] = metrics
            if epoch is not None:  # fit: from `on_eval_end` on, as in MindSpore
                eval_loss = loss_sum / loss_n if loss_n else math.nan
                cb["eval_results"] = {**metrics, "eval_loss": eval_loss}
            bus.publish(
                ev.EvalEnd(
                    epoch=epoch, step=cb["cur_step_num"], metrics=metrics, depth=depth
                )
            )
            return metrics

    # --- the end ---------------------------------------------------------------------

    def _finalize(self, error: BaseException | None, final_subs: list[Any]) -> None:
        """Publish the terminal event, wait for worker subscribers, detach the final hooks."""
        self.cb["outcome"] = self.outcome
        if error is not None:
            self.cb["exception"] = error
        try:
            self.bus.publish(terminal_event(self.kind, self.cb, error, self.outcome))
            timeout = self.spec.drain_timeout
            self.bus.finish_run(timeout=timeout if error is None else (timeout or 30.0))
        except BaseException as exc:
            if error is None:
                raise
            error.add_note(
                f"cadence: while finalizing, also: {type(exc).__name__}: {exc}"
            )
        finally:
            for sub in final_subs:
                sub.unsubscribe()
            if error is not None:
                for late in self.callbacks.final_errors:
                    error.add_note(
                        f"cadence: during finalization {type(late).__name__}: {late}"
                    )

    def _finalize_nested(self, error: BaseException | None) -> None:
        """A nested run publishes no terminal event (its parent's ends the run): final hooks are called directly.

        The evaluation put the shared backbone in inference mode; the parent's mode comes back.
        """
        assert self.parent is not None
        if self.parent.mode is not None:
            network, training = self.parent.mode
            _set_train(network, training)
        self.cb["outcome"] = self.outcome
        if error is not None:
            self.cb["exception"] = error
        self.callbacks.call_final(self.rc, failed=self.outcome == "failed")
        if error is not None:
            for late in self.callbacks.final_errors:
                error.add_note(
                    f"cadence: during finalization {type(late).__name__}: {late}"
                )


# --- helpers the loop reads through --------------------------------------------------


def terminal_event(
    kind: RunKind, cb: dict[str, Any], error: BaseException | None, outcome: str
) -> ev.RunEnded:
    """The one `RunEnded` event a run ends with, for `outcome` ("completed", "stopped", "cancelled", "failed")."""
    epoch, step = cb.get("cur_epoch_num"), cb.get("cur_step_num", 0)
    if outcome == "failed" and error is not None:
        cls = type(error)
        return ev.RunFailed(
            kind=kind, epoch=epoch, step=step, message=str(error),
            error_type=f"{cls.__module__}.{cls.__qualname__}",
        )  # fmt: skip
    if outcome == "cancelled":
        return ev.RunCancelled(kind=kind, epoch=epoch, step=step)
    if outcome == "stopped":
        return ev.RunStopped(kind=kind, epoch=epoch, step=step)
    return ev.RunCompleted(kind=kind, epoch=epoch, step=step)


def _train_step_end(
    epoch: int, step: int, step_in_epoch: int, outputs: Any
) -> ev.TrainStepEnd:
    return ev.TrainStepEnd(
        epoch=epoch, step=step, step_in_epoch=step_in_epoch, loss=loss_value(outputs)
    )


def _epoch(dataset: Any) -> Iterator[Any]:
    """Iterate one epoch of `dataset` as MindSpore's tuple iterator would (the loop makes each batch a list)."""
    if hasattr(dataset, "create_tuple_iterator"):
        return iter(dataset.create_tuple_iterator(num_epochs=1))
    return iter(dataset)


def _batch_error(exc: TypeError, kind: str, name: str, batch: Any) -> TypeError:
    """What to raise when `list(batch)` raised `exc`: a batch's own error as it is, else "not a batch"."""
    if hasattr(batch, "__iter__"):  # an error of the batch's own iteration
        return exc
    return TypeError(
        f"For 'Model.{kind}', each item of '{name}' must be a batch: a tuple or list of columns "
        f"(e.g. `(images, labels)`), but got {batch!r} of type {type(batch).__name__!r}."
    )


def dataset_size(dataset: Any) -> int:
    """Return the number of batches per epoch (`get_dataset_size()`, else `len()`)."""
    if hasattr(dataset, "get_dataset_size"):
        return int(dataset.get_dataset_size())
    return len(dataset)


def _reset(dataset: Any) -> None:
    reset = getattr(dataset, "reset", None)
    if callable(reset):
        reset()


def _set_train(network: Any, training: bool) -> None:
    set_train = getattr(network, "set_train", None)
    if callable(set_train):
        set_train(training)


def _is_cancellation(exc: BaseException) -> bool:
    if isinstance(exc, Cancelled | KeyboardInterrupt):
        return True
    try:
        return isinstance(exc, anyio.get_cancelled_exc_class())
    except Exception:  # no event loop running in this thread
        return False


def _raise_all(errors: Iterable[BaseException]) -> None:
    items = list(errors)
    if len(items) == 1:
        raise items[0]
    raise BaseExceptionGroup("several callbacks failed during run finalization", items)
