"""`LossMonitor`: print the loss every few steps and stop a run whose loss is NaN or Inf."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import Callback, Tensor
from cadence.validation import check_non_negative_int

if TYPE_CHECKING:
    from cadence import RunContext

__all__ = ["LossMonitor"]


def _printable_loss(outputs: Any) -> tuple[Any, float | None]:
    """Return (what MindSpore prints for `outputs`, its mean as a float or None if not numeric).

    A Tensor prints as its mean, a Python float (17 significant digits); the first
    item of a tuple or list prints as it is (a Tensor shows float32 digits).
    """
    if isinstance(outputs, tuple | list):
        if not outputs:
            return outputs, None
        first = outputs[0]
        return first, _mean(first)
    if isinstance(outputs, Tensor | np.ndarray):
        mean = _mean(outputs)
        return (outputs if mean is None else mean), mean
    return outputs, _mean(outputs)


def _mean(value: Any) -> float | None:
    # Runs every step: the common cases (a 0-d Tensor, a Python float) take the short paths.
    if isinstance(value, float):
        return value
    data = value.asnumpy() if isinstance(value, Tensor) else value
    if isinstance(data, np.ndarray | np.generic):
        if data.dtype.kind not in "biuf" or data.size == 0:
            return None
        return float(data) if data.ndim == 0 else float(data.mean())
    if isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if isinstance(data, str | bytes) or data is None:
        return None
    try:
        return float(np.mean(np.asarray(data, dtype=np.float64)))
    except (TypeError, ValueError):
        return None


class LossMonitor(Callback):
    """Print the training loss every `per_print_times` steps, and raise on a NaN or Inf loss.

    Prints `epoch: 1 step: 2, loss is 2.394200086593628` (the step counts within
    the epoch) and, in `Model.fit` epochs that ran an evaluation pass,
    `Eval result: epoch 1, metrics: {...}`. In `Model.eval` it prints a line per
    evaluation step (epoch 1); in `fit`'s evaluation passes it prints none.

    Printing follows the run's global step: with `per_print_times=2` over 2 epochs
    of 3 steps it prints at global steps 2, 4 and 6. A NaN or Inf loss raises
    `ValueError` (also when the network returns a tuple, unlike MindSpore).

    Args:
        per_print_times: Print every this many steps; 0 prints no loss lines.

    Raises:
        TypeError: `per_print_times` is not an int.
        ValueError: `per_print_times` is negative.

    Example:
        >>> from cadence import Model
        >>> from cadence.callbacks import LossMonitor
        >>> from cadence.testing import ListDataset, constant_network
        >>> Model(constant_network(0.25)).train(1, ListDataset.of_steps(2), callbacks=LossMonitor())
        epoch: 1 step: 1, loss is 0.25
        epoch: 1 step: 2, loss is 0.25
    """

    def __init__(self, per_print_times: int = 1) -> None:
        self._per_print_times = check_non_negative_int(
            per_print_times, "per_print_times", "LossMonitor"
        )
        self._last_print_time = 0

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
            print(f"Eval result: epoch {cb_params.cur_epoch_num:d}, metrics: {metrics}")

    def _step_end(self, run_context: RunContext) -> None:
        # Runs every step: plain dict reads, and the line is built only when due.
        cb_params = run_context.original_args()
        loss, mean = _printable_loss(cb_params.get("net_outputs"))
        step = cb_params["cur_step_num"]
        if mean is not None and not math.isfinite(mean):
            epoch, step_in_epoch = self._position(cb_params, step)
            raise ValueError(
                f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, training process cannot "
                "continue, terminating training."
            )
        if step <= self._last_print_time:  # the instance is reused by a new run
            while step <= self._last_print_time:
                self._last_print_time -= max(self._per_print_times, 1)
        if (
            self._per_print_times != 0
            and step - self._last_print_time >= self._per_print_times
        ):
            self._last_print_time = step
            epoch, step_in_epoch = self._position(cb_params, step)
            print(f"epoch: {epoch} step: {step_in_epoch}, loss is {loss}", flush=True)

    @staticmethod
    def _position(cb_params: Any, step: int) -> tuple[Any, int]:
        """Return (epoch, step within the epoch); the epoch is 1 in `Model.eval`."""
        batch_num = cb_params["batch_num"]
        step_in_epoch = (step - 1) % batch_num + 1 if batch_num > 0 else step
        return cb_params.get("cur_epoch_num", 1), step_in_epoch
