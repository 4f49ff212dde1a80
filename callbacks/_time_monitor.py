"""`TimeMonitor`: print how long each training and evaluation epoch took."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from cadence import Callback
from cadence.validation import check_bool, check_positive_int

if TYPE_CHECKING:
    from cadence import RunContext

__all__ = ["TimeMonitor"]


class _Timer:
    """Timing of one phase (train or eval): epoch start, data-fetch time, time to leave out."""

    __slots__ = ("data_start", "data_sum", "excluded", "start")

    def __init__(self) -> None:
        self.start = self.data_start = time.perf_counter()
        self.data_sum = 0.0
        self.excluded = 0.0

    def restart(self) -> None:
        self.start = self.data_start = time.perf_counter()
        self.data_sum = 0.0
        self.excluded = 0.0

    # The step hooks of the phase (with `data_time`): the time between one step's end and
    # the next step's begin is the time spent waiting for data.
    def step_begin(self, run_context: RunContext) -> None:
        """Add the time since the previous step ended (data fetching)."""
        self.data_sum += time.perf_counter() - self.data_start

    def step_end(self, run_context: RunContext) -> None:
        """Mark when waiting for the next batch starts."""
        self.data_start = time.perf_counter()


class TimeMonitor(Callback):
    """Print each epoch's time and time per step; optionally the data-loading time per step.

    Lines (to stdout, flushed):
    `Train epoch time: 188.092 ms, per step time: 94.046 ms`, with `data_time=True`
    followed by ` (data time: 12.589 ms)`, and `Eval epoch time: ...` for evaluation
    epochs (in `Model.eval` and in `Model.fit`'s evaluation passes). In `fit` the
    train epoch time covers the training steps only; the evaluation pass is timed
    on its own line (MindSpore measured the evaluation pass as the train epoch).

    Args:
        data_size: Steps per epoch, used only when `cb_params.batch_num` is not a
            positive int (it always is in cadence's own loops).
        data_time: Also print the average time per step spent waiting for data.

    Raises:
        TypeError: `data_time` is not a bool, or `data_size` not None or an int.
        ValueError: `data_size` is an int <= 0.

    Example:
        >>> from cadence import Model
        >>> from cadence.callbacks import TimeMonitor
        >>> from cadence.testing import ListDataset, constant_network
        >>> Model(constant_network()).train(1, ListDataset.of_steps(2), callbacks=TimeMonitor())  # doctest: +SKIP
        Train epoch time: 0.091 ms, per step time: 0.046 ms
    """

    def __init__(self, data_size: int | None = None, data_time: bool = False) -> None:
        size: object = data_size  # checked at run time: callers are not type-checked
        if size is not None and (not isinstance(size, int) or isinstance(size, bool)):
            raise TypeError(
                "For 'TimeMonitor', the argument 'data_size' must be None or an int > 0, "
                f"but got {data_size!r} of type {type(data_size).__name__!r}."
            )
        if size is not None and size <= 0:
            raise ValueError(
                f"For 'TimeMonitor', the argument 'data_size' must be None or an int > 0, but got {size!r}."
            )
        self.data_size = data_size
        self.data_time = check_bool(data_time, "data_time", "TimeMonitor")
        self._train = _Timer()
        self._eval = _Timer()
        self._eval_started = 0.0
        if self.data_time:
            # Step hooks only when they have work: without them the loop does not even build
            # step-begin events. (An instance attribute named like a hook is subscribed.)
            for phase, timer in (("train", self._train), ("eval", self._eval)):
                setattr(self, f"on_{phase}_step_begin", timer.step_begin)
                setattr(self, f"on_{phase}_step_end", timer.step_end)

    # --- training -----------------------------------------------------------------

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        """Start timing the epoch."""
        self._train.restart()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Print the training epoch's line (without the time of `fit`'s evaluation pass)."""
        self._report(run_context, self._train)

    # --- evaluation -----------------------------------------------------------------

    def on_eval_begin(self, run_context: RunContext) -> None:
        """Note when `fit`'s evaluation pass starts, to leave it out of the train epoch time."""
        self._eval_started = time.perf_counter()

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        """Start timing the evaluation epoch."""
        self._eval.restart()

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """Print the evaluation epoch's line."""
        self._report(run_context, self._eval)

    def on_eval_end(self, run_context: RunContext) -> None:
        """Leave the whole evaluation pass out of the training epoch's time."""
        self._train.excluded += time.perf_counter() - self._eval_started

    # --- output -----------------------------------------------------------------------

    def _steps(self, cb_params: Any) -> int:
        batch_num = cb_params.get("batch_num")
        if (
            isinstance(batch_num, int)
            and not isinstance(batch_num, bool)
            and batch_num > 0
        ):
            return batch_num
        return check_positive_int(self.data_size, "data_size", "TimeMonitor")

    def _report(self, run_context: RunContext, timer: _Timer) -> None:
        cb_params = run_context.original_args()
        epoch_ms = (time.perf_counter() - timer.start - timer.excluded) * 1000
        steps = self._steps(cb_params)
        line = f"{str(cb_params.get('mode', '')).title()} epoch time: {epoch_ms:5.3f} ms, per step time: {epoch_ms / steps:5.3f} ms"
        if self.data_time:
            line += f" (data time: {timer.data_sum * 1000 / steps:5.3f} ms)"
        timer.data_sum = 0.0
        print(line, flush=True)
