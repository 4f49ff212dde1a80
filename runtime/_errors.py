"""Exceptions and warnings raised by cadence."""

from __future__ import annotations

__all__ = [
    "CadenceError",
    "CadenceInternalError",
    "CadenceWarning",
    "DrainTimeoutError",
    "MissingKeyError",
    "QueueFullError",
    "SubscriberError",
]


class CadenceError(Exception):
    """Base of every exception cadence defines."""


class CadenceWarning(UserWarning):
    """Base of every warning cadence emits."""


class CadenceInternalError(CadenceError):
    """Raised when cadence's own bookkeeping is inconsistent.

    The run's state can no longer be trusted. This usually means a subscriber
    mutated an object cadence owns (the subscriber list, a queue) from another
    thread, or a bug in cadence itself.
    """


class SubscriberError(CadenceError):
    """A worker subscriber failed; the original exception is chained as `__cause__`.

    Attributes:
        subscriber: The subscriber's name (its qualified handler name unless given).
        event: The event it was handling when it failed.
    """

    def __init__(self, subscriber: str, event: object, message: str) -> None:
        super().__init__(message)
        self.subscriber = subscriber
        self.event = event


class QueueFullError(CadenceError):
    """A worker subscriber's queue was full and its overflow policy is `"error"`."""


class DrainTimeoutError(CadenceError):
    """Worker subscribers did not finish their queued events before the deadline.

    Attributes:
        pending: Queued (not yet handled) event count per subscriber name.
    """

    def __init__(self, message: str, pending: dict[str, int]) -> None:
        super().__init__(message)
        self.pending = pending


class MissingKeyError(KeyError, AttributeError):
    """A `cb_params` key that is not set was read.

    It is both a `KeyError` (as in MindSpore, where `cb_params` is a dict) and an
    `AttributeError`, so `hasattr(cb_params, "x")` and `getattr(cb_params, "x", d)`
    work as they do on any object.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
