"""`History`: record each epoch's network output and evaluation metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import Callback, Tensor

if TYPE_CHECKING:
    from cadence import RunContext

__all__ = ["History"]


def _epoch_output(outputs: Any) -> Any:
    """Return what MindSpore records as `net_output`: the mean of a Tensor (first item of a tuple)."""
    if isinstance(outputs, tuple | list) and outputs:
        outputs = outputs[0]
    if isinstance(outputs, Tensor):
        return np.mean(outputs.asnumpy())
    return outputs


def _plain(value: Any) -> Any:
    """Return `value` with numpy scalars and arrays as Python numbers and lists (JSON-able)."""
    if isinstance(value, np.generic | np.ndarray):
        return value.tolist()
    if isinstance(value, Tensor):
        return value.asnumpy().tolist()
    return value


class History(Callback):
    """Record the network output and the metrics of every epoch, as MindSpore's `History`.

    After a run, `history` maps `"net_output"` to the last step's output of each
    epoch (its mean, as a `numpy.float32` for a Tensor) and every evaluation metric
    to its values, and `epoch` is `{"epoch": [1, 2, ...]}`. Metric lists are shorter
    than `net_output` when `Model.fit` does not evaluate after every epoch. Each
    run starts afresh (MindSpore kept adding to `history` when an instance was reused).

    In `Model.eval` it records the evaluation epoch (`{"epoch": [1]}`) and the
    last evaluation step's loss.

    State protocol: `state_key` is `"History"`; `state_dict()` / `load_state_dict()`
    carry `history` and `epoch`, so a resumed run continues the lists.

    Example:
        >>> from cadence import Model
        >>> from cadence.callbacks import History
        >>> from cadence.testing import ListDataset, constant_network
        >>> history = History()
        >>> Model(constant_network(0.5)).train(2, ListDataset.of_steps(3), callbacks=history)
        >>> history.epoch, history.history
        ({'epoch': [1, 2]}, {'net_output': [0.5, 0.5]})
    """

    state_key = "History"

    def __init__(self) -> None:
        self.history: dict[str, list[Any]] = {}
        self.epoch: dict[str, list[int]] | None = None
        self._restored = False

    def on_train_begin(self, run_context: RunContext) -> None:
        """Start empty records (unless state was just loaded for a resumed run)."""
        self._start()

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Record the epoch number, its last output and its metrics."""
        self._record(run_context, with_metrics=True)

    def on_eval_begin(self, run_context: RunContext) -> None:
        """In `Model.eval`, start empty records; in `fit`'s evaluation passes, nothing."""
        if "epoch_num" not in run_context.original_args():
            self._start()

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """In `Model.eval`, record the evaluation epoch and its last output."""
        if "epoch_num" not in run_context.original_args():
            self._record(run_context, with_metrics=False)

    def on_run_ended(self, run_context: RunContext) -> None:
        """Forget a state load that no `on_train_begin` consumed, so the next run starts afresh."""
        self._restored = False

    def state_dict(self) -> dict[str, Any]:
        """Return `{"history": ..., "epoch": ...}` with plain Python values."""
        return {
            "history": {
                k: [_plain(v) for v in values] for k, values in self.history.items()
            },
            "epoch": None
            if self.epoch is None
            else {k: list(v) for k, v in self.epoch.items()},
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what `state_dict()` returned; the next `on_train_begin` keeps it."""
        self.history = {k: list(v) for k, v in state["history"].items()}
        epoch = state.get("epoch")
        self.epoch = None if epoch is None else {k: list(v) for k, v in epoch.items()}
        self._restored = True

    def _start(self) -> None:
        if self._restored:
            self._restored = False
            if self.epoch is None:
                self.epoch = {"epoch": []}
            return
        self.history = {}
        self.epoch = {"epoch": []}

    def _record(self, run_context: RunContext, *, with_metrics: bool) -> None:
        cb_params = run_context.original_args()
        if self.epoch is None:
            self.epoch = {"epoch": []}
        self.epoch.setdefault("epoch", []).append(cb_params.get("cur_epoch_num", 1))
        self.history.setdefault("net_output", []).append(
            _epoch_output(cb_params.get("net_outputs"))
        )
        if with_metrics:
            for name, value in (cb_params.get("metrics") or {}).items():
                self.history.setdefault(name, []).append(value)
