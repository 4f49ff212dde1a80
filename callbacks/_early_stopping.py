"""`EarlyStopping`: stop training when a monitored value stops improving."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cadence.validation import check_bool, check_number

from ._monitored import BestValueCallback

if TYPE_CHECKING:
    from cadence import RunContext

__all__ = ["EarlyStopping"]


def _named_parameters(network: Any, owner: str) -> list[tuple[str, Any]]:
    named = getattr(network, "parameters_and_names", None)
    if not callable(named):
        raise TypeError(
            f"For '{owner}', restore_best_weights=True needs `cb_params.train_network` to have parameters "
            f"(a `cadence.nn.Cell`), but got {network!r}."
        )
    return list(named())


class EarlyStopping(BestValueCallback):
    """Stop training when the monitored value has not improved for `patience` epochs.

    At the end of each training epoch the value is read (`"loss"`: the last step's
    loss; otherwise a key of `cb_params.eval_results`, i.e. `"eval_loss"` or a
    metric name, available in `Model.fit` epochs that ran an evaluation pass; an
    epoch without the value is skipped with a `MonitorUnavailableWarning`).

    Semantics (Keras's): an epoch *improves* when its value beats the best so far by
    more than `min_delta` and, if `baseline` is set, beats `baseline` too. An
    improving epoch resets the count of epochs without improvement (`wait`) and
    never stops training. Any other epoch adds one to `wait`, and training stops
    once `wait >= patience`: after the `patience`-th consecutive epoch without
    improvement (`patience=0` and `patience=1` both stop at the first one).

    Args:
        monitor: The value to watch.
        min_delta: The smallest change that counts as an improvement (absolute value used).
        patience: Epochs without improvement to tolerate.
        verbose: Print `Epoch 00004: early stopping` at the end of a stopped run
            (and `Restoring model weights from the end of the best epoch.`).
        mode: `"min"`, `"max"`, or `"auto"` (min for loss-like names such as
            `"loss"`, `"eval_loss"`, `"mae"`, `"mse"`; max otherwise).
        baseline: A value the monitored value must beat to count as improving.
        restore_best_weights: When stopping, load the parameters of the best
            epoch into `cb_params.train_network`.

    Raises:
        TypeError: An argument has the wrong type.
        ValueError: `patience` is negative or `mode` is unknown.

    Example:
        >>> from cadence.callbacks import EarlyStopping
        >>> stop = EarlyStopping(monitor="accuracy", patience=2, baseline=0.5)
    """

    STATE = ("wait", "stopped_epoch", "best", "best_epoch")
    stopped_epoch: int
    best_epoch: int
    best_weights_param_dict: dict[str, np.ndarray[Any, Any]] | None

    state_key = "EarlyStopping"

    def __init__(
        self,
        monitor: str = "eval_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: bool = False,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
    ) -> None:
        owner = "EarlyStopping"
        self._watch(
            owner, monitor, mode, min_delta, patience, verbose, "Early stopping"
        )
        self.baseline = (
            None if baseline is None else check_number(baseline, "baseline", owner)
        )
        self.restore_best_weights = check_bool(
            restore_best_weights, "restore_best_weights", owner
        )
        self._reset()

    def on_train_begin(self, run_context: RunContext) -> None:
        """Reset the counters and the best value (unless state was just loaded for a resumed run)."""
        if self.restore_best_weights:
            _named_parameters(
                run_context.original_args().get("train_network"), "EarlyStopping"
            )
        if not self._consume_loaded():
            self._reset()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Compare this epoch's value with the best one; request a stop when patience runs out."""
        cb_params = run_context.original_args()
        current = self._monitor.read(cb_params)
        if current is None:
            return
        epoch = cb_params.cur_epoch_num
        if self._monitor.improves(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights_param_dict = self._snapshot(cb_params.train_network)
            if self.baseline is None or self._monitor.improves(current, self.baseline):
                self.wait = 0
                return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print(
                        "Restoring model weights from the end of the best epoch.",
                        flush=True,
                    )
                self._restore(cb_params.train_network, self.best_weights_param_dict)

    def on_train_end(self, run_context: RunContext) -> None:
        """With `verbose`, say at which epoch training was stopped."""
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping", flush=True)

    # --- state protocol -------------------------------------------------------------

    def _reset(self) -> None:
        super()._reset()
        self.best_weights_param_dict = None

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what `state_dict()` returned; the next `on_train_begin` keeps it.

        The best epoch's weights are not part of the state: after a resume,
        `restore_best_weights` restores the best epoch seen since the resume.
        """
        super().load_state_dict({"best_epoch": 0, **state})
        self.best_weights_param_dict = None

    # --- weights ------------------------------------------------------------------------

    @staticmethod
    def _snapshot(network: Any) -> dict[str, np.ndarray[Any, Any]]:
        return {
            name: np.array(p.asnumpy(), copy=True)
            for name, p in _named_parameters(network, "EarlyStopping")
        }

    @staticmethod
    def _restore(network: Any, snapshot: dict[str, np.ndarray[Any, Any]]) -> None:
        for name, param in _named_parameters(network, "EarlyStopping"):
            if name in snapshot:
                param.set_data(snapshot[name])
