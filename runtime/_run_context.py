"""`RunContext`: what a callback hook receives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, final

if TYPE_CHECKING:
    from collections.abc import Callable

    from .bus._bus import EventBus
    from .bus._events import Event

__all__ = ["RunContext"]


@final
class RunContext:
    """The handle a callback hook receives: the run's `cb_params` and a way to stop it.

    One `RunContext` exists per training loop; `Model.eval` and every evaluation
    pass inside `Model.fit` get their own, around the same `cb_params`, so a stop
    requested during an evaluation pass ends that pass but not the training.

    Args:
        original_args: The `cb_params` dict this context carries.

    Example:
        >>> rc = RunContext({"cur_step_num": 1})
        >>> rc.request_stop(); rc.get_stop_requested()
        True
    """

    __slots__ = (
        "_bus",
        "_on_stop",
        "_original_args",
        "_resume_epoch",
        "_resume_limit",
        "_stop_requested",
    )

    def __init__(self, original_args: dict[str, Any]) -> None:
        if not isinstance(original_args, dict):
            raise TypeError(
                "The argument 'original_args' of RunContext should be dict type, "
                f"but got {type(original_args)}."
            )
        self._original_args = original_args
        self._stop_requested = False
        self._on_stop: Callable[[], None] | None = None
        self._bus: EventBus | None = None
        self._resume_epoch: int | None = None
        # The run's last epoch while `on_train_begin` runs (resume allowed), else None.
        self._resume_limit: int | None = None

    def original_args(self) -> Any:
        """Return `cb_params`, the same object for every hook of one loop."""
        return self._original_args

    def request_stop(self) -> None:
        """Ask the loop to stop at its next step boundary; idempotent and irreversible."""
        if self._stop_requested:
            return
        self._stop_requested = True
        if self._on_stop is not None:
            self._on_stop()

    def get_stop_requested(self) -> bool:
        """Return whether a stop was requested."""
        return self._stop_requested

    def resume_after_epoch(self, epoch: int) -> None:
        """Continue a training run after `epoch` epochs already done (a cadence extension).

        Callable only from `on_train_begin` (e.g. by `BackupAndRestore` after it
        restored a backup): the loop then starts at epoch `epoch + 1`, as if the
        run had been called with `initial_epoch=epoch`; `cb_params.epoch_num` is
        updated. Counting `cur_step_num` restarts at 0, as MindSpore does for
        `initial_epoch`.

        Raises:
            RuntimeError: Called outside `on_train_begin`.
            ValueError: `epoch` is negative or not before the run's last epoch.
        """
        last = self._resume_limit
        if last is None:
            raise RuntimeError(
                "`resume_after_epoch()` can only be called from `on_train_begin`."
            )
        value: Any = epoch  # checked at run time: callers may pass anything
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"`epoch` must be an int >= 0, got {epoch!r}.")
        if epoch >= last:
            raise ValueError(
                f"`epoch` must be less than the run's last epoch {last}, got {epoch!r}."
            )
        self._resume_epoch = epoch

    @property
    def bus(self) -> EventBus | None:
        """The event bus of the run (a cadence extension); None for a context built by hand."""
        return self._bus

    def publish(self, event: Event) -> None:
        """Publish `event` on the run's bus, e.g. `CheckpointSaved` from a checkpoint callback.

        Raises:
            RuntimeError: This context belongs to no run (built by hand).
        """
        if self._bus is None:
            raise RuntimeError(
                "This RunContext belongs to no run, so it has no event bus to publish on."
            )
        self._bus.publish(event)
