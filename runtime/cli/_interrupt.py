"""Ctrl-C and SIGTERM in a job of several ranks: every rank stops after the same step, then ends as one process does.

One process raises KeyboardInterrupt at once (the command line's handlers). In a job
of several ranks that would leave a rank blocked inside a collective (where Python
runs no handler) waiting for a rank that has already left, until the watchdog's
timeout. Here the handler only notes the signal. At the next step's end the rank asks
to stop; the loop's stop vote stops every rank after that same step; when the loop
announces the stop (`StopRequested`, on every rank at the same point) the ranks agree
whether any of them was interrupted, and if so each raises its interruption there:
before the epoch's end, so that, as with one process, the interrupted epoch is
trained again on resume.
"""

from __future__ import annotations

import signal
import threading
from typing import TYPE_CHECKING, Any

from cadence import Callback, StopRequested

from ._entry import Terminated

if TYPE_CHECKING:
    from types import FrameType

    from cadence import RunContext, Subscription

__all__ = ["StopRanksTogether"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRanksTogether(Callback):
    """Turn Ctrl-C and SIGTERM into a stop of every rank after the same step, then an interruption."""

    def __init__(self) -> None:
        self.received: int | None = None
        """The first of SIGINT/SIGTERM that reached this rank during training, if any."""
        self._previous: dict[int, Any] = {}
        self._subscription: Subscription[Any] | None = None

    def _note(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum

    def on_train_begin(self, run_context: RunContext) -> None:
        """Note the signals instead of raising, and watch for the loop's stop."""
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._note) for sig in _SIGNALS}
        bus = run_context.bus
        if bus is not None:
            self._subscription = bus.subscribe(
                StopRequested, self._on_stop, name="cadence train: stop ranks together"
            )

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Ask to stop after this step once a signal came (the stop vote tells every rank)."""
        if self.received is not None:
            run_context.request_stop()

    def _on_stop(self, event: StopRequested) -> None:
        from cadence.communication._vote import any_rank

        # Every rank gets here after the same vote; a stop for another reason
        # (EarlyStopping) goes on as a stop.
        if any_rank(self.received is not None, "interrupt vote"):
            self.raise_if_received(interrupted=True)

    def on_run_ended(self, run_context: RunContext) -> None:
        """Put the previous signal handlers back."""
        self._restore()

    def raise_if_received(self, *, interrupted: bool = False) -> None:
        """Raise this rank's interruption (Terminated for SIGTERM) if a signal came, or if `interrupted`."""
        self._restore()
        if self.received == signal.SIGTERM:
            raise Terminated
        if interrupted or self.received is not None:
            raise KeyboardInterrupt

    def _restore(self) -> None:
        previous, self._previous = self._previous, {}
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if self._subscription is not None:
            self._subscription.unsubscribe()
            self._subscription = None
