"""The upload ledger: an append-only JSON-lines record of which checkpoint files reached which store.

Every line is one `LedgerRecord`. A file is `queued` when its checkpoint is saved
(before any upload starts), then `uploaded` once the stored copy is verified, or
`failed` (still owed: the next run retries it), `dropped` (the queue's overflow
policy discarded it: not owed), `lost` (the local file vanished before it was
uploaded). Remote retention appends `deleted` for the objects it removed. A run that
crashed or was killed leaves `queued`/`failed` as the last word on some files:
`owed()` returns exactly those. Every line is written with one `write(2)` before the
writer goes on (so it survives the process being killed); `queued` lines are fsynced
by the upload worker before it uploads the file, the others as they are written. A
torn last line (the machine died mid-write) is ignored when reading.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from typing import Literal

import msgspec

__all__ = ["LedgerRecord", "UploadLedger", "default_ledger_path"]


def default_ledger_path(directory: str) -> str:
    """Return where the ledger of the checkpoints in `directory` lives unless `ledger=` says otherwise.

    Outside the checkpoint directory, so that it holds only checkpoints (code that
    loads every file of it keeps working): in the user's state directory
    (`$XDG_STATE_HOME`, else `~/.local/state`), under `cadence/upload-ledgers/`, one
    file per checkpoint directory, named after it and a digest of its absolute path.
    The ledger speaks of this machine's local files, so this machine's state
    directory is where a later run looks for what is still owed.
    """
    absolute = os.path.realpath(directory)
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    digest = hashlib.sha256(absolute.encode()).hexdigest()[:16]
    name = f"{os.path.basename(absolute) or 'root'}-{digest}.jsonl"
    return os.path.join(state, "cadence", "upload-ledgers", name)


Op = Literal["queued", "uploaded", "failed", "dropped", "lost", "deleted"]
_COMPACT_LINES = 4096  # rewrite the ledger with only what matters once it is this long


class LedgerRecord(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One ledger line: what happened to one file for one destination."""

    op: Op
    destination: str
    path: str
    """Absolute local path of the checkpoint file."""
    name: str
    """Object name relative to the destination."""
    sha256: str | None = None
    size: int | None = None
    epoch: int | None = None
    step: int = 0
    time_ns: int = 0
    """`time_ns` of the `CheckpointSaved` event (identifies one save of the path)."""
    error: str | None = None
    at: float = 0.0
    """Wall-clock time the line was written."""


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(LedgerRecord)


class UploadLedger:
    """Append and read one ledger file; thread-safe within a process.

    Args:
        path: The ledger file (created with its folder on the first write).
    """

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)
        self._lock = threading.Lock()
        self._unsynced = False  # lines written without fsync since the last sync

    def append(self, record: LedgerRecord, *, durable: bool = True) -> None:
        """Write one record; with `durable`, also fsync it (else `sync()` does, later).

        Once `append` returns, the line is in the operating system's cache: it
        survives the process being killed. Only `durable` (or `sync()`) makes it
        survive a power loss or kernel crash too.
        """
        if not record.at:
            record = msgspec.structs.replace(record, at=time.time())
        line = _ENCODER.encode(record) + b"\n"
        with self._lock:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, line)
                if durable:
                    os.fsync(fd)
                self._unsynced = not durable
            finally:
                os.close(fd)

    def sync(self) -> None:
        """Make every line appended so far durable (fsync); cheap when there is nothing new."""
        with self._lock:
            if not self._unsynced:
                return
            try:
                fd = os.open(self.path, os.O_RDONLY)
            except FileNotFoundError:
                return
            try:
                os.fsync(fd)  # the file's cached pages, whichever descriptor wrote them
            finally:
                os.close(fd)
            self._unsynced = False

    def read(self) -> list[LedgerRecord]:
        """Return every readable record, oldest first (a torn or foreign line is skipped)."""
        try:
            with open(self.path, "rb") as file:
                lines = file.read().splitlines()
        except FileNotFoundError:
            return []
        records = []
        for line in lines:
            if not line.strip():
                continue
            try:
                records.append(_DECODER.decode(line))
            except msgspec.DecodeError:
                continue
        return records

    def owed(self, destination: str) -> list[LedgerRecord]:
        """Return the latest `queued` record of every file whose last word for `destination` is queued or failed."""
        last: dict[str, LedgerRecord] = {}
        queued: dict[str, LedgerRecord] = {}
        for record in self.read():
            if record.destination != destination or record.op == "deleted":
                continue
            last[record.path] = record
            if record.op == "queued":
                queued[record.path] = record
        return [
            queued[path]
            for path, record in last.items()
            if record.op in ("queued", "failed") and path in queued
        ]

    def stored(self, destination: str) -> list[LedgerRecord]:
        """Return the `uploaded` records of objects still in `destination`, in upload order (oldest first)."""
        kept: dict[str, LedgerRecord] = {}
        for record in self.read():
            if record.destination != destination:
                continue
            if record.op == "uploaded":
                kept.pop(record.name, None)  # re-uploaded: now the newest
                kept[record.name] = record
            elif record.op == "deleted":
                kept.pop(record.name, None)
        return list(kept.values())

    def compact(self) -> None:
        """Rewrite the ledger keeping only what `owed` and `stored` need, once it has grown long."""
        with self._lock:
            records = self.read()
            if len(records) < _COMPACT_LINES:
                return
            keep: list[LedgerRecord] = []
            for destination in dict.fromkeys(r.destination for r in records):
                keep += self.stored(destination)
                keep += self.owed(destination)
            keep.sort(key=lambda r: r.at)
            temp = f"{self.path}.{os.getpid()}.tmp"
            with open(temp, "wb") as file:
                for record in keep:
                    file.write(_ENCODER.encode(record) + b"\n")
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, self.path)

    def __repr__(self) -> str:
        return f"<UploadLedger {self.path!r}>"
