"""What a metric-watching callback watches: the value's name, its better direction, its margin.

`EarlyStopping` and `ReduceLROnPlateau` (and any callback that keeps "the best
value so far", such as a top-k checkpoint policy) share this: the `mode`
resolution of MindSpore ('auto' picks 'min' for loss-like names), the `min_delta`
margin, and how the current value is read from `cb_params` at a training
epoch's end.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import CadenceWarning, Callback
from cadence.validation import (
    check_bool,
    check_choice,
    check_non_negative_int,
    check_number,
    check_type,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cadence import RunContext

__all__ = [
    "LOSS_LIKE",
    "BestValueCallback",
    "Monitor",
    "MonitorUnavailableWarning",
    "scalar_loss",
]

LOSS_LIKE: frozenset[str] = frozenset(
    {
        "hausdorff_distance",
        "mae",
        "mse",
        "loss",
        "perplexity",
        "mean_surface_distance",
        "root_mean_square_distance",
        "eval_loss",
    }
)
"""Monitor names that `mode='auto'` minimizes (MindSpore's list); every other name is maximized."""


class MonitorUnavailableWarning(CadenceWarning):
    """The monitored value is not in `cb_params` at this epoch's end; the epoch is skipped."""


def scalar_loss(outputs: Any) -> float | None:
    """Return the mean of a step's output as a float (first item of a tuple), None if not numeric."""
    if isinstance(outputs, tuple | list):
        if not outputs:
            return None
        outputs = outputs[0]
    data = outputs.asnumpy() if hasattr(outputs, "asnumpy") else outputs
    try:
        return float(np.mean(np.asarray(data, dtype=np.float64)))
    except (TypeError, ValueError):
        return None


class Monitor:
    """The monitored quantity of a callback: name, direction ('min'/'max') and `min_delta`.

    Args:
        owner: The callback's name, used in messages (`"EarlyStopping"`).
        monitor: `"loss"` (the last training step's loss) or a key of
            `cb_params.eval_results` (`"eval_loss"` or a metric name of `Model.fit`).
        mode: `"min"`, `"max"`, or `"auto"` (min for loss-like names, see `LOSS_LIKE`).
        min_delta: The smallest change that counts as an improvement; its absolute
            value is used, as in MindSpore.
        subject: How the unavailable-value warning starts (`"Early stopping"`).

    Raises:
        TypeError: `monitor` or `mode` is not a str, or `min_delta` not a number.
        ValueError: `mode` is not one of 'auto', 'min', 'max'.
    """

    def __init__(
        self, owner: str, monitor: Any, mode: Any, min_delta: Any, *, subject: str
    ) -> None:
        check_type(monitor, "monitor", str, owner)
        check_type(mode, "mode", str, owner)
        check_choice(mode, "mode", ("auto", "min", "max"), owner)
        delta = check_number(min_delta, "min_delta", owner)
        self.owner = owner
        self.name: str = monitor
        self.mode: str = mode
        self.min_delta: float = abs(delta)
        self.subject = subject
        self.direction: str = (
            "min"
            if mode == "min" or (mode == "auto" and monitor in LOSS_LIKE)
            else "max"
        )

    @property
    def worst(self) -> float:
        """The starting "best" value: +inf when minimizing, -inf when maximizing."""
        return math.inf if self.direction == "min" else -math.inf

    def improves(self, current: float, reference: float) -> bool:
        """Return whether `current` beats `reference` by more than `min_delta` in the better direction."""
        if self.direction == "min":
            return current < reference - self.min_delta
        return current > reference + self.min_delta

    def read(self, cb_params: Mapping[str, Any]) -> float | None:
        """Return the monitored value now, or None (after a warning) when it is not available.

        A value of 0 is a value (MindSpore treats it as missing).

        Raises:
            ValueError: The value is not a single number.
        """
        if self.name == "loss":
            value: Any = cb_params.get("net_outputs")
            if value is not None:
                return self._scalar(scalar_loss(value), value)
        else:
            results = cb_params.get("eval_results") or {}
            value = results.get(self.name)
        if value is None:
            choices = ["loss", *sorted(cb_params.get("eval_results") or {})]
            warnings.warn(
                f"{self.subject} is conditioned on {self.name!r}, which is not available. "
                f"Available choices are: {choices}. ({self.owner} skips this epoch; values other than "
                "'loss' exist only in `Model.fit` epochs that ran an evaluation pass.)",
                MonitorUnavailableWarning,
                stacklevel=2,
            )
            return None
        return self._scalar(value, value)

    def _scalar(self, value: Any, original: Any) -> float:
        data = value.asnumpy() if hasattr(value, "asnumpy") else value
        array = None
        if data is not None and not isinstance(data, str | bytes):
            try:
                array = np.asarray(data, dtype=np.float64)
            except (TypeError, ValueError):
                array = None
        if array is None or array.size != 1:
            raise ValueError(
                f"For '{self.owner}', the monitored value {self.name!r} must be a single number, "
                f"but got {original!r}. {self.owner} only supports scalar monitor values."
            )
        return float(array.reshape(()))


class BestValueCallback(Callback):
    """A callback that waits for its monitored value to improve: the best value and int counters, resumable.

    `EarlyStopping` and `ReduceLROnPlateau` are two: each lists its state
    (`STATE`: `"best"` and int counters starting at 0, `wait` among them, in the
    order `state_dict()` returns them) and sets `_monitor` before calling
    `_reset()`. `best` is None in the state while no epoch had a value; after
    `load_state_dict()`, the next `on_train_begin` keeps the loaded state
    (`_consume_loaded()` says so, once).
    """

    STATE: tuple[str, ...] = ("wait", "best")
    _monitor: Monitor
    wait: int
    best: float

    def _watch(
        self,
        owner: str,
        monitor: Any,
        mode: Any,
        min_delta: Any,
        patience: Any,
        verbose: Any,
        subject: str,
    ) -> None:
        """Check and keep the arguments every such callback takes; `subject` starts its warnings."""
        self._monitor = Monitor(owner, monitor, mode, min_delta, subject=subject)
        self.monitor = monitor
        self.mode = mode
        self.min_delta = self._monitor.min_delta
        self.patience = check_non_negative_int(patience, "patience", owner)
        self.verbose = check_bool(verbose, "verbose", owner)

    def _reset(self) -> None:
        for name in self._counters():
            setattr(self, name, 0)
        self.best = self._monitor.worst
        self._restored = False

    def _counters(self) -> list[str]:
        return [name for name in self.STATE if name != "best"]

    def _consume_loaded(self) -> bool:
        """Return whether state was loaded for the run that begins now; later calls return False."""
        loaded, self._restored = self._restored, False
        return loaded

    def on_run_ended(self, run_context: RunContext) -> None:
        """Forget a state load that no `on_train_begin` consumed, so the next run starts afresh."""
        self._restored = False

    def state_dict(self) -> dict[str, Any]:
        """Return the counters and best value (None while no epoch had a value)."""
        best = None if math.isinf(self.best) else self.best
        return {
            name: best if name == "best" else getattr(self, name) for name in self.STATE
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what `state_dict()` returned; the next `on_train_begin` keeps it."""
        for name in self._counters():
            setattr(self, name, int(state[name]))
        best = state["best"]
        self.best = self._monitor.worst if best is None else float(best)
        self._restored = True
