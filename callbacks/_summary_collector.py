"""`SummaryCollector`: TensorBoard event files of loss, learning rate, metrics and parameter histograms."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import re
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import (
    Callback,
    DrainTimeoutError,
    RunContext,
    Tensor,
    int32,
    loss_value,
)
from cadence.validation import check_bool, check_positive_int, check_type

from .summary._histogram import HistogramStats, histogram_stats
from .summary._writer import EventFileSink, SummaryBatch, SummaryRecord, file_suffix

if TYPE_CHECKING:
    from cadence import EventBus, Subscription

__all__ = ["SummaryCollector"]

_OWNER = "SummaryCollector"
_DEFAULT_SPECIFIED_DATA: dict[str, Any] = {
    "collect_metric": True,
    "collect_graph": True,
    "collect_train_lineage": True,
    "collect_eval_lineage": True,
    "collect_input_data": True,
    "collect_dataset_graph": True,
    "histogram_regular": None,
    "collect_landscape": None,
}
_BOOL_KEYS = frozenset(
    k for k, v in _DEFAULT_SPECIFIED_DATA.items() if isinstance(v, bool)
)
_DEFAULT_HISTOGRAM_PARAMS = (
    5  # `histogram_regular=None`: the first five trainable parameters, as MindSpore
)
_MAX_DEFAULT_HISTOGRAM_STEPS = (
    20  # `collect_tensor_freq=None`: at most this many histogram steps per run
)
_TENSOR_FORMAT = 'export_options["tensor_format"]'
_CLOSE_TIMEOUT_S = 60.0
_QUEUE_SIZE = 4  # batches waiting for the writer; beyond that the training step waits (bounded memory)
_HANDOFF_S = (
    5.0  # records are handed to the writer at most this often (and at each epoch's end)
)
_run_numbers = itertools.count(
    1
)  # process-wide, so two runs started in the same second get two files


class SummaryCollector(Callback):
    """Write TensorBoard event files: train loss, learning rate, eval metrics and parameter histograms.

    Values are gathered on the training thread only at collection steps (the
    first step and every `collect_freq`-th); building and writing the event
    file happens in a bus worker, so file I/O never runs on the training step.
    Each run (`Model.train`, `fit` or `eval`) writes one new event file under
    `summary_dir`, closed and flushed before the run returns. Read the files
    with TensorBoard (`tensorboard --logdir DIR`) or plot them with
    `cadence summary plot DIR`.

    Tags: `train/loss`, `train/lr` (when the optimizer has a `learning_rate`),
    `eval/<metric>` (at the end of each `fit` epoch with an evaluation pass,
    and at the end of `Model.eval`), and histograms `params/<parameter name>`.

    Args:
        summary_dir: The directory of the event files; created if missing.
        collect_freq: Collect scalars every this many steps (and at step 1).
        num_process: Accepted for compatibility (MindSpore's loss-landscape workers); no effect.
        collect_specified_data: What to collect, a dict with keys among
            `collect_metric` (bool: loss, learning rate and eval metrics),
            `histogram_regular` (str or None: a regular expression matched with
            `re.match` against parameter names; None means the first five trainable
            parameters), and, accepted without effect here, `collect_graph`,
            `collect_train_lineage`, `collect_eval_lineage`, `collect_input_data`,
            `collect_dataset_graph` (bools) and `collect_landscape` (dict or None).
        keep_default_action: Merge `collect_specified_data` into the defaults
            (True) or collect only what it names (False).
        custom_lineage_data: A dict of str to int, float or str, written once per
            run as the text summary `custom_lineage_data`.
        collect_tensor_freq: Collect histograms every this many steps (and at step
            1). None: every `collect_freq` steps, thinned so that a run records
            at most 20 histogram steps.
        max_file_size: Accepted and validated (an int > 0 or None); not enforced.
        export_options: Accepted and validated (`{"tensor_format": None | "npy"}`); no effect.

    Raises:
        TypeError: An argument has the wrong type.
        ValueError: An argument has a wrong value, or `collect_specified_data` an
            unknown key.

    Example:
        >>> from cadence import Model
        >>> from cadence.callbacks import SummaryCollector
        >>> from cadence.testing import ListDataset, constant_network
        >>> import os, tempfile
        >>> logdir = tempfile.mkdtemp()
        >>> Model(constant_network(0.5)).train(1, ListDataset.of_steps(3), callbacks=SummaryCollector(logdir, collect_freq=2))
        >>> [name.startswith("events.out.tfevents.") for name in os.listdir(logdir)]
        [True]
    """

    def __init__(
        self,
        summary_dir: str | os.PathLike[str],
        collect_freq: int = 10,
        num_process: int = 32,
        collect_specified_data: dict[str, Any] | None = None,
        keep_default_action: bool = True,
        custom_lineage_data: dict[str, int | float | str] | None = None,
        collect_tensor_freq: int | None = None,
        max_file_size: int | None = None,
        export_options: dict[str, Any] | None = None,
    ) -> None:
        self._summary_dir = _check_summary_dir(summary_dir)
        self._collect_freq = check_positive_int(collect_freq, "collect_freq", _OWNER)
        self._num_process = check_positive_int(num_process, "num_process", _OWNER)
        self._keep_default_action = check_bool(
            keep_default_action, "keep_default_action", _OWNER
        )
        self._specified = _specified_data(
            collect_specified_data, self._keep_default_action
        )
        self._custom_lineage_data = _check_lineage(custom_lineage_data)
        self._collect_tensor_freq = _optional_positive(
            collect_tensor_freq, "collect_tensor_freq"
        )
        self._max_file_size = _optional_positive(max_file_size, "max_file_size")
        self._export_options = _check_export_options(export_options)
        self._collect_metric = bool(self._specified.get("collect_metric", False))
        self._histograms = "histogram_regular" in self._specified
        # Per run: the sink, its worker subscription and bus, what to histogram and how often.
        self._sink: EventFileSink | None = None
        self._sub: Subscription[SummaryBatch] | None = None
        self._bus: EventBus | None = None
        self._hist_params: list[tuple[str, Any]] = []
        self._hist_freq = 0
        self._next_collect = 1  # the first step that may collect (step 1 always does)
        self._last_train_step = 0
        # Records made on the training thread, not yet handed to the writer.
        self._pending: list[SummaryRecord] = []
        self._next_handoff = 0.0

    @property
    def summary_dir(self) -> str:
        """The directory the event files go to."""
        return self._summary_dir

    @property
    def collect_specified_data(self) -> dict[str, Any]:
        """What this collector was asked to collect, after merging with the defaults."""
        return dict(self._specified)

    # --- hooks ----------------------------------------------------------------------

    def on_train_begin(self, run_context: RunContext) -> None:
        """Open this run's event file and choose the parameters to histogram."""
        cb = run_context.original_args()
        self._open(run_context)
        self._next_collect = 1
        if self._histograms:
            network = cb.get("network") or cb.get("train_network")
            self._hist_params = _histogram_params(
                network, self._specified.get("histogram_regular")
            )
            total = int(cb.get("epoch_num", 0)) * int(cb.get("batch_num", 0))
            self._hist_freq = self._histogram_freq(total) if self._hist_params else 0

    def on_train_step_end(self, run_context: RunContext) -> None:
        """At collection steps, hand the loss, the learning rate and histogram statistics to the writer."""
        cb = run_context.original_args()
        step = cb["cur_step_num"]
        if step < self._next_collect:
            return  # the common case (runs every step): nothing to collect
        hist_freq = self._hist_freq
        freq = self._collect_freq
        due = (step // freq + 1) * freq
        if hist_freq:
            due = min(due, (step // hist_freq + 1) * hist_freq)
        self._next_collect = due
        if step % freq and step != 1 and (not hist_freq or step % hist_freq):
            return
        scalars: dict[str, float] = {}
        if self._collect_metric and (step % freq == 0 or step == 1):
            loss = loss_value(cb.get("net_outputs"))
            if loss is not None:
                scalars["train/loss"] = loss
            lr = _learning_rate(cb.get("optimizer"), step)
            if lr is not None:
                scalars["train/lr"] = lr
        histograms: dict[str, HistogramStats] = {}
        if hist_freq and (step % hist_freq == 0 or step == 1):
            # Measured here, not copied for the writer: one read of each parameter
            # costs less than faulting in fresh memory for a copy (see `_histogram`).
            for name, p in self._hist_params:
                hist = histogram_stats(p.asnumpy())
                if hist is not None:
                    histograms[f"params/{name}"] = hist
        if scalars or histograms:
            self._emit(
                SummaryRecord(
                    sink=id(self._sink),
                    step=step,
                    scalars=scalars,
                    histograms=histograms,
                )
            )

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Write the evaluation metrics of this `fit` epoch, if it had an evaluation pass."""
        cb = run_context.original_args()
        self._last_train_step = cb["cur_step_num"]
        metrics = cb.get("metrics")
        if metrics and self._collect_metric:
            scalars = _metric_scalars(metrics)
            self._emit(
                SummaryRecord(
                    sink=id(self._sink), step=cb["cur_step_num"], scalars=scalars
                )
            )
        self._handoff()

    def on_eval_begin(self, run_context: RunContext) -> None:
        """In `Model.eval`, open the run's event file (an evaluation pass inside `fit` uses fit's)."""
        if "epoch_num" not in run_context.original_args():
            self._open(run_context)

    def on_eval_end(self, run_context: RunContext) -> None:
        """In `Model.eval`, write the metrics at the last training step this collector saw (else 0)."""
        cb = run_context.original_args()
        metrics = cb.get("metrics")
        if "epoch_num" not in cb and metrics and self._collect_metric:
            self._emit(
                SummaryRecord(
                    sink=id(self._sink),
                    step=self._last_train_step,
                    scalars=_metric_scalars(metrics),
                )
            )

    def on_run_ended(self, run_context: RunContext) -> None:
        """Flush and close the event file, whatever the outcome, before the run returns.

        Raises:
            TimeoutError: The writer did not finish within a minute.
        """
        self._handoff()
        sink, sub, bus = self._sink, self._sub, self._bus
        self._sink = self._sub = self._bus = None
        self._hist_params = []
        if sink is None:
            return
        if sub is None or bus is None:
            sink.close()
            return
        try:
            close = SummaryRecord(sink=id(sink), step=0, close=True)
            bus.publish(SummaryBatch(records=(close,)))
            # Draining wakes the writer now, rather than when it next polls its queue.
            with contextlib.suppress(DrainTimeoutError):  # reported just below
                bus.drain_sync(subscriptions=[sub], timeout=_CLOSE_TIMEOUT_S)
            if not sink.closed.is_set():
                raise TimeoutError(
                    f"SummaryCollector: the event file in {self._summary_dir!r} was not closed within "
                    f"{_CLOSE_TIMEOUT_S:g} s; the summary writer is stuck or its worker was stopped."
                )
        finally:
            sub.unsubscribe()

    # --- helpers ---------------------------------------------------------------------

    def _open(self, run_context: RunContext) -> None:
        if self._sink is not None:
            return
        os.makedirs(self._summary_dir, exist_ok=True)
        sink = EventFileSink(self._summary_dir, file_suffix(next(_run_numbers)))
        self._sink = sink
        self._pending = []
        self._next_handoff = time.monotonic() + _HANDOFF_S
        self._bus = bus = run_context.bus
        if bus is not None:  # None: a RunContext built by hand; write inline then
            sink_id = id(sink)
            self._sub = bus.subscribe(
                SummaryBatch,
                sink.handle_batch,
                mode="worker",
                when=lambda record: record.sink == sink_id,
                queue_size=_QUEUE_SIZE,
                name=f"{_OWNER}.writer",
            )
            bus.start_workers()  # before the first step, not inside it
        if self._custom_lineage_data:
            text = json.dumps(self._custom_lineage_data, sort_keys=True)
            self._emit(
                SummaryRecord(
                    sink=id(sink), step=0, texts={"custom_lineage_data": text}
                )
            )

    def _emit(self, record: SummaryRecord) -> None:
        """Queue `record` for the writer; hand the queue over when due."""
        self._pending.append(record)
        if time.monotonic() >= self._next_handoff:
            self._handoff()

    def _handoff(self) -> None:
        # Records go to the worker in bursts, at most every few seconds and as one
        # event: a worker that was handed something polls its queue for a while
        # afterwards, which costs CPU the training step would otherwise have, and
        # one publish per record would make the step wait whenever a burst is
        # longer than the queue.
        pending, self._pending = self._pending, []
        self._next_handoff = time.monotonic() + _HANDOFF_S
        if not pending:
            return
        if self._bus is not None:
            self._bus.publish(SummaryBatch(records=tuple(pending)))
        elif self._sink is not None:
            for record in pending:
                self._sink.handle(record)

    def _histogram_freq(self, total_steps: int) -> int:
        if self._collect_tensor_freq is not None:
            return self._collect_tensor_freq
        freq = self._collect_freq
        if total_steps <= 0:
            return freq
        # The smallest multiple of collect_freq giving at most 20 steps (step 1 included).
        return freq * max(
            1, math.ceil(total_steps / (freq * (_MAX_DEFAULT_HISTOGRAM_STEPS - 1)))
        )


# --- what to collect ------------------------------------------------------------------


def _learning_rate(optimizer: Any, step: int) -> float | None:
    """Return the learning rate the optimizer used for the step just taken, or None if it has none.

    Handles a fixed rate, a per-step list (indexed by the optimizer's
    `global_step`, else by `step`) and a `LearningRateSchedule` cell.
    """
    lr = getattr(optimizer, "learning_rate", None)
    if lr is None:
        return None
    done = _global_step(optimizer, step)
    value: Any = lr
    if callable(lr) and not hasattr(lr, "asnumpy"):
        value = lr(Tensor(max(done - 1, 0), int32))
    try:
        array = np.asarray(
            value.asnumpy() if hasattr(value, "asnumpy") else value, dtype=np.float64
        )
    except (TypeError, ValueError):
        return None
    if array.ndim == 0:
        return float(array)
    if array.ndim == 1 and array.size:
        return float(array[min(max(done - 1, 0), array.size - 1)])
    return None


def _global_step(optimizer: Any, fallback: int) -> int:
    """Steps the optimizer has taken (its `global_step` Parameter), else `fallback`."""
    counter = getattr(optimizer, "global_step", None)
    if counter is None or not hasattr(counter, "asnumpy"):
        return fallback
    return int(np.asarray(counter.asnumpy()).reshape(-1)[0])


def _metric_scalars(metrics: dict[str, Any]) -> dict[str, float]:
    """Return `eval/<name>` scalars; a list-valued metric (per class) gives `eval/<name>/<i>`."""
    scalars: dict[str, float] = {}
    for name, value in metrics.items():
        if isinstance(value, list | tuple | np.ndarray):
            for index, item in enumerate(
                np.asarray(value, dtype=np.float64).reshape(-1)
            ):
                scalars[f"eval/{name}/{index}"] = float(item)
        elif isinstance(value, int | float | np.number) and not isinstance(value, bool):
            scalars[f"eval/{name}"] = float(value)
    return scalars


def _histogram_params(network: Any, regular: str | None) -> list[tuple[str, Any]]:
    """Return `(name, parameter)` of the trainable parameters to histogram."""
    trainable = getattr(network, "trainable_params", None)
    if not callable(trainable):
        return []
    params = [(str(p.name), p) for p in trainable() if hasattr(p, "asnumpy")]
    if regular is None:
        return params[:_DEFAULT_HISTOGRAM_PARAMS]
    pattern = re.compile(regular)
    return [(name, p) for name, p in params if pattern.match(name)]


# --- argument checks ----------------------------------------------------------------


def _check_summary_dir(summary_dir: Any) -> str:
    check_type(summary_dir, "summary_dir", (str, os.PathLike), _OWNER)
    path = os.fspath(summary_dir)
    if not isinstance(path, str) or not path.strip():
        raise ValueError(
            f"For '{_OWNER}', the argument 'summary_dir' must be a non-empty directory path, but got {summary_dir!r}."
        )
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(
            f"For '{_OWNER}', the argument 'summary_dir' must be a directory, but got the file {summary_dir!r}."
        )
    return path


def _optional_positive(value: Any, name: str) -> int | None:
    return None if value is None else check_positive_int(value, name, _OWNER)


def _specified_data(data: Any, keep_default_action: bool) -> dict[str, Any]:
    """Validate `collect_specified_data` and merge it with the defaults when asked to."""
    if data is None:
        return dict(_DEFAULT_SPECIFIED_DATA) if keep_default_action else {}
    check_type(data, "collect_specified_data", dict, _OWNER)
    for key in data:
        if not isinstance(key, str):
            raise TypeError(
                f"For '{_OWNER}', the keys of the argument 'collect_specified_data' must be str, but got {key!r}."
            )
    unknown = sorted(set(data) - set(_DEFAULT_SPECIFIED_DATA))
    if unknown:
        raise ValueError(
            f"For '{_OWNER}', the argument 'collect_specified_data' must have keys among "
            f"{list(_DEFAULT_SPECIFIED_DATA)}, but got the unsupported keys {unknown!r}."
        )
    for key, value in data.items():
        _check_specified_value(key, value)
    return {**_DEFAULT_SPECIFIED_DATA, **data} if keep_default_action else dict(data)


def _check_specified_value(key: str, value: Any) -> None:
    name = f'collect_specified_data["{key}"]'
    if key in _BOOL_KEYS:
        check_bool(value, name, _OWNER)
    elif key == "histogram_regular" and value is not None:
        check_type(value, name, str, _OWNER)
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(
                f"For '{_OWNER}', the argument '{name}' must be a valid regular expression, but got {value!r} ({exc})."
            ) from None
    elif key == "collect_landscape" and value is not None:
        check_type(value, name, dict, _OWNER)


def _check_lineage(data: Any) -> dict[str, int | float | str] | None:
    if data is None:
        return None
    check_type(data, "custom_lineage_data", dict, _OWNER)
    for key, value in data.items():
        if not isinstance(key, str):
            raise TypeError(
                f"For '{_OWNER}', the keys of the argument 'custom_lineage_data' must be str, but got {key!r}."
            )
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise TypeError(
                f"For '{_OWNER}', the values of the argument 'custom_lineage_data' must be int, float or str, "
                f"but got {value!r} of type {type(value).__name__!r} for key {key!r}."
            )
    return dict(data)


def _check_export_options(options: Any) -> dict[str, Any] | None:
    if options is None:
        return None
    check_type(options, "export_options", dict, _OWNER)
    unknown = sorted(str(k) for k in set(options) - {"tensor_format"})
    if unknown:
        raise ValueError(
            f"For '{_OWNER}', the argument 'export_options' must have keys among ['tensor_format'], but got the unsupported keys {unknown!r}."
        )
    fmt = options.get("tensor_format")
    if fmt is not None and fmt != "npy":
        raise ValueError(
            f"For '{_OWNER}', the argument '{_TENSOR_FORMAT}' must be None or 'npy', but got {fmt!r}."
        )
    return dict(options)
