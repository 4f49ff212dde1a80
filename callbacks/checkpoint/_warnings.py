"""`CheckpointWarning`: what the checkpointing callbacks warn about (and a helper to warn once)."""

from __future__ import annotations

import warnings

from cadence import CadenceWarning

__all__ = ["CheckpointWarning", "warn"]


class CheckpointWarning(CadenceWarning):
    """A checkpointing callback cannot do all it was asked (a monitored value is missing, no MindIR, ...)."""


def warn(message: str, *, stacklevel: int = 3) -> None:
    """Issue `message` as a `CheckpointWarning` attributed to the caller's caller."""
    warnings.warn(message, CheckpointWarning, stacklevel=stacklevel)
