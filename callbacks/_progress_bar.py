"""`ProgressBar`: a live bar per epoch on a terminal, plain progress lines otherwise."""

from __future__ import annotations

import functools
import math
import os
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np

from cadence import Callback, loss_value
from cadence.validation import check_number, check_positive_int, check_type

if TYPE_CHECKING:
    from tqdm import tqdm

    from cadence import RunContext

__all__ = ["ProgressBar"]

_OWNER = "ProgressBar"
_monotonic = time.monotonic
# Plain mode, a dataset without a size: a line every this many steps.
_EVERY_WHEN_SIZE_UNKNOWN = 100
# Bar width on a terminal that reports 0 columns.
_FALLBACK_COLUMNS = 100


class ProgressBar(Callback):
    """Show progress: a live bar per epoch on a terminal, plain periodic lines otherwise.

    On a terminal, each training epoch gets a tqdm bar with the step counter,
    the loss, steps/s and samples/s; at the end of the epoch it also shows the
    evaluation metrics of `Model.fit`. Elsewhere (a log file, a pipe, CI) it
    prints `lines_per_epoch` lines per epoch at evenly spaced steps, the last one
    a summary, so logs stay short and the same for the same run. `Model.eval`
    gets one bar (or summary line) with its metrics. In `Model.fit` an epoch's
    time, steps/s and samples/s cover its training steps, not its evaluation
    pass (as TimeMonitor's `Train epoch time`).

    Rendering stays off the training step: a step only counts, and reads the
    clock; the bar is redrawn at most every `refresh_interval` seconds.

    Args:
        file: Where to write; None means `sys.stdout` as it is when the run begins.
        terminal: True draws the live bar, False prints plain lines, None (the
            default) draws the bar when `file` is a terminal.
        lines_per_epoch: Plain lines per epoch, the summary line included.
        refresh_interval: Seconds between redraws of the live bar.

    Raises:
        TypeError: An argument has the wrong type.
        ValueError: `lines_per_epoch` or `refresh_interval` is not positive.

    Example:
        >>> from cadence import Model
        >>> from cadence.callbacks import ProgressBar
        >>> from cadence.testing import ListDataset, constant_network
        >>> Model(constant_network(0.25)).train(1, ListDataset.of_steps(4), callbacks=ProgressBar(lines_per_epoch=2))  # doctest: +ELLIPSIS
        Epoch 1/1 - 2/4 steps (50%) - ... s - loss 0.25 - ... steps/s
        Epoch 1/1 - 4/4 steps - ... s - loss 0.25 - ... steps/s
    """

    def __init__(
        self,
        *,
        file: TextIO | None = None,
        terminal: bool | None = None,
        lines_per_epoch: int = 4,
        refresh_interval: float = 0.2,
    ) -> None:
        if file is not None and not callable(getattr(file, "write", None)):
            raise TypeError(
                f"For '{_OWNER}', the argument 'file' must be a text stream with a `write` method or None, "
                f"but got {file!r} of type {type(file).__name__!r}."
            )
        self._file = file
        self._terminal = check_type(terminal, "terminal", (bool, type(None)), _OWNER)
        self._lines_per_epoch = check_positive_int(
            lines_per_epoch, "lines_per_epoch", _OWNER
        )
        self._refresh = check_number(
            refresh_interval, "refresh_interval", _OWNER, minimum=0.0, inclusive=False
        )
        self._out: TextIO = sys.stdout
        self._live = False
        self._bar: tqdm[Any] | None = None
        self._title = ""
        self._last_epoch = 0
        self._total = 0
        self._reset_counters()

    def _reset_counters(self) -> None:
        self._n = 0  # steps of the current epoch (or eval run)
        self._shown = 0  # steps the live bar shows
        self._samples = 0
        self._start = time.perf_counter()
        self._paused_at: float | None = None  # when fit's evaluation pass began
        self._next_draw = 0.0
        self._line_steps: list[int] = []
        self._next_line = math.inf

    # --- training -----------------------------------------------------------------------

    def on_train_begin(self, run_context: RunContext) -> None:
        """Choose the output and its mode for this run."""
        self._begin_output()
        self._last_epoch = 0

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        """Start this epoch's bar (or plan its plain lines)."""
        cb = run_context.original_args()
        epoch = cb["cur_epoch_num"]
        if not self._last_epoch:
            self._last_epoch = epoch - 1 + int(cb.get("epoch_num", 1))
        self._start_phase(
            f"Epoch {epoch}/{self._last_epoch}", int(cb.get("batch_num", 0))
        )

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Count the step; redraw or print only when due."""
        # Runs every step: count, and draw or print only when due.
        self._n = n = self._n + 1
        cb = run_context.original_args()
        self._samples += _batch_size(cb.get("train_dataset_element"))
        if self._live:
            if _monotonic() >= self._next_draw:
                self._draw(cb)
        elif n >= self._next_line:
            self._print_line(cb, final=False)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Finish the epoch's bar or print its summary line, with `fit`'s evaluation metrics."""
        self._finish(run_context.original_args(), prefix="eval_")

    # --- Model.eval (fit's evaluation passes show as metrics at the epoch's end) ----------

    def on_eval_begin(self, run_context: RunContext) -> None:
        """In `Model.eval`, start a bar for the evaluation steps; in `fit`, stop the epoch's clock."""
        cb = run_context.original_args()
        if "epoch_num" not in cb:
            self._begin_output()
            self._start_phase("Eval", int(cb.get("batch_num", 0)))
        elif self._title:
            # fit's evaluation pass: the epoch's time and rates cover its training steps only.
            if self._live:
                self._draw(cb)  # show every training step before the pause
            self._paused_at = time.perf_counter()

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """In `Model.eval`, count the step; redraw or print only when due."""
        cb = run_context.original_args()
        if "epoch_num" in cb:
            return
        self._n += 1
        self._samples += _batch_size(cb.get("eval_dataset_element"))
        if self._live:
            if _monotonic() >= self._next_draw:
                self._draw(cb)
        elif self._n >= self._next_line:
            self._print_line(cb, final=False)

    def on_eval_end(self, run_context: RunContext) -> None:
        """In `Model.eval`, finish with the metrics; in `fit`, restart the epoch's clock."""
        cb = run_context.original_args()
        if "epoch_num" not in cb:
            self._finish(cb, prefix="")
        elif self._paused_at is not None:
            paused = time.perf_counter() - self._paused_at
            self._paused_at = None
            self._start += paused
            if self._bar is not None:  # tqdm's own clock, for its elapsed time and rate
                self._bar.start_t += paused
                self._bar.last_print_t += paused

    def on_run_ended(self, run_context: RunContext) -> None:
        """Close a bar left open by a failed or cancelled run."""
        self._close_bar()

    # --- rendering ------------------------------------------------------------------------

    def _begin_output(self) -> None:
        self._out = self._file if self._file is not None else sys.stdout
        if self._terminal is None:
            isatty = getattr(self._out, "isatty", None)
            self._live = bool(callable(isatty) and isatty())
        else:
            self._live = self._terminal

    def _start_phase(self, title: str, total: int) -> None:
        self._close_bar()
        self._reset_counters()
        self._title, self._total = title, max(total, 0)
        if self._live:
            self._bar = _new_bar(title, self._total, self._out)
            self._next_draw = _monotonic() + self._refresh
        else:
            self._line_steps = self._plan_lines()
            if self._line_steps:
                self._next_line = self._line_steps.pop(0)
            elif self._total <= 0:
                self._next_line = _EVERY_WHEN_SIZE_UNKNOWN
            else:
                self._next_line = math.inf

    def _plan_lines(self) -> list[int]:
        """Steps (within the epoch) after which a plain progress line is printed."""
        total, lines = self._total, self._lines_per_epoch
        if total <= 0:
            return []  # unknown size: a line every `_EVERY_WHEN_SIZE_UNKNOWN` steps
        steps = sorted({math.ceil(k * total / lines) for k in range(1, lines)})
        return [s for s in steps if 0 < s < total]

    def _draw(self, cb: Any, extra: str = "") -> None:
        bar = self._bar
        if bar is None:
            return
        status = self._status(cb)
        columns = _columns(self._out)  # None: not a terminal, nothing is cut
        if (
            extra and columns is not None
        ):  # the epoch's last draw: its metrics must show
            _fit(bar, status, extra, columns or _FALLBACK_COLUMNS)
        else:
            bar.set_postfix_str(_join(status, extra), refresh=False)
        bar.update(self._n - self._shown)
        self._shown = self._n
        self._next_draw = _monotonic() + self._refresh

    def _print_line(self, cb: Any, *, final: bool, extra: str = "") -> None:
        elapsed = time.perf_counter() - self._start
        if final or self._total <= 0:
            count = (
                f"{self._n}/{self._total} steps"
                if self._total > 0
                else f"{self._n} steps"
            )
        else:
            count = f"{self._n}/{self._total} steps ({100 * self._n // self._total}%)"
        parts = [
            self._title,
            count,
            f"{elapsed:.1f} s",
            *self._status(cb, plain=True, elapsed=elapsed),
        ]
        line = " - ".join(p for p in (*parts, extra) if p)
        print(line, file=self._out, flush=True)
        if self._line_steps:
            self._next_line = self._line_steps.pop(0)
        elif self._total <= 0:
            self._next_line = self._n + _EVERY_WHEN_SIZE_UNKNOWN
        else:
            self._next_line = math.inf

    def _status(
        self, cb: Any, *, plain: bool = False, elapsed: float | None = None
    ) -> list[str]:
        """The loss and the throughput, as `[loss, rates]` (empty items left out)."""
        parts: list[str] = []
        loss = loss_value(cb.get("net_outputs"))
        if loss is not None:
            parts.append(f"loss {loss:.4g}" if plain else f"loss={loss:.4g}")
        if elapsed is None:
            elapsed = time.perf_counter() - self._start
        if elapsed > 0 and self._n:
            samples = (
                f"{self._samples / elapsed:.0f} samples/s" if self._samples else ""
            )
            if plain:  # the live bar shows steps/s itself
                parts.append(
                    f"{self._n / elapsed:.1f} steps/s"
                    + (f", {samples}" if samples else "")
                )
            elif samples:
                parts.append(samples)
        return parts

    def _finish(self, cb: Any, *, prefix: str) -> None:
        metrics = _format_metrics(cb.get("metrics"), prefix, "=" if self._live else " ")
        if self._live:
            self._draw(cb, extra=metrics)
            self._close_bar()
        elif self._title:
            self._print_line(cb, final=True, extra=metrics)
        self._title = ""

    def _close_bar(self) -> None:
        bar, self._bar = self._bar, None
        if bar is not None:
            bar.close()


def _new_bar(title: str, total: int, out: TextIO) -> tqdm[Any]:
    # A terminal reporting 0 columns (a fresh pseudo-terminal, some CI runners)
    # would get an empty bar from tqdm; give it a fixed width instead.
    sized = _columns(out) != 0
    return _bar_class()(
        total=total or None,
        desc=title,
        unit="step",
        file=out,
        leave=True,
        dynamic_ncols=sized,
        ncols=None if sized else _FALLBACK_COLUMNS,
        mininterval=0,  # the callback throttles; tqdm draws whenever asked
        miniters=1,
        disable=False,
    )


def _columns(out: TextIO) -> int | None:
    """The terminal width of `out`, or None when it is not a terminal with a size."""
    try:
        return os.get_terminal_size(out.fileno()).columns
    except (
        AttributeError,
        OSError,
        ValueError,
    ):  # no fileno (StringIO), not a terminal, closed
        return None


@functools.cache
def _bar_class() -> type[tqdm[Any]]:
    from tqdm import tqdm  # imported on first use: plain-line runs never need it

    class Bar(tqdm):  # type: ignore[type-arg]
        """tqdm without its monitor thread: the callback decides when to draw."""

        monitor_interval = 0

    return Bar


# The meter without the rate and the time left: an epoch's last line needs neither.
_COMPACT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
_BAR_WIDTH = 10  # what tqdm draws for `{bar}` when it is given no width


def _fit(bar: tqdm[Any], status: list[str], metrics: str, columns: int) -> None:
    """Set the postfix (and format) that shows `metrics` within `columns`, dropping the least useful first.

    tqdm cuts a line longer than the terminal at its right end, where the
    evaluation metrics are. Tried in order: everything; without the samples
    rate; the compact meter (no rate or time left); the compact meter without
    the training loss. The last is used if nothing fits.
    """
    loss = status[:1]
    candidates = [
        (None, _join(status, metrics)),
        (None, _join(loss, metrics)),
        (_COMPACT, _join(loss, metrics)),
        (_COMPACT, metrics),
    ]
    for bar_format, postfix in candidates:
        bar.bar_format = bar_format
        bar.set_postfix_str(postfix, refresh=False)
        meter = bar.format_meter(**{**bar.format_dict, "ncols": None})
        if len(meter) - _BAR_WIDTH + 1 <= columns:  # a bar of one cell still fits
            return


def _join(parts: list[str], extra: str) -> str:
    return ", ".join([*parts, extra] if extra else parts)


def _batch_size(element: Any) -> int:
    """Rows in a batch (the first column's leading dimension); 0 when unknown."""
    if not element:
        return 0
    shape = getattr(element[0], "shape", None)
    return int(shape[0]) if shape else 0


def _format_metrics(metrics: Any, prefix: str, sep: str) -> str:
    if not isinstance(metrics, dict) or not metrics:
        return ""
    items = []
    for name, value in metrics.items():
        if isinstance(value, int | float | np.number) and not isinstance(value, bool):
            items.append(f"{prefix}{name}{sep}{float(value):.4g}")
        else:
            items.append(f"{prefix}{name}{sep}{value}")
    return ", ".join(items)
