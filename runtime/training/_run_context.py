"""`RunContext`: what a callback hook receives."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, final

from ._run_control import RunControl

if TYPE_CHECKING:
    from ..bus._bus import EventBus
    from ..bus._events import Event

__all__ = ["RunContext", "loop_context"]


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

    __slots__ = ("_bus", "_control", "_original_args")

    def __init__(self, original_args: dict[str, Any]) -> None:
        if not isinstance(original_args, dict):
            raise TypeError(
                "The argument 'original_args' of RunContext should be dict type, "
                f"but got {type(original_args)}."
            )
        self._original_args = original_args
        self._control = RunControl()
        self._bus: EventBus | None = None

    def original_args(self) -> Any:
        """Return `cb_params`, the same object for every hook of one loop."""
        return self._original_args

    def request_stop(self) -> None:
        """Ask the loop to stop at its next step boundary; idempotent and irreversible."""
        self._control.request_stop()

    def get_stop_requested(self) -> bool:
        """Return whether a stop was requested."""
        return self._control.stop_requested

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
        self._control.resume_after_epoch(epoch)

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


def loop_context(
    original_args: dict[str, Any], bus: EventBus, control: RunControl
) -> RunContext:
    """Return the RunContext a loop hands its hooks: over `original_args`, publishing on `bus`, steered through `control`.

    A function of this module rather than constructor arguments, so that
    `RunContext(original_args)` keeps MindSpore's signature.
    """
    rc = RunContext(original_args)
    rc._bus = bus
    rc._control = control
    return rc
