"""What clients send and receive: typed request bodies (decoded and validated by msgspec) and views."""

# No `from __future__ import annotations` here: msgspec resolves string annotations
# in the namespace of `cls.__module__`, which `cadence/service/__init__.py` rewrites.

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from cadence import CheckpointSaved, RunEnded, RunProgress

__all__ = [
    "CheckpointRequest",
    "CheckpointView",
    "ErrorView",
    "EventsView",
    "HealthView",
    "RunListView",
    "RunRequest",
    "RunView",
    "UploadView",
    "decode_run_request",
]

_Name = Annotated[str, Meta(min_length=1, max_length=200)]


class CheckpointRequest(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True
):
    """When and how a run saves checkpoints (`ModelCheckpoint` with a `CheckpointConfig`).

    Files go to the run's `output` directory as `<prefix>-<epoch>_<step in epoch>.<format>`.
    """

    every_steps: Annotated[int, Meta(ge=1)] | None = None
    """Save every this many steps; by default once per epoch."""
    keep: Annotated[int, Meta(ge=1, le=1000)] = 5
    """How many of the newest checkpoints to keep."""
    format: Literal["ckpt", "safetensors"] = "ckpt"
    prefix: Annotated[
        str, Meta(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$")
    ] = "checkpoint"
    """File name prefix: letters, digits, `_`, `.` and `-`."""


class RunRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The body of `POST /runs`: what to train, on what, for how long, and where results go."""

    model: _Name = "mlp"
    """A model preset: `"mlp"` or `"lenet5"`."""
    dataset: _Name = "digits"
    """A data set preset: `"digits"` (scikit-learn's 8x8 handwritten digits)."""
    epochs: Annotated[int, Meta(ge=1, le=100_000)] = 10
    batch_size: Annotated[int, Meta(ge=1, le=4096)] = 32
    learning_rate: Annotated[float, Meta(gt=0, le=10)] = 0.1
    seed: Annotated[int, Meta(ge=0, le=2**32 - 1)] = 0
    eval_every: Annotated[int, Meta(ge=0)] = 1
    """Evaluate on the test split every this many epochs (0: never)."""
    output: _Name | None = None
    """Directory for the run's files, relative to the server's output directory; by default a new name."""
    checkpoint: CheckpointRequest | None = None
    """Save checkpoints; none are saved when this is absent."""
    upload: _Name | None = None
    """Also copy every checkpoint to this object-store URL (`s3://`, `gs://`, `az://`, `memory://`)."""


_decoder = msgspec.json.Decoder(RunRequest)


def decode_run_request(body: bytes) -> RunRequest:
    """Decode and validate a `POST /runs` body (an empty body means every default).

    Raises:
        msgspec.DecodeError: The body is not JSON.
        msgspec.ValidationError: A field is missing, unknown, of the wrong type or out of range.
    """
    return _decoder.decode(body.strip() or b"{}")


class CheckpointView(msgspec.Struct, frozen=True, kw_only=True):
    """A checkpoint a run saved; `exists` is false once retention deleted it."""

    path: str
    """Relative to the server's output directory."""
    epoch: int | None
    step: int
    format: str
    size_bytes: int
    sha256: str | None
    exists: bool


class EventsView(msgspec.Struct, frozen=True, kw_only=True):
    """The event history the server keeps for a run (ids for `Last-Event-ID`)."""

    first_id: int
    """The oldest event id still kept (0: none yet)."""
    last_id: int
    dropped: int
    """Events lost before reaching the history (the server's reader fell behind)."""


class UploadView(msgspec.Struct, frozen=True, kw_only=True):
    """Where a run's checkpoints are uploaded, and how that went once the run ended."""

    destination: str
    report: Any
    """Once the run ended: `complete`, `uploaded`, `already_stored`, `failed` (path -> error), `pending`,
    `dropped` (paths relative to the output directory), `bytes_uploaded`, `upload_seconds`, `notes`; else None."""


class RunView(msgspec.Struct, frozen=True, kw_only=True):
    """A run as `GET /runs/{id}` shows it."""

    id: str
    status: str
    kind: str
    created: str
    """ISO 8601, UTC."""
    request: RunRequest
    output: str | None
    """The run's directory, relative to the server's output directory."""
    progress: RunProgress
    outcome: RunEnded | None
    """The terminal event, once the run ended."""
    checkpoints: list[CheckpointView]
    upload: UploadView | None
    events: EventsView


class RunListView(msgspec.Struct, frozen=True, kw_only=True):
    """`GET /runs`: the runs the server remembers, oldest first."""

    runs: list[RunView]


class HealthView(msgspec.Struct, frozen=True, kw_only=True):
    """`GET /health`."""

    status: Literal["ok"]
    active_runs: int
    max_runs: int


class ErrorView(msgspec.Struct, frozen=True, kw_only=True):
    """Every 4xx and 5xx reply: what went wrong, in a sentence."""

    error: str


def checkpoint_view(event: CheckpointSaved, relative_to: Any) -> CheckpointView:
    """Describe a saved checkpoint with its path relative to `relative_to` (a `Path`)."""
    from pathlib import Path

    path = Path(event.path)
    try:
        shown = str(path.relative_to(relative_to))
    except ValueError:
        shown = path.name
    return CheckpointView(
        path=shown, epoch=event.epoch, step=event.step, format=event.format,
        size_bytes=event.size_bytes, sha256=event.sha256, exists=path.exists(),
    )  # fmt: skip
