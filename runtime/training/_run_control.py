"""`RunControl`: the stop and resume state of one loop, the seam between `RunContext` and the loop."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, final

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["RunControl"]


@final
class RunControl:
    """What callbacks may change about a running loop: stop it, or (from `on_train_begin`) resume it.

    The loop creates one per loop (a training loop, an evaluation pass) and hands
    it to the `RunContext` its hooks receive; hooks act through the context's
    public methods, the loop reads the outcome here. Every context of one loop,
    the snapshots given to `async def` hooks included, shares one control, so a
    stop requested through any of them stops that loop.
    """

    __slots__ = ("_resume_limit", "cancelled", "resume_epoch", "stop_requested")

    def __init__(self) -> None:
        self.stop_requested = False
        # Set by the host (`Run.cancel`, any thread): end at the next step boundary, no end hooks.
        self.cancelled = False
        # Set by `resume_after_epoch`: the epoch the loop continues after.
        self.resume_epoch: int | None = None
        # The run's last epoch while `on_train_begin` runs (resume allowed), else None.
        self._resume_limit: int | None = None

    def request_stop(self) -> None:
        """Ask the loop to stop at its next step boundary; idempotent and irreversible (any thread)."""
        self.stop_requested = True

    def cancel(self) -> None:
        """Ask the loop to end as cancelled at its next step boundary (any thread)."""
        self.cancelled = True

    @contextmanager
    def resume_window(self, last_epoch: int) -> Iterator[None]:
        """Allow `resume_after_epoch` while the block runs (the loop wraps `on_train_begin` in it)."""
        self._resume_limit = last_epoch
        try:
            yield
        finally:
            self._resume_limit = None

    def resume_after_epoch(self, epoch: int) -> None:
        """Record that the loop continues after `epoch` epochs; see `RunContext.resume_after_epoch`."""
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
        self.resume_epoch = epoch
