"""The MindSpore-compatible `Callback` base class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    from types import TracebackType

    from ._run_context import RunContext

__all__ = ["LEGACY_HOOKS", "NEW_HOOKS", "RUN_HOOKS", "Callback"]

LEGACY_HOOKS: tuple[str, ...] = (
    "begin",
    "epoch_begin",
    "step_begin",
    "step_end",
    "epoch_end",
    "end",
)
"""MindSpore's deprecated names; each is the default body of one train and one eval hook."""

NEW_HOOKS: tuple[str, ...] = tuple(
    f"on_{phase}_{stage}" for phase in ("train", "eval") for stage in LEGACY_HOOKS
)
"""The twelve MindSpore hooks (`on_train_begin` ... `on_eval_end`), in the order a `fit` epoch first reaches them."""

RUN_HOOKS: tuple[str, ...] = ("on_run_failed", "on_run_ended")
"""cadence's finalization hooks, called for every outcome, each call isolated."""


class Callback:
    """Base class for callbacks; subclass it and override the hooks you need.

    The hooks and their meaning are MindSpore's. Each `on_train_*` / `on_eval_*`
    hook receives a `RunContext`; its default body calls the matching legacy hook
    (`on_train_step_end` and `on_eval_step_end` both call `step_end`), so a
    callback that overrides only `step_end` runs for training and evaluation steps.
    Only the hooks a callback overrides are subscribed to the run's event bus, so
    the others cost nothing.

    cadence adds two finalization hooks that MindSpore lacks: `on_run_failed`
    (the run raised) and `on_run_ended` (always, last). Each of their calls is
    isolated: one failing does not keep the others from running.

    A callback is also a context manager, entered before the run begins and
    exited after it ends (in reverse order, with the exception if one escaped).
    A truthy `__exit__` suppresses the exception, as in MindSpore.

    Example:
        >>> class StopAtStep(Callback):
        ...     def __init__(self, last: int) -> None:
        ...         self.last = last
        ...     def on_train_step_end(self, run_context: RunContext) -> object:
        ...         if run_context.original_args().cur_step_num >= self.last:
        ...             run_context.request_stop()
    """

    def __enter__(self) -> Self:
        """Return self; called once before the run (and around each eval pass in `fit`)."""
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> Any:
        """Do nothing; return a truthy value to suppress the run's exception."""
        return None

    # --- legacy names (deprecated in MindSpore, still dispatched) ---------------

    def begin(self, run_context: RunContext) -> object:
        """Called at the beginning of training and of evaluation (legacy)."""

    def epoch_begin(self, run_context: RunContext) -> object:
        """Called before each epoch, training or evaluation (legacy)."""

    def step_begin(self, run_context: RunContext) -> object:
        """Called before each step, training or evaluation (legacy)."""

    def step_end(self, run_context: RunContext) -> object:
        """Called after each step, training or evaluation (legacy)."""

    def epoch_end(self, run_context: RunContext) -> object:
        """Called after each epoch, training or evaluation (legacy)."""

    def end(self, run_context: RunContext) -> object:
        """Called at the end of training and of evaluation (legacy)."""

    # --- training ---------------------------------------------------------------

    def on_train_begin(self, run_context: RunContext) -> object:
        """Called once before the first training epoch."""
        return self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> object:
        """Called before each training epoch."""
        return self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> object:
        """Called before each training step."""
        return self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> object:
        """Called after each training step; `cb_params.net_outputs` holds its output."""
        return self.step_end(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> object:
        """Called after each training epoch, also after a stop request."""
        return self.epoch_end(run_context)

    def on_train_end(self, run_context: RunContext) -> object:
        """Called once after training, also after a stop request; not after an exception."""
        return self.end(run_context)

    # --- evaluation -------------------------------------------------------------

    def on_eval_begin(self, run_context: RunContext) -> object:
        """Called before an evaluation pass."""
        return self.begin(run_context)

    def on_eval_epoch_begin(self, run_context: RunContext) -> object:
        """Called before the evaluation pass's epoch."""
        return self.epoch_begin(run_context)

    def on_eval_step_begin(self, run_context: RunContext) -> object:
        """Called before each evaluation step."""
        return self.step_begin(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> object:
        """Called after each evaluation step."""
        return self.step_end(run_context)

    def on_eval_epoch_end(self, run_context: RunContext) -> object:
        """Called after the evaluation pass's epoch; metrics are not in `cb_params` yet."""
        return self.epoch_end(run_context)

    def on_eval_end(self, run_context: RunContext) -> object:
        """Called after an evaluation pass; `cb_params.metrics` holds its metrics."""
        return self.end(run_context)

    # --- cadence finalization -----------------------------------------------------

    def on_run_failed(
        self, run_context: RunContext, exception: BaseException
    ) -> object:
        """Called when the run raised, before `on_run_ended`; MindSpore has no such hook."""

    def on_run_ended(self, run_context: RunContext) -> object:
        """Called last for every outcome; `cb_params.outcome` says which ('completed', 'stopped', 'failed', 'cancelled')."""
