"""`LossMonitor`: print the loss every few steps and stop a run whose loss is NaN or Inf."""

from __future__ import annotations

import math
import sys
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import Callback, Tensor, loss_value
from cadence.validation import check_non_negative_int

if TYPE_CHECKING:
    from cadence import RunContext

__all__ = ["FLUSH_INTERVAL_S", "LossMonitor"]

FLUSH_INTERVAL_S = 0.1
"""Loss lines are flushed when printed, unless the last flush was more recent than this;
then at the next line due, at each epoch's end and when the run ends. A flush is a
system call (about 6 µs inside a training step, where caches are cold), and at one
line per step it cost more than the rest of the callback."""
_clock = time.monotonic


def _printable_loss(outputs: Any) -> tuple[Any, float | None]:
    """Return (what MindSpore prints for `outputs`, its mean as a float or None if not numeric).

    A Tensor prints as its mean, a Python float (17 significant digits); the first
    item of a tuple or list prints as it is (a Tensor shows float32 digits).
    """
    mean = loss_value(outputs)
    if isinstance(outputs, tuple | list):
        return (outputs[0] if outputs else outputs), mean
    if isinstance(outputs, Tensor | np.ndarray) and mean is not None:
        return mean, mean
    return outputs, mean


class LossMonitor(Callback):
    """Print the training loss every `per_print_times` steps, and raise on a NaN or Inf loss.

    Prints `epoch: 1 step: 2, loss is 2.394200086593628` (the step counts within
    the epoch) and, in `Model.fit` epochs that ran an evaluation pass,
    `Eval result: epoch 1, metrics: {...}`. In `Model.eval` it prints a line per
    evaluation step (epoch 1); in `fit`'s evaluation passes it prints none.

    Printing follows the run's global step: with `per_print_times=2` over 2 epochs
    of 3 steps it prints at global steps 2, 4 and 6. A NaN or Inf loss raises
    `ValueError` (also when the network returns a tuple, unlike MindSpore).

    MindSpore flushes stdout after every line. Here a line is flushed at once
    unless the previous flush was less than 0.1 s ago (`FLUSH_INTERVAL_S`); lines
    printed faster than that are flushed together, at the latest with the next
    line due after the interval, at the epoch's end and at the run's end. On a
    terminal, where Python writes each line as it is printed, nothing changes.

    Args:
        per_print_times: Print every this many steps; 0 prints no loss lines.
        has_trained_epoch: Epochs trained before this run (MindSpore 1.x's
            argument for resumed training): training lines show the epoch
            counted from the start of the whole training, `cur_epoch_num + has_trained_epoch`.

    Raises:
        TypeError: `per_print_times` or `has_trained_epoch` is not an int.
        ValueError: `per_print_times` or `has_trained_epoch` is negative.

    Example:
        >>> from cadence import Model
        >>> from cadence.callbacks import LossMonitor
        >>> from cadence.testing import ListDataset, constant_network
        >>> Model(constant_network(0.25)).train(1, ListDataset.of_steps(2), callbacks=LossMonitor())
        epoch: 1 step: 1, loss is 0.25
        epoch: 1 step: 2, loss is 0.25
    """

    def __init__(self, per_print_times: int = 1, has_trained_epoch: int = 0) -> None:
        self._per_print_times = check_non_negative_int(
            per_print_times, "per_print_times", "LossMonitor"
        )
        self._has_trained_epoch = check_non_negative_int(
            has_trained_epoch, "has_trained_epoch", "LossMonitor"
        )
        self._last_print_time = 0
        self._flushed_at = 0.0  # _clock() of the last flush

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Check the step's loss and print it when due."""
        self._step_end(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """In `Model.eval`, check and print each step's loss; in `fit`'s evaluation passes, nothing."""
        if "epoch_num" not in run_context.original_args():
            self._step_end(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """After a `fit` epoch that ran an evaluation pass, print its metrics."""
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print(
                f"Eval result: epoch {cb_params.cur_epoch_num:d}, metrics: {_as_printed(metrics)}"
            )
        self._flush(_clock())

    def _step_end(self, run_context: RunContext) -> None:
        # Runs every step, between kernels whose data has evicted the caches: few
        # calls and lookups; the line is built only when due.
        cb_params = run_context.original_args()
        outputs = cb_params.get("net_outputs")
        loss: Any
        mean: float | None
        if outputs.__class__ is Tensor and (mean := loss_value(outputs)) is not None:
            loss = mean  # the common case: a Tensor prints as its mean
        else:
            loss, mean = _printable_loss(outputs)
        step = cb_params["cur_step_num"]
        if mean is not None and not math.isfinite(mean):
            epoch, step_in_epoch = self._position(cb_params, step)
            raise ValueError(
                f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, training process cannot "
                "continue, terminating training."
            )
        every = self._per_print_times
        last = self._last_print_time
        if step <= last:  # the instance is reused by a new run
            while step <= last:
                last -= max(every, 1)
            self._last_print_time = last
        if every and step - last >= every:
            self._last_print_time = step
            epoch, step_in_epoch = self._position(cb_params, step)
            out = sys.stdout
            if out is not None:  # as print(): no stdout, no output
                out.write(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}\n")
                now = _clock()
                if now - self._flushed_at >= FLUSH_INTERVAL_S:
                    self._flush(now)

    def on_run_ended(self, run_context: RunContext) -> None:
        """Flush the lines printed since the last flush (every run, however it ended)."""
        self._flush(_clock())

    def _flush(self, now: float) -> None:
        self._flushed_at = now
        out = sys.stdout
        if out is not None:
            out.flush()

    def _position(self, cb_params: Any, step: int) -> tuple[Any, int]:
        """Return (epoch, step within the epoch); the epoch is 1 in `Model.eval`."""
        batch_num = cb_params["batch_num"]
        step_in_epoch = (step - 1) % batch_num + 1 if batch_num > 0 else step
        epoch = cb_params.get("cur_epoch_num")
        if epoch is None:  # Model.eval
            return 1, step_in_epoch
        return epoch + self._has_trained_epoch, step_in_epoch


def _as_printed(metrics: dict[str, Any]) -> dict[str, Any]:
    """The metrics as MindSpore's line shows them: NumPy scalars as plain numbers.

    Metric values are `numpy.float64`, as in MindSpore; MindSpore runs on NumPy 1, whose
    repr of one is the bare number, while NumPy 2 writes `np.float64(0.5)`. The line
    keeps MindSpore's text under either NumPy.
    """
    return {k: v.item() if isinstance(v, np.generic) else v for k, v in metrics.items()}
