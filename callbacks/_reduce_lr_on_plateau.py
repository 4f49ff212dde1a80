"""`ReduceLROnPlateau`: lower the learning rate when a monitored value stops improving."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import Parameter
from cadence.validation import check_non_negative_int, check_number

from ._monitored import BestValueCallback

if TYPE_CHECKING:
    from cadence import RunContext

__all__ = ["ReduceLROnPlateau", "fixed_learning_rate"]


def fixed_learning_rate(cb_params: Any, owner: str) -> Parameter:
    """Return the optimizer's `learning_rate` Parameter holding one value.

    Raises:
        ValueError: The run has no optimizer, or its learning rate is dynamic
            (a schedule) or per parameter group.
    """
    optimizer = cb_params.get("optimizer")
    if optimizer is None:
        raise ValueError(
            f"For '{owner}', the run needs an optimizer with a fixed learning rate (`cb_params.optimizer`), "
            "but got None: pass `optimizer` to `Model`."
        )
    lr = getattr(optimizer, "learning_rate", None)
    dynamic = getattr(optimizer, "dynamic_lr", False) or getattr(
        optimizer, "is_group_lr", False
    )
    if dynamic or not isinstance(lr, Parameter) or lr.size != 1:
        raise ValueError(
            f"For '{owner}', the optimizer's learning rate must be a fixed value (a one-element `Parameter`); "
            f"{owner} does not support dynamic learning rate and group learning rate now, but got {lr!r}."
        )
    return lr


def _as_float32(lr: Parameter) -> np.float32:
    return np.float32(lr.asnumpy().reshape(())[()])


class ReduceLROnPlateau(BestValueCallback):
    """Multiply the learning rate by `factor` when the monitored value stops improving.

    At the end of each training epoch the value is read as `EarlyStopping` reads
    it. An epoch that beats the best value by more than `min_delta` resets the
    count of epochs without improvement (`wait`); otherwise, outside a cooldown,
    `wait` grows, and at `wait >= patience` the learning rate becomes
    `max(lr * factor, min_lr)` (if it is above `min_lr`), `wait` restarts and the
    next `cooldown` epochs are not counted. The rate is written into the
    optimizer's `learning_rate` Parameter.

    Args:
        monitor: `"loss"` or a key of `cb_params.eval_results` (`"eval_loss"`, a metric name).
        factor: The multiplier, a float in (0.0, 1.0).
        patience: Epochs without improvement before reducing.
        verbose: Print `Epoch 00002: ReduceLROnPlateau reducing learning rate to 0.005.` on each reduction.
        mode: `"min"`, `"max"` or `"auto"` (as `EarlyStopping`).
        min_delta: The smallest change that counts as an improvement.
        cooldown: Epochs after a reduction during which no epoch counts toward `patience`.
        min_lr: The learning rate is never reduced below this.

    Raises:
        TypeError: An argument has the wrong type (`factor` must be a float).
        ValueError: `factor` is not in (0.0, 1.0), `patience`/`cooldown`/`min_lr`
            is negative, or `mode` is unknown; at run time, the optimizer has no
            fixed learning rate.

    Example:
        >>> from cadence.callbacks import ReduceLROnPlateau
        >>> plateau = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=2, cooldown=1)
    """

    STATE = ("wait", "cooldown_counter", "best")
    cooldown_counter: int

    state_key = "ReduceLROnPlateau"

    def __init__(
        self,
        monitor: str = "eval_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: bool = False,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0,
    ) -> None:
        owner = "ReduceLROnPlateau"
        self._watch(
            owner,
            monitor,
            mode,
            min_delta,
            patience,
            verbose,
            "Learning rate reduction",
        )
        if not isinstance(factor, float):
            raise TypeError(
                f"For '{owner}', the argument 'factor' must be a float in (0.0, 1.0), "
                f"but got {factor!r} of type {type(factor).__name__!r}."
            )
        self.factor = check_number(
            factor, "factor", owner, minimum=0.0, maximum=1.0, inclusive=False
        )
        self.cooldown = check_non_negative_int(cooldown, "cooldown", owner)
        self.min_lr = check_number(min_lr, "min_lr", owner, minimum=0.0)
        self._reset()

    def on_train_begin(self, run_context: RunContext) -> None:
        """Check the optimizer; reset the counters (unless state was just loaded for a resumed run)."""
        fixed_learning_rate(run_context.original_args(), "ReduceLROnPlateau")
        if not self._consume_loaded():
            self._reset()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Count an epoch without improvement, or reduce the learning rate when patience runs out."""
        cb_params = run_context.original_args()
        lr = fixed_learning_rate(cb_params, "ReduceLROnPlateau")
        current = self._monitor.read(cb_params)
        if current is None:
            return
        in_cooldown = self.cooldown_counter > 0
        if in_cooldown:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._monitor.improves(current, self.best):
            self.best = current
            self.wait = 0
        elif not in_cooldown:
            self.wait += 1
            if self.wait >= self.patience:
                self._reduce(lr, cb_params.cur_epoch_num)
                self.cooldown_counter = self.cooldown
                self.wait = 0

    def _reduce(self, lr: Parameter, epoch: int) -> None:
        old_lr = _as_float32(lr)
        if not old_lr > self.min_lr:
            return
        new_lr: Any = max(np.float32(old_lr * np.float32(self.factor)), self.min_lr)
        lr.set_data(np.asarray(new_lr, dtype=lr.asnumpy().dtype).reshape(lr.shape))
        if self.verbose:
            print(
                f"Epoch {epoch:05d}: ReduceLROnPlateau reducing learning rate to {new_lr!s}.",
                flush=True,
            )
