"""`RunProgress`: a snapshot of how far a run got, kept by its `RunHandle`."""

# No `from __future__ import annotations` here: msgspec resolves string annotations
# in the namespace of `cls.__module__`, which `cadence/__init__.py` rewrites to
# "cadence" for readable reprs; evaluated annotations need no resolving.

from typing import Any

import msgspec

__all__ = ["RunProgress"]


class RunProgress(msgspec.Struct, frozen=True, kw_only=True):
    """A snapshot of how far a run got: its latest counters, loss and metrics.

    `epoch` and `step` count as in events (`epoch` from 1, `step` global); `loss`
    is the latest training step's loss (an evaluation step's in an `eval` run),
    `metrics` the latest evaluation's; `epochs` and `steps_per_epoch` are known
    once the run began.
    """

    epoch: int | None = None
    epochs: int | None = None
    step: int = 0
    steps_per_epoch: int | None = None
    loss: float | None = None
    metrics: dict[str, Any] | None = None
