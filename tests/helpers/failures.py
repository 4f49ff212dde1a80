"""Runs that fail on purpose at a known step: a failing network and a crashing callback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cadence import Callback

if TYPE_CHECKING:
    from collections.abc import Callable

    from cadence import RunContext

__all__ = ["CrashAt", "failing_network"]


def failing_network(step: int, message: str, loss: float = 1.0) -> Callable[..., float]:
    """A network for `ListDataset.of_steps` data: `loss`, but RuntimeError(message) on step `step`'s batch."""

    def network(*batch: Any) -> float:
        if batch[0] == float(step):  # of_steps' batch i holds the float i
            raise RuntimeError(message)
        return loss

    return network


class CrashAt(Callback):
    """Raises `error(message)` at the end of global step `step`, or of every step of epoch `epoch`."""

    def __init__(
        self,
        *,
        step: int | None = None,
        epoch: int | None = None,
        error: type[Exception] = RuntimeError,
        message: str = "boom",
    ) -> None:
        self.step, self.epoch = step, epoch
        self.error, self.message = error, message

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb.cur_step_num == self.step or cb.cur_epoch_num == self.epoch:
            raise self.error(self.message)
