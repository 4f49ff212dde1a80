"""The epoch/step loops of `Model.train`, `fit` and `eval`: they publish events and honour stops.

Hook order, `cb_params` keys and counters, stop and exception semantics follow
MindSpore 2.10 (see docs/events.md for the termination table).
"""

from __future__ import annotations

import math
import threading
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import anyio

from . import _events as ev
from ._callback_bridge import EVAL_HOOKS, TRAIN_HOOKS, CallbackSet
from ._loss_value import loss_value
from ._parallel_context import is_data_parallel
from ._run_context import RunContext
from .communication._metric_states import snapshot_metrics
from .communication._vote import any_rank

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from ._bus import EventBus
    from ._callback import Callback
    from ._cb_params import CallbackParams
    from ._events import RunKind

__all__ = ["Cancelled", "EvalSpec", "Run"]


class Cancelled(BaseException):
    """Raised inside the training thread when the host cancelled an async run."""


def _train_step_end(
    epoch: int, step: int, step_in_epoch: int, outputs: Any
) -> ev.TrainStepEnd:
    return ev.TrainStepEnd(
        epoch=epoch, step=step, step_in_epoch=step_in_epoch, loss=loss_value(outputs)
    )


def iterate(dataset: Any) -> Iterator[Any]:
    """Iterate one epoch of `dataset` as MindSpore's tuple iterator would."""
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


class EvalSpec:
    """What an evaluation pass needs: network, metrics and how outputs feed them."""

    def __init__(
        self,
        network: Callable[..., Any],
        metrics: dict[str, Any],
        eval_indexes: list[int] | None,
    ) -> None:
        self.network = network
        self.metrics = metrics
        self.eval_indexes = eval_indexes

    def update(self, outputs: Any) -> None:
        """Feed one step's outputs to every metric, as MindSpore's `Model._update_metrics`."""
        if not isinstance(outputs, tuple | list):
            outputs = (outputs,)
        idx = self.eval_indexes
        for metric in self.metrics.values():
            if idx is None:
                metric.update(*outputs)
            elif (
                getattr(metric, "_cadence_loss_metric", False)
                or type(metric).__name__ == "Loss"
            ):
                metric.update(outputs[idx[0]])
            else:
                metric.update(outputs[idx[1]], outputs[idx[2]])

    def results(self) -> dict[str, Any]:
        """Return `{name: value}` from every metric, numpy values as Python numbers or lists."""
        out: dict[str, Any] = {}
        for name, metric in self.metrics.items():
            value = metric.eval()
            out[name] = value.tolist() if hasattr(value, "tolist") else value
        return out


class Run:
    """One call of `train`, `fit` or `eval`: the loop, its events and its finalization.

    `execute()` runs synchronously in whatever thread calls it; the async forms
    call it in a worker thread and may `cancel()` it from the event loop.
    """

    def __init__(
        self,
        *,
        kind: RunKind,
        bus: EventBus,
        callbacks: list[Callback],
        cb_params: CallbackParams,
        drain_timeout: float | None,
    ) -> None:
        self.kind: RunKind = kind
        self.bus = bus
        self.callbacks = CallbackSet(bus, callbacks)
        self.cb = cb_params
        self.rc = self.context()
        self.drain_timeout = drain_timeout
        self._cancel = threading.Event()
        self.train_network: Callable[..., Any] | None = None
        self.train_dataset: Any = None
        self.epoch = 0
        self.initial_epoch = 0
        self.eval_spec: EvalSpec | None = None
        self.valid_dataset: Any = None
        self.valid_frequency: int | list[int] = 1
        self.outcome = "completed"
        self.result: Any = None
        self._eval_loss = math.nan
        self._stop_published = False

    def context(self) -> RunContext:
        """Return a new RunContext over this run's `cb_params`, connected to its bus."""
        rc = RunContext(self.cb)
        rc._bus = self.bus
        return rc

    def cancel(self) -> None:
        """Ask the loop to end as cancelled at its next step boundary (thread-safe)."""
        self._cancel.set()

    # --- the run as a whole ------------------------------------------------------

    def execute(self) -> Any:
        """Run the loop with its callbacks entered and finalized; return `eval`'s metrics, else None."""
        stack = ExitStack()
        error: BaseException | None = None
        with stack:
            self.callbacks.enter(stack)
            final_subs = self.callbacks.subscribe_final(self.rc)
            try:
                self._body()
                self.bus.drain_sync(timeout=self.drain_timeout)
                self.outcome = (
                    "stopped" if self.rc.get_stop_requested() else "completed"
                )
            except BaseException as exc:
                self.outcome = "cancelled" if _is_cancellation(exc) else "failed"
                error = exc
            finally:
                self._finalize(error, final_subs)
            if error is not None:
                raise error
        if self.callbacks.final_errors and error is None:
            _raise_all(self.callbacks.final_errors)
        return self.result

    def _finalize(self, error: BaseException | None, final_subs: list[Any]) -> None:
        cb = self.cb
        cb["outcome"] = self.outcome
        if error is not None:
            cb["exception"] = error
        terminal: ev.RunEnded
        common: dict[str, Any] = {
            "kind": self.kind,
            "epoch": cb.get("cur_epoch_num"),
            "step": cb.get("cur_step_num", 0),
        }
        if self.outcome == "failed" and error is not None:
            cls = type(error)
            terminal = ev.RunFailed(
                error_type=f"{cls.__module__}.{cls.__qualname__}",
                message=str(error),
                **common,
            )
        elif self.outcome == "cancelled":
            terminal = ev.RunCancelled(**common)
        elif self.outcome == "stopped":
            terminal = ev.RunStopped(**common)
        else:
            terminal = ev.RunCompleted(**common)
        try:
            self.bus.publish(terminal)
            timeout = (
                self.drain_timeout if error is None else (self.drain_timeout or 30.0)
            )
            self.bus.finish_run(timeout=timeout)
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

    # --- phases -------------------------------------------------------------------

    def _body(self) -> None:
        if self.kind == "eval":
            assert self.eval_spec is not None
            self.result = self._eval_phase(self.rc, epoch=None)
        else:
            self._train_phase()

    def _boundary(self) -> None:
        # Checked after every step: cancellation first, then worker failures.
        if self._cancel.is_set():
            raise Cancelled("the run was cancelled by its host")
        if self.bus.has_worker_errors:
            self.bus.raise_worker_errors()

    def _train_phase(self) -> None:
        bus, cb, rc = self.bus, self.cb, self.rc
        network = self.train_network
        assert network is not None
        subs = self.callbacks.subscribe(TRAIN_HOOKS, rc)
        _set_train(network, True)
        try:
            version = -1
            wants_begin = wants_end = True
            rc._resume_limit = self.epoch
            try:
                bus.publish(
                    ev.TrainBegin(
                        epochs=self.epoch,
                        initial_epoch=self.initial_epoch,
                        steps_per_epoch=cb["batch_num"],
                    )
                )
            finally:
                rc._resume_limit = None
            if rc._resume_epoch is not None and rc._resume_epoch > self.initial_epoch:
                self.initial_epoch = rc._resume_epoch
                cb["epoch_num"] = self.epoch - self.initial_epoch
            batch_num = cb["batch_num"]
            needs_two = cb.get("loss_fn") is not None
            for epoch in range(self.initial_epoch + 1, self.epoch + 1):
                cb["cur_epoch_num"] = epoch
                bus.publish(ev.TrainEpochBegin(epoch=epoch))
                step_in_epoch = 0
                for batch in iterate(self.train_dataset):
                    try:
                        batch = list(batch)
                    except TypeError as exc:
                        raise _batch_error(
                            exc, self.kind, "train_dataset", batch
                        ) from None
                    if needs_two and len(batch) != 2:
                        raise ValueError(
                            "When 'loss_fn' is not None, 'train_dataset' should return two elements, but got "
                            f"{len(batch)}, please check the number of elements returned by 'train_dataset'."
                        )
                    step = cb["cur_step_num"] + 1
                    step_in_epoch += 1
                    cb["cur_step_num"] = step
                    cb["train_dataset_element"] = batch
                    if (
                        bus.version != version
                    ):  # subscriptions changed: re-ask who listens
                        version = bus.version
                        wants_begin, wants_end = (
                            bus.wants(ev.TrainStepBegin),
                            bus.wants(ev.TrainStepEnd),
                        )
                    if wants_begin:
                        bus.publish(
                            ev.TrainStepBegin(
                                epoch=epoch, step=step, step_in_epoch=step_in_epoch
                            )
                        )
                    outputs = network(*batch)
                    cb["net_outputs"] = outputs
                    if wants_end:
                        bus._publish_lazy(
                            ev.TrainStepEnd,
                            _train_step_end,
                            (epoch, step, step_in_epoch, outputs),
                        )
                    self._boundary()
                    if self._stop_now():
                        break
                if step_in_epoch and batch_num <= 0:
                    batch_num = step_in_epoch
                self._maybe_eval(epoch)
                self._reset(self.train_dataset)
                self._publish_stop_once()
                bus.publish(
                    ev.TrainEpochEnd(
                        epoch=epoch,
                        step=cb["cur_step_num"],
                        loss=loss_value(cb.get("net_outputs")),
                        metrics=cb.get("metrics"),
                    )
                )
                cb.pop("metrics", None)
                cb.pop("eval_results", None)
                self._publish_stop_once()
                if self._stop_now():
                    break
            bus.publish(
                ev.TrainEnd(
                    epoch=cb.get("cur_epoch_num", self.initial_epoch),
                    step=cb["cur_step_num"],
                )
            )
        finally:
            for sub in subs:
                sub.unsubscribe()

    def _stop_now(self) -> bool:
        """Return whether training stops here: in a data-parallel job, when any rank asked to."""
        if not is_data_parallel():
            return self.rc._stop_requested
        # Every rank reaches this boundary and votes, so all stop at the same step.
        if any_rank(self.rc._stop_requested, "stop vote"):
            self.rc.request_stop()
            return True
        return False

    def _publish_stop_once(self) -> None:
        if self.rc._stop_requested and not self._stop_published:
            self._stop_published = True
            self.bus.publish(
                ev.StopRequested(
                    phase="train",
                    epoch=self.cb.get("cur_epoch_num"),
                    step=self.cb["cur_step_num"],
                )
            )

    def _maybe_eval(self, epoch: int) -> None:
        if self.valid_dataset is None or self.eval_spec is None:
            return
        freq = self.valid_frequency
        due = epoch in freq if isinstance(freq, list) else epoch % freq == 0
        if not due:
            return
        cb = self.cb
        saved = {
            k: cb[k]
            for k in ("cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs")
            if k in cb
        }
        cb["eval_network"] = self.eval_spec.network
        cb["valid_dataset"] = self.valid_dataset
        cb["batch_num"] = dataset_size(self.valid_dataset)
        cb["mode"] = "eval"
        cb["cur_step_num"] = 0
        eval_rc = self.context()
        with ExitStack() as stack:
            nested = CallbackSet(self.bus, self.callbacks.callbacks, checked=True)
            nested.enter(stack)
            self._eval_phase(eval_rc, epoch=epoch)  # sets `metrics` and `eval_results`
        _set_train(self.train_network, True)
        cb.update(saved)
        cb["mode"] = "train"

    def _eval_phase(self, rc: RunContext, *, epoch: int | None) -> dict[str, Any]:
        bus, cb = self.bus, self.cb
        spec = self.eval_spec
        assert spec is not None
        subs = self.callbacks.subscribe(EVAL_HOOKS, rc)
        _set_train(spec.network, False)
        try:
            for metric in spec.metrics.values():
                metric.clear()
            # fit's metrics are the whole validation set's, over every rank's shard.
            states = (
                snapshot_metrics(spec.metrics)
                if epoch is not None and is_data_parallel()
                else None
            )
            cb["dataset_sink_mode"] = False
            bus.publish(ev.EvalBegin(epoch=epoch, steps=cb["batch_num"]))
            bus.publish(ev.EvalEpochBegin(epoch=epoch))
            wants_begin, wants_end = (
                bus.wants(ev.EvalStepBegin),
                bus.wants(ev.EvalStepEnd),
            )
            loss_sum, loss_n = 0.0, 0
            for batch in iterate(self.valid_dataset):
                try:
                    batch = list(batch)
                except TypeError as exc:
                    raise _batch_error(exc, self.kind, "valid_dataset", batch) from None
                step = cb["cur_step_num"] + 1
                cb["cur_step_num"] = step
                cb["eval_dataset_element"] = batch
                if wants_begin:
                    bus.publish(ev.EvalStepBegin(epoch=epoch, step=step))
                outputs = spec.network(*batch)
                cb["net_outputs"] = outputs
                loss = loss_value(outputs)
                if wants_end:
                    bus.publish(ev.EvalStepEnd(epoch=epoch, step=step, loss=loss))
                spec.update(outputs)
                if loss is not None:
                    loss_sum, loss_n = loss_sum + loss, loss_n + 1
                self._boundary()
                if rc._stop_requested:
                    break
            bus.publish(ev.EvalEpochEnd(epoch=epoch, step=cb["cur_step_num"]))
            self._reset(self.valid_dataset)
            if states is not None:
                states.reduce()
                loss_sum, loss_n = states.reduce_mean_parts(loss_sum, loss_n)
            metrics = spec.results()
            cb["metrics"] = metrics
            self._eval_loss = loss_sum / loss_n if loss_n else math.nan
            if epoch is not None:  # fit: from `on_eval_end` on, as in MindSpore
                cb["eval_results"] = {**metrics, "eval_loss": self._eval_loss}
            bus.publish(
                ev.EvalEnd(epoch=epoch, step=cb["cur_step_num"], metrics=metrics)
            )
            return metrics
        finally:
            for sub in subs:
                sub.unsubscribe()

    @staticmethod
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
