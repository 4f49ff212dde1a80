"""`RunSpec`: everything one `train`, `fit` or `eval` call asked for, checked and frozen.

`Model` builds it from the call's arguments (runtime/training/_model.py) and hands it to
`Run` (runtime/training/_loop.py), which reads it and never changes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..bus._events import RunKind

__all__ = ["EvalSpec", "RunSpec"]


@dataclass(frozen=True, slots=True)
class EvalSpec:
    """What an evaluation pass needs: the network, the metrics and how outputs feed them."""

    network: Callable[..., Any]
    metrics: dict[str, Any]
    eval_indexes: tuple[int, ...] | None

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
        """Return `{name: value}` from every metric as its `eval` returns it (numpy.float64, arrays), as MindSpore does."""
        return {name: metric.eval() for name, metric in self.metrics.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSpec:
    """One complete, checked run request; `Run` builds `cb_params` and the loop from it.

    For `eval` runs the training fields are None or zero; for `train` runs the
    validation fields are.
    """

    kind: RunKind
    """`"train"`, `"fit"` or `"eval"`: the `Model` method called (its async form included)."""
    network: Callable[..., Any]
    """The backbone (`cb_params.network`)."""
    train_network: Callable[..., Any] | None
    """What one training step calls (`TrainOneStepCell` when built from loss and optimizer)."""
    loss_fn: Any
    optimizer: Any
    loss_scale_manager: Any
    train_dataset: Any
    epochs: int
    """The last epoch number to reach."""
    initial_epoch: int
    """Epochs already done; the first epoch is `initial_epoch + 1`."""
    steps_per_epoch: int
    """`cb_params.batch_num` of training: the dataset's size, or `sink_size` in sink mode."""
    evaluation: EvalSpec | None
    """How to evaluate: set for `eval`, and for `fit` with a validation dataset."""
    valid_dataset: Any
    valid_steps: int
    """The validation dataset's size (`cb_params.batch_num` of an evaluation pass)."""
    valid_frequency: int | tuple[int, ...]
    """Evaluate in `fit` every this many epochs, or after each epoch listed."""
    callbacks: object
    """The `callbacks` argument as given; `CallbackSet` turns it into a list."""
    drain_timeout: float | None
    """Seconds to wait at run end for worker subscribers; None: as long as needed."""

    @property
    def where(self) -> str:
        """The method's name as error messages and warnings show it, e.g. `Model.fit`."""
        return f"Model.{self.kind}"

    def evaluates_after(self, epoch: int) -> bool:
        """Whether `fit` runs an evaluation pass after training epoch `epoch`."""
        if self.evaluation is None or self.valid_dataset is None:
            return False
        freq = self.valid_frequency
        return epoch in freq if isinstance(freq, tuple) else epoch % freq == 0
