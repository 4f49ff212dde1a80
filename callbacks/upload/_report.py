"""What a `CheckpointUploader` run achieved: `UploadReport`, and the warning and error that carry it."""

from __future__ import annotations

from dataclasses import dataclass, field

from cadence import CadenceError, CadenceWarning

__all__ = ["UploadIncompleteError", "UploadIncompleteWarning", "UploadReport"]


@dataclass(frozen=True)
class UploadReport:
    """Which checkpoint files of one run reached the store, and which did not.

    Paths are absolute local paths, each in the order its checkpoint was saved.

    Attributes:
        destination: The destination URL.
        uploaded: Files uploaded and verified in this run (including owed files of
            an earlier run).
        already_stored: Owed files of an earlier run found intact in the store, so not uploaded again.
        failed: File -> the last error, for files whose upload failed for good
            (refused credentials, retries exhausted, local file gone).
        pending: Files still queued or being uploaded when the deadline passed.
        dropped: Files the queue's overflow policy discarded before they were uploaded.
        bytes_uploaded: Bytes of the files uploaded in this run.
        upload_seconds: Time spent uploading them (excluding verification and queueing).
        notes: Problems that did not stop an upload (e.g. the remote `latest` pointer
            or remote retention failed).
    """

    destination: str
    uploaded: tuple[str, ...] = ()
    already_stored: tuple[str, ...] = ()
    failed: dict[str, str] = field(default_factory=dict)
    pending: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    bytes_uploaded: int = 0
    upload_seconds: float = 0.0
    notes: tuple[str, ...] = ()

    @property
    def not_uploaded(self) -> tuple[str, ...]:
        """Every file that did not reach the store: failed, then pending, then dropped."""
        return (*self.failed, *self.pending, *self.dropped)

    @property
    def complete(self) -> bool:
        """Whether every file reached the store."""
        return not self.not_uploaded

    def format(self) -> str:
        """Return a short multi-line description, naming every file that did not reach the store."""
        lines = [
            f"Checkpoint upload to {self.destination}: {len(self.uploaded)} uploaded, "
            f"{len(self.already_stored)} already stored, {len(self.failed)} failed, {len(self.pending)} pending, "
            f"{len(self.dropped)} dropped."
        ]
        lines += [f"  failed: {path} ({error})" for path, error in self.failed.items()]
        lines += [f"  pending: {path}" for path in self.pending]
        lines += [f"  dropped: {path}" for path in self.dropped]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


class UploadIncompleteWarning(CadenceWarning):
    """Some checkpoint files did not reach the store by the end of the run (`report` says which)."""

    def __init__(self, report: UploadReport) -> None:
        super().__init__(_message(report))
        self.report = report


class UploadIncompleteError(CadenceError):
    """Raised at the end of a run by `CheckpointUploader(on_incomplete="raise")` when files did not reach the store.

    Attributes:
        report: The run's `UploadReport`; `report.not_uploaded` lists the files.
    """

    def __init__(self, report: UploadReport) -> None:
        super().__init__(_message(report))
        self.report = report


def _message(report: UploadReport) -> str:
    return (
        f"{len(report.not_uploaded)} checkpoint file(s) did not reach {report.destination}; the upload ledger keeps "
        f"them owed for the next run (dropped ones excepted).\n{report.format()}"
    )
