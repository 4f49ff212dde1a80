"""Typed lifecycle events: frozen, tagged msgspec Structs under one `Event` base.

Event class names mirror the `Callback` hooks: `on_train_step_end` <-> `TrainStepEnd`.
"""

# No `from __future__ import annotations` here: msgspec resolves string annotations
# in the namespace of `cls.__module__`, which `cadence/__init__.py` rewrites to
# "cadence" for readable reprs; evaluated annotations need no resolving.

import functools
import time
from collections.abc import Callable
from typing import Any, Literal

import msgspec

__all__ = [
    "CheckpointSaved",
    "CheckpointUploaded",
    "EvalBegin",
    "EvalEnd",
    "EvalEpochBegin",
    "EvalEpochEnd",
    "EvalEvent",
    "EvalStepBegin",
    "EvalStepEnd",
    "Event",
    "RunCancelled",
    "RunCompleted",
    "RunEnded",
    "RunFailed",
    "RunStopped",
    "StopRequested",
    "TrainBegin",
    "TrainEnd",
    "TrainEpochBegin",
    "TrainEpochEnd",
    "TrainStepBegin",
    "TrainStepEnd",
]

RunKind = Literal["train", "fit", "eval", "predict"]
"""Which `Model` method a run came from."""

Metrics = dict[str, Any]
"""Metric name to value: a float, or a list of floats for per-class metrics."""


# This process's rank in a data-parallel job (0 stand-alone); `communication.init` sets it.
# Every event reads it when built, so the read is a C-level call (`partial(list.__getitem__)`): a
# Python function here cost 37 ns per event against 13 ns, on the per-step path.
_RANK: list[int] = [0]
_current_rank: Callable[[], int] = functools.partial(_RANK.__getitem__, 0)


def set_process_rank(rank: int) -> None:
    """Set the rank every event created from now on carries (called by `communication.init`/`release`)."""
    _RANK[0] = rank


class Event(msgspec.Struct, frozen=True, kw_only=True, tag=True, gc=False):
    """Base of every event; subclass it to define your own.

    Events are immutable snapshots: a worker subscriber that handles one later sees
    what was true when it was published. They encode with `cadence.encode_event`
    (JSON or MessagePack) as a tagged union whose tag is the class name.

    Counting follows `cb_params`: `epoch` counts from 1, `step` is the global step
    of the run counting from 1, `step_in_epoch` restarts at 1 every epoch.

    Subclasses repeat `frozen=True, kw_only=True` (msgspec inherits them at run
    time, but type checkers read each class's own keywords). Events are not tracked by the cyclic garbage
    collector (`gc=False`); a subclass whose fields may reference the event itself
    must pass `gc=True`.

    Example:
        >>> class LrChanged(Event, frozen=True, kw_only=True):
        ...     lr: float
        >>> LrChanged(lr=0.1, time_ns=0)
        LrChanged(time_ns=0, rank=0, lr=0.1)
    """

    time_ns: int = msgspec.field(default_factory=time.time_ns)
    """Wall-clock time of the event, from `time.time_ns()`."""
    rank: int = msgspec.field(default_factory=_current_rank)
    """The data-parallel rank of the process that published the event (0 when stand-alone)."""


# --- training ------------------------------------------------------------------


class TrainBegin(Event, frozen=True, kw_only=True):
    """A training run begins (`on_train_begin`)."""

    epochs: int
    """The last epoch number this run will reach (`Model.train`'s `epoch`)."""
    initial_epoch: int
    """Epochs already done before this run; the first epoch is `initial_epoch + 1`."""
    steps_per_epoch: int
    """`cb_params.batch_num`."""


class TrainEpochBegin(Event, frozen=True, kw_only=True):
    """A training epoch begins (`on_train_epoch_begin`)."""

    epoch: int


class TrainStepBegin(Event, frozen=True, kw_only=True):
    """A training step begins (`on_train_step_begin`)."""

    epoch: int
    step: int
    step_in_epoch: int


class TrainStepEnd(Event, frozen=True, kw_only=True):
    """A training step ended (`on_train_step_end`).

    `loss` is the mean of the network's output (or of its first element when it
    returns a tuple), or None when that is not a number.
    """

    epoch: int
    step: int
    step_in_epoch: int
    loss: float | None


class TrainEpochEnd(Event, frozen=True, kw_only=True):
    """A training epoch ended (`on_train_epoch_end`); `metrics` is set in `fit` epochs with an eval pass."""

    epoch: int
    step: int
    loss: float | None
    metrics: Metrics | None = None


class TrainEnd(Event, frozen=True, kw_only=True):
    """Training ended normally or by a stop request (`on_train_end`)."""

    epoch: int
    step: int


# --- evaluation ------------------------------------------------------------------


class EvalEvent(Event, frozen=True, kw_only=True):
    """Base of the six evaluation events: subscribe to it to receive all of them.

    `epoch` is the training epoch in `fit`, None in `eval`.
    """

    epoch: int | None
    depth: int = 0
    """0 for a run's own evaluation; 1 for a `Model.eval` called from a callback of a running `train`/`fit`, and so on."""


class EvalBegin(EvalEvent, frozen=True, kw_only=True):
    """An evaluation pass begins (`on_eval_begin`) and will run `steps` steps."""

    steps: int


class EvalEpochBegin(EvalEvent, frozen=True, kw_only=True):
    """An evaluation pass's single epoch begins (`on_eval_epoch_begin`)."""


class EvalStepBegin(EvalEvent, frozen=True, kw_only=True):
    """An evaluation step begins (`on_eval_step_begin`); `step` counts the pass's steps from 1."""

    step: int


class EvalStepEnd(EvalEvent, frozen=True, kw_only=True):
    """An evaluation step ended (`on_eval_step_end`)."""

    step: int
    loss: float | None


class EvalEpochEnd(EvalEvent, frozen=True, kw_only=True):
    """An evaluation pass's epoch ended (`on_eval_epoch_end`); metrics are not final yet."""

    step: int


class EvalEnd(EvalEvent, frozen=True, kw_only=True):
    """An evaluation pass ended (`on_eval_end`) with its metrics."""

    step: int
    metrics: Metrics


# --- control and outcome ---------------------------------------------------------


class StopRequested(Event, frozen=True, kw_only=True):
    """Someone asked the run to stop; it stops at the next step boundary."""

    phase: Literal["train", "eval"]
    epoch: int | None
    step: int


class RunEnded(Event, frozen=True, kw_only=True):
    """Base of the terminal events: every run publishes exactly one subclass, last.

    Subscribe to `RunEnded` to hear how any run ended.
    """

    kind: RunKind
    epoch: int | None
    """The last epoch begun (None for `eval` and `predict`)."""
    step: int
    """The last step begun (global)."""


class RunCompleted(RunEnded, frozen=True, kw_only=True):
    """The run did all its epochs and steps."""


class RunStopped(RunEnded, frozen=True, kw_only=True):
    """The run ended early because `request_stop()` was called."""


class RunFailed(RunEnded, frozen=True, kw_only=True):
    """The run ended with an exception (also published when a `__exit__` later suppresses it)."""

    error_type: str
    """Qualified class name of the exception, e.g. `builtins.ValueError`."""
    message: str


class RunCancelled(RunEnded, frozen=True, kw_only=True):
    """The run was cancelled from its host event loop (`train_async` and friends)."""


# --- artifacts ---------------------------------------------------------------------


class CheckpointSaved(Event, frozen=True, kw_only=True):
    """A checkpoint file was written and committed (atomically renamed into place).

    Published by `ModelCheckpoint` (and anything else that saves checkpoints);
    uploaders subscribe to it as workers.
    """

    path: str
    """Absolute path of the committed file."""
    epoch: int | None
    step: int
    """Global step (`cb_params.cur_step_num`) at which it was saved."""
    format: str
    """`"ckpt"` or `"safetensors"`."""
    size_bytes: int
    sha256: str | None = None
    """Hex digest of the file's bytes, when the writer computed it."""


class CheckpointUploaded(Event, frozen=True, kw_only=True):
    """A checkpoint file reached object storage and its copy was verified there.

    Published by `cadence.callbacks.CheckpointUploader` from its worker, after the
    upload is confirmed (checksum or size checked against the stored object).
    """

    path: str
    """Absolute path of the local file that was uploaded."""
    url: str
    """Where the copy is, e.g. `s3://bucket/run/CKP-1_50.ckpt`."""
    epoch: int | None
    step: int
    """Global step at which the checkpoint was saved (from `CheckpointSaved`)."""
    size_bytes: int
    sha256: str | None = None
    """Hex digest of the stored bytes, when the upload was verified by checksum."""
    attempts: int = 1
    """How many tries the upload took (1: no retry)."""
