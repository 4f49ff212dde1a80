"""The service's runs: each run's handle, its request, and a bounded history of its encoded events.

One pump task per run reads the run handle's own bounded event stream, numbers
the events (1, 2, ...) and appends them, encoded once, to the run's history;
every Server-Sent-Events client reads the history at its own pace. Nothing here
waits on a client, so a client that stops reading costs the run nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections import OrderedDict, deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from cadence import encode_event

from ._schema import EventsView, RunView, UploadView, checkpoint_view

if TYPE_CHECKING:
    from cadence import RunEvents, RunHandle

    from ._schema import RunRequest

__all__ = ["RunRecord", "RunTable"]


class RunRecord:
    """One run the service started, with its numbered event history."""

    def __init__(
        self,
        handle: RunHandle[None],
        request: RunRequest,
        output: Path | None,
        root: Path,
        history: int,
    ) -> None:
        self.handle = handle
        self.id = handle.id
        self.request = request
        self.output = output
        self.root = root
        self.created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.history: deque[tuple[int, bytes]] = deque(maxlen=history)
        self.last_id = 0
        self.finished = False  # the history holds every event the run will have
        self.changed = anyio.Event()
        self.uploader: Any = None  # the run's CheckpointUploader, if it uploads
        self._stream: RunEvents | None = None

    def open_stream(self, queue_size: int) -> None:
        """Subscribe to the run's events; call right after starting it, before any await."""
        self._stream = self.handle.events(queue_size=queue_size)

    async def pump(self) -> None:
        """Move the run's events into the history until the run ended."""
        stream = self._stream
        assert stream is not None
        try:
            async with stream:
                async for event in stream:
                    self.last_id += 1
                    self.history.append((self.last_id, encode_event(event)))
                    self._notify()
            with contextlib.suppress(Exception):  # a failed run's error is in its view
                await self.handle.wait()
        finally:
            self.finished = True
            self._notify()

    def _notify(self) -> None:
        changed, self.changed = self.changed, anyio.Event()
        changed.set()

    @property
    def first_id(self) -> int:
        """The oldest event id still in the history (0 when empty)."""
        return self.history[0][0] if self.history else 0

    def since(
        self, last_seen: int, limit: int | None = None
    ) -> list[tuple[int, bytes]]:
        """Return the kept events with ids above `last_seen`, oldest first (at most `limit`)."""
        if not self.history or last_seen >= self.last_id:
            return []
        skip = max(0, last_seen - self.first_id + 1)
        stop = None if limit is None else skip + limit
        return list(itertools.islice(self.history, skip, stop))

    def view(self) -> RunView:
        """Describe the run for clients."""
        h = self.handle
        stream = self._stream
        return RunView(
            id=self.id, status=h.status, kind=h.kind, created=self.created, request=self.request,
            output=str(self.output.relative_to(self.root)) if self.output is not None else None,
            progress=h.progress, outcome=h.outcome,
            checkpoints=[checkpoint_view(c, self.root) for c in h.checkpoints],
            upload=self._upload_view(),
            events=EventsView(
                first_id=self.first_id, last_id=self.last_id,
                dropped=stream.dropped if stream is not None else 0,
            ),
        )  # fmt: skip

    def _upload_view(self) -> UploadView | None:
        uploader = self.uploader
        if uploader is None:
            return None
        report = uploader.report if self.handle.done else None
        if report is None:
            return UploadView(destination=uploader.destination, report=None)
        shown = self._relative
        return UploadView(
            destination=uploader.destination,
            report={
                "complete": report.complete,
                "uploaded": [shown(p) for p in report.uploaded],
                "already_stored": [shown(p) for p in report.already_stored],
                "failed": {shown(p): error for p, error in report.failed.items()},
                "pending": [shown(p) for p in report.pending],
                "dropped": [shown(p) for p in report.dropped],
                "bytes_uploaded": report.bytes_uploaded,
                "upload_seconds": report.upload_seconds,
                "notes": list(report.notes),
            },
        )

    def _relative(self, path: str) -> str:
        # Clients see paths relative to the output directory, never the server's layout.
        try:
            return str(Path(path).relative_to(self.root))
        except ValueError:
            return Path(path).name


class RunTable:
    """Runs by id, oldest first; keeps at most `keep_finished` runs that ended."""

    def __init__(self, keep_finished: int) -> None:
        self._runs: OrderedDict[str, RunRecord] = OrderedDict()
        self._keep_finished = keep_finished

    def add(self, record: RunRecord) -> None:
        """Remember `record`, forgetting the oldest ended runs beyond the limit."""
        self._runs[record.id] = record
        ended = [r for r in self._runs.values() if r.handle.done]
        for old in ended[: max(0, len(ended) - self._keep_finished)]:
            del self._runs[old.id]

    def get(self, run_id: str) -> RunRecord | None:
        """Return the run with this id, or None."""
        return self._runs.get(run_id)

    def all(self) -> list[RunRecord]:
        """Every remembered run, oldest first."""
        return list(self._runs.values())

    def active(self) -> list[RunRecord]:
        """The runs that have not ended."""
        return [r for r in self._runs.values() if not r.handle.done]
