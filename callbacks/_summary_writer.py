"""Writing summary records to TensorBoard event files, off the training thread.

`SummaryCollector` gathers values on the training thread (cheap: a few floats,
copies of the parameters it was asked to histogram) and publishes them as
`SummaryRecord` events; an `EventFileSink`, subscribed as a bus worker, turns
them into TensorBoard event files with tensorboardX. Building protobufs and
histograms costs milliseconds, so none of it runs on the training thread.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import msgspec
import numpy as np

from cadence import Event

__all__ = [
    "HISTOGRAM_BINS",
    "EventFileSink",
    "SummaryRecord",
    "file_suffix",
    "histogram",
]

HISTOGRAM_BINS = 64
"""Equal-width bins per histogram. Computed here in two passes over the values, a
parameter histogram costs about a fifth of tensorboardX's `add_histogram` (which
converts to float64 and sorts into ~1,500 exponential bins); the cost matters
because the writer shares the CPU with the training step."""


class SummaryRecord(Event, frozen=True, kw_only=True):
    """Summary values of one step, addressed to one sink (a private event of `SummaryCollector`)."""

    sink: int
    """`id()` of the `EventFileSink` this record is for: several collectors may share a bus."""
    step: int
    scalars: dict[str, float] = msgspec.field(default_factory=dict)
    histograms: dict[str, Any] = msgspec.field(default_factory=dict)
    """Tag to a numpy array copied on the training thread when the record was made."""
    texts: dict[str, str] = msgspec.field(default_factory=dict)
    close: bool = False
    """The last record of a run: flush and close the event file."""


class EventFileSink:
    """One run's event file: writes `SummaryRecord`s with a tensorboardX `SummaryWriter`.

    The file is opened by the first record (so a run that records nothing leaves
    no empty file) and closed by a record with `close=True`, after which `closed`
    is set. `handle` runs in a bus worker thread, records in publish order.

    Args:
        logdir: The directory of the event files (created if missing).
        filename_suffix: Appended to tensorboardX's file name, to keep two runs
            started in the same second from sharing a file.
    """

    def __init__(self, logdir: str, filename_suffix: str) -> None:
        self.logdir = logdir
        self.filename_suffix = filename_suffix
        self.closed = threading.Event()
        self._writer: Any = None
        self._failed = False

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

    def _write(self, record: SummaryRecord) -> None:
        writer = self._open()
        walltime = record.time_ns / 1e9
        for tag, value in record.scalars.items():
            writer.add_scalar(tag, value, record.step, walltime=walltime)
        for tag, values in record.histograms.items():
            hist = histogram(values)
            if hist is not None:
                writer.add_histogram_raw(
                    tag, **hist, global_step=record.step, walltime=walltime
                )
        for tag, text in record.texts.items():
            writer.add_text(tag, text, record.step, walltime=walltime)

    def close(self) -> None:
        """Flush and close the event file (idempotent); set `closed`."""
        writer, self._writer = self._writer, None
        try:
            if writer is not None:
                writer.close()
        finally:
            self.closed.set()

    def _open(self) -> Any:
        if self._writer is None:
            # Imported here (0.1 s): only a run that records anything pays for it.
            from tensorboardX import SummaryWriter  # type: ignore[import-untyped]

            # flush_secs: the file is flushed at close anyway; a crash loses at most a minute.
            self._writer = SummaryWriter(
                self.logdir,
                max_queue=100,
                flush_secs=60,
                filename_suffix=self.filename_suffix,
            )
        return self._writer


def histogram(values: Any, bins: int = HISTOGRAM_BINS) -> dict[str, Any] | None:
    """Return the arguments of tensorboardX's `add_histogram_raw` for `values`; None if none is finite.

    Non-finite values (a diverged parameter) are left out rather than failing
    the run. TensorBoard reads `bucket_limits` as right edges, so an empty
    bucket ending at the minimum comes first.
    """
    array = np.asarray(values).reshape(-1)
    if not np.isfinite(array).all():
        array = array[np.isfinite(array)]
    if not array.size:
        return None
    low, high = float(array.min()), float(array.max())
    if high == low:  # a constant tensor (a fresh bias): one bucket around the value
        low, high = low - 0.5, high + 0.5
    index = ((array - low) * (bins / (high - low))).astype(np.intp)
    np.clip(index, 0, bins - 1, out=index)
    counts = np.bincount(index, minlength=bins)
    return {
        "min": float(array.min()),
        "max": float(array.max()),
        "num": int(array.size),
        "sum": float(array.sum(dtype=np.float64)),
        "sum_squares": float(np.dot(array, array)),
        "bucket_limits": np.linspace(low, high, bins + 1).tolist(),
        "bucket_counts": [0, *counts.tolist()],
    }


def file_suffix(sequence: int) -> str:
    """Return the event-file name suffix of a collector's `sequence`-th run in this process."""
    return f".{os.getpid()}.{sequence}.cadence"
