"""Writing summary records to TensorBoard event files, off the training thread.

`SummaryCollector` gathers values on the training thread (cheap: a few floats,
and the histogram statistics of the parameters it was asked to histogram, see
`_histogram`) as `SummaryRecord`s and publishes them in bursts, each one
`SummaryBatch` event (one publish, one queue slot, however many steps it
covers); an `EventFileSink`, subscribed as a bus worker, turns them into
TensorBoard event files (tensorboardX's protobuf classes and its `RecordWriter`
for the TFRecord framing). Serialization and file writes never run on the
training thread.
"""

from __future__ import annotations

import functools
import os
import socket
import threading
import time
import types
from typing import Any

import msgspec

from cadence import Event

from ._histogram import HistogramStats, histogram_raw_args

__all__ = [
    "EventFileSink",
    "SummaryBatch",
    "SummaryRecord",
    "file_suffix",
]


class SummaryRecord(Event, frozen=True, kw_only=True):
    """Summary values of one step, addressed to one sink (a private event of `SummaryCollector`)."""

    sink: int
    """`id()` of the `EventFileSink` this record is for: several collectors may share a bus."""
    step: int
    scalars: dict[str, float] = msgspec.field(default_factory=dict)
    histograms: dict[str, HistogramStats] = msgspec.field(default_factory=dict)
    """Tag to the histogram statistics (`histogram_stats()`) taken on the training thread."""
    texts: dict[str, str] = msgspec.field(default_factory=dict)
    close: bool = False
    """The last record of a run: flush and close the event file."""


class SummaryBatch(Event, frozen=True, kw_only=True):
    """Summary records handed to the writer together (a private event of `SummaryCollector`)."""

    records: tuple[SummaryRecord, ...]
    """At least one record, all for the same sink, in step order."""

    @property
    def sink(self) -> int:
        """`id()` of the `EventFileSink` the records are for."""
        return self.records[0].sink

    @property
    def step(self) -> int:
        """The first record's step (what error messages name)."""
        return self.records[0].step


class EventFileSink:
    """One run's event file: writes `SummaryRecord`s as TensorBoard events.

    Records are serialized with tensorboardX's protobuf classes and appended to
    the file with tensorboardX's `RecordWriter`, in the calling (worker) thread. tensorboardX's own `SummaryWriter`
    would hand every event to yet another thread through a multiprocessing
    queue, which costs about 50 µs per scalar; the worker already keeps the
    writing off the training thread.

    The file is opened by the first record (so a run that records nothing leaves
    no empty file) and closed by a record with `close=True`, after which `closed`
    is set. It is flushed at most every `flush_secs` seconds while records come
    (so TensorBoard can follow a live run; `RecordWriter` syncs each flush to disk)
    and when closed.

    Args:
        logdir: The directory of the event file (created if missing).
        filename_suffix: Appended to the TensorBoard file name, to keep two runs
            started in the same second from sharing a file.
        flush_secs: Longest time written records may stay in the file buffer.
    """

    def __init__(
        self, logdir: str, filename_suffix: str, flush_secs: float = 10.0
    ) -> None:
        self.logdir = logdir
        self.filename_suffix = filename_suffix
        self.flush_secs = flush_secs
        self.closed = threading.Event()
        self.path: str | None = None
        self._file: Any = None  # tensorboardX's RecordWriter (TFRecord framing)
        self._last_flush = 0.0
        self._failed = False
        # Loaded here, on the thread that creates the sink (the training thread, before
        # the first step), not by the first write on the worker: importing tensorboardX
        # imports PyTorch when it is installed, about a second of CPU that the first
        # epoch's steps would otherwise share their cores with.
        _tensorboardx()

    def handle_batch(self, batch: SummaryBatch) -> None:
        """Write the batch's records in order (see `handle`)."""
        for record in batch.records:
            self.handle(record)

    def handle(self, record: SummaryRecord) -> None:
        """Write `record` (or close the file when `record.close`).

        After a failure (reported once, through the bus) later records are
        dropped, so a full disk fails the run with one error, not one per record.
        """
        if record.close:
            self.close()
            return
        if self._failed:
            return
        try:
            self._write(record)
        except BaseException:
            self._failed = True
            raise

    def close(self) -> None:
        """Flush, sync and close the event file (idempotent); set `closed`."""
        file, self._file = self._file, None
        try:
            if file is not None:
                try:
                    file.flush()  # flushes and fsyncs
                finally:
                    file.close()
        finally:
            self.closed.set()

    def _write(self, record: SummaryRecord) -> None:
        tb = _tensorboardx()
        values = [
            tb.Summary.Value(tag=tag, simple_value=value)
            for tag, value in record.scalars.items()
        ]
        for tag, hist in record.histograms.items():
            values.extend(tb.histogram_raw(tag, **histogram_raw_args(hist)).value)
        for tag, body in record.texts.items():
            values.extend(tb.text(tag, body).value)
        if values:
            event = tb.Event(
                wall_time=record.time_ns / 1e9,
                step=record.step,
                summary=tb.Summary(value=values),
            )
            self._append(event.SerializeToString())

    def _append(self, data: bytes) -> None:
        file = self._file or self._open()
        file.write(data)
        now = time.monotonic()
        if now - self._last_flush >= self.flush_secs:
            file.flush()
            self._last_flush = now

    def _open(self) -> Any:
        tb = _tensorboardx()
        os.makedirs(self.logdir, exist_ok=True)
        now = time.time()
        name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}{self.filename_suffix}"
        self.path = os.path.join(self.logdir, name)
        if os.path.exists(self.path):  # never append to another run's file
            raise FileExistsError(f"The event file {self.path!r} exists already.")
        self._file = writer = tb.RecordWriter(self.path)
        self._last_flush = time.monotonic()
        writer.write(
            tb.Event(wall_time=now, file_version="brain.Event:2").SerializeToString()
        )
        return writer


@functools.cache
def _tensorboardx() -> types.SimpleNamespace:
    """The tensorboardX classes and functions the sink writes with (imported once)."""
    from tensorboardX.proto.event_pb2 import Event  # type: ignore[import-untyped]
    from tensorboardX.proto.summary_pb2 import Summary  # type: ignore[import-untyped]
    from tensorboardX.record_writer import RecordWriter  # type: ignore[import-untyped]
    from tensorboardX.summary import histogram_raw, text  # type: ignore[import-untyped]

    return types.SimpleNamespace(
        Event=Event,
        Summary=Summary,
        RecordWriter=RecordWriter,
        histogram_raw=histogram_raw,
        text=text,
    )


def file_suffix(sequence: int) -> str:
    """Return the event-file name suffix of a collector's `sequence`-th run in this process."""
    return f".{os.getpid()}.{sequence}.cadence"
