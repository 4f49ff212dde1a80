"""Callbacks overhead: the MLP trained with the standard callbacks against none, in the same run.

Run: `python tests/bench/bench_callbacks.py [--steps 300] [--repeats 20]` (or every
benchmark: `python tests/bench/run_all.py`).

The network is MindSpore's MNIST MLP (Flatten, Dense(784, 512), ReLU, Dense(512, 512),
ReLU, Dense(512, 10)) with SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
and SGD(lr=0.01), on MNIST-shaped random float32 data in batches of 64 (938 steps: one MNIST epoch). Each repeat
trains one epoch with no callbacks and one with LossMonitor + TimeMonitor +
ModelCheckpoint(every 100 steps) + SummaryCollector + ProgressBar, in alternating
order (ABBA), so a noisy shared machine affects both arms alike. Each run checkpoints
into a new, empty directory (as a training job does), removed after the run, untimed.
Printed output of the callbacks goes to /dev/null (the ProgressBar draws its live bar
there), so the numbers are the callbacks' own cost and not a terminal's.

Two times per run:
- the training phase, from `on_train_begin` to `on_train_end` (every step, its hooks,
  the periodic checkpoints, the epoch's end), taken by a `PhaseClock` that is first in
  every arm's list and has no per-step hook. The issue's target ("must not slow the
  step: under 5 %") is about this time.
- the whole `Model.train` call, which adds what a run does once at its end:
  ModelCheckpoint's forced save of the last step (it waits until that file is
  committed), closing the event file, stopping the bus's worker thread. A run of one
  epoch pays it in full; a run of n epochs pays it once.

Prints a markdown table and the slowdown of the training phase as the median of the
rounds' own ratios (each ABBA round compares its two runs of an arm with its two runs
without callbacks, so a machine that drifts between rounds moves both sides), with a
bootstrap 95 % interval for that median, next to the ratio of the arms' medians and of
their minimums. `--record FILE` appends the rounds to FILE; `--pool FILE` prints every
recorded run and all their rounds pooled (runs at different times sample different
loads of a shared machine).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
from _bench_common import bootstrap_interval

from cadence import BusStatistics, Callback, Model, RunContext
from cadence.testing import mnist_mlp_model, random_mnist_dataset

if TYPE_CHECKING:
    from collections.abc import Callable

BATCH = 64
TARGET_PERCENT = 5.0


def machine() -> str:
    """CPU model and cores (lscpu), Python, numpy and numba versions."""
    model = platform.processor() or platform.machine()
    try:
        out = subprocess.run(
            ["lscpu"], capture_output=True, text=True, check=True
        ).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return (
        f"{model}, {os.cpu_count()} cores; Python {platform.python_version()}, "
        f"numpy {np.__version__}, numba {numba.__version__}"
    )


def build_model() -> Model:
    return mnist_mlp_model()


def build_dataset(steps: int) -> Any:
    return random_mnist_dataset(steps, BATCH)


ALL_CALLBACKS = (
    "LossMonitor",
    "TimeMonitor",
    "ModelCheckpoint",
    "SummaryCollector",
    "ProgressBar",
)


def standard_callbacks(
    workdir: str, sink: Any, names: tuple[str, ...] = ALL_CALLBACKS
) -> list[Any]:
    """The callbacks named (by default the five of the issue); raises ImportError if one is missing."""
    import cadence.callbacks as cbs

    def make(name: str) -> Any:
        if name == "ModelCheckpoint":
            config = cbs.CheckpointConfig(
                save_checkpoint_steps=100, keep_checkpoint_max=5
            )
            return cbs.ModelCheckpoint(
                prefix="bench", directory=run_directory(workdir), config=config
            )
        if name == "SummaryCollector":
            return cbs.SummaryCollector(os.path.join(workdir, "summary"))
        if name == "ProgressBar":
            return cbs.ProgressBar(file=sink, terminal=True)
        return getattr(cbs, name)()

    missing = [n for n in names if not hasattr(cbs, n)]
    if missing:
        raise ImportError(f"cadence.callbacks has no {', '.join(missing)}")
    return [make(name) for name in names]


def run_directory(workdir: str) -> str:
    """A new, empty checkpoint directory for one run, as a training job has (see `timed`)."""
    return tempfile.mkdtemp(prefix="run-", dir=workdir)


class BareDurableSave(Callback):
    """Control arm: the least a durable checkpoint every 100 steps can cost, without cadence.

    At the same steps as the benchmark's ModelCheckpoint, it copies the same arrays (the
    train network's parameters: weights and optimizer state) into a reused page-aligned
    buffer and, in a plain thread, writes the buffer to a temporary file
    with `O_DIRECT` (the cheapest write measured here; a plain buffered write where the
    file system refuses it), fsyncs it, renames it into place, fsyncs the directory and
    deletes the file from five saves ago: what any crash-safe checkpoint must do, with
    no format, pointer, event or hashing. ModelCheckpoint's slowdown minus this one's is
    what cadence's checkpointing adds above that floor.
    """

    def __init__(self, directory: str, every: int = 100, keep: int = 5) -> None:
        self.directory, self.every, self.keep = directory, every, keep
        self.pool = ThreadPoolExecutor(max_workers=1)
        self.pending: Future[None] | None = None
        self.saved: list[str] = []
        self.buffer: Any = None

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb.cur_step_num % self.every:
            return
        if self.pending is not None:
            self.pending.result()  # as ModelCheckpoint without async_save: one pending file
        arrays = [
            p.asnumpy().reshape(-1).view(np.uint8)
            for _, p in cb.train_network.parameters_and_names()
        ]
        size = sum(len(a) for a in arrays)
        if self.buffer is None:  # the previous write is done: one buffer suffices
            padded = -(-size // 4096) * 4096
            raw = np.zeros(padded + 4096, np.uint8)
            start = -raw.ctypes.data % 4096
            self.buffer = raw[start : start + padded]
        buffer = self.buffer
        offset = 0
        for array in arrays:
            buffer[offset : offset + len(array)] = array
            offset += len(array)
        path = os.path.join(self.directory, f"bare-{cb.cur_step_num}.bin")
        self.pending = self.pool.submit(self._write, buffer, size, path)

    def _write(self, buffer: Any, size: int, path: str) -> None:
        os.makedirs(self.directory, exist_ok=True)
        temp = path + ".tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        fd = os.open(temp, flags | getattr(os, "O_DIRECT", 0), 0o600)
        try:
            done = 0
            while done < len(buffer):
                done += os.pwrite(fd, buffer[done:].data, done)
            os.ftruncate(fd, size)
        except OSError:  # no direct I/O on this file system: a plain write
            os.close(fd)
            fd = os.open(temp, os.O_WRONLY | os.O_TRUNC)
            os.write(fd, buffer[:size].data)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        self.saved.append(path)
        if len(self.saved) > self.keep:
            os.remove(self.saved.pop(0))

    def on_train_end(self, run_context: RunContext) -> None:
        if self.pending is not None:
            self.pending.result()
        self.pool.shutdown()


class PhaseClock(Callback):
    """First in every arm: the wall time of the training phase, with no per-step hook."""

    def __init__(self) -> None:
        # Not `begin`/`end`: those are the legacy names of the train hooks.
        self.started = self.ended = 0.0

    def on_train_begin(self, run_context: RunContext) -> None:
        self.started = time.perf_counter()

    def on_train_end(self, run_context: RunContext) -> None:
        self.ended = time.perf_counter()

    @property
    def seconds(self) -> float:
        return self.ended - self.started


class Timing(NamedTuple):
    """One run's seconds: its training phase, the whole `train` call, CPU of all threads."""

    phase: float
    run: float
    cpu: float


def timed(
    model: Model, dataset: Any, callbacks: Callable[[], list[Any]], sink: Any
) -> Timing:
    """Time one epoch of `model.train` with fresh callbacks (see the module's docstring)."""
    clock, cbs = PhaseClock(), callbacks()
    with contextlib.redirect_stdout(sink):
        start, cpu = time.perf_counter(), time.process_time()
        model.train(1, dataset, callbacks=[clock, *cbs])
        wall, used = time.perf_counter() - start, time.process_time() - cpu
    for callback in cbs:  # untimed: the next run starts with an empty directory again
        directory = getattr(callback, "directory", None)
        if isinstance(directory, str) and os.path.basename(directory).startswith(
            "run-"
        ):
            shutil.rmtree(directory, ignore_errors=True)
    return Timing(clock.seconds, wall, used)


class StatsProbe(Callback):
    """Last in the list: at train end, waits for the workers and keeps the bus's per-subscriber statistics."""

    def __init__(self) -> None:
        self.stats: BusStatistics | None = None

    def on_train_end(self, run_context: RunContext) -> None:
        bus = run_context.bus
        assert bus is not None
        bus.drain_sync()
        self.stats = bus.statistics()


def breakdown(
    model: Model, dataset: Any, callbacks: list[Any], sink: Any, steps: int
) -> list[str]:
    """Markdown rows: time inside each subscriber per training step, from the bus's own statistics.

    Inline hooks are timed by the bus (`timing=True`, only for this run); worker
    subscribers (the summary writer) are always timed. Worker time runs on another
    thread, in parallel with the step as far as the GIL and the two cores allow.
    """
    probe = StatsProbe()
    model.bus.timing = True
    try:
        with contextlib.redirect_stdout(sink):
            model.train(1, dataset, callbacks=[*callbacks, probe])
    finally:
        model.bus.timing = False
    assert probe.stats is not None
    rows = []
    for sub in probe.stats.subscribers:
        if sub.name.startswith("StatsProbe") or not sub.total_time_s:
            continue
        per_step = 1e6 * sub.total_time_s / steps
        rows.append(
            f"| {sub.name} | {sub.mode} | {1e3 * sub.total_time_s:.1f} | {per_step:.1f} |"
        )
    return rows


def _percent(value: float, base: float) -> float:
    return 100.0 * (value / base - 1.0)


def median_interval(values: list[float]) -> tuple[float, float]:
    """A bootstrap 95 % interval for the median of `values` (the rounds' slowdowns, in %)."""
    return bootstrap_interval(values)


MIN_ROUNDS = 6
"""Fewer rounds give no usable interval for their median (it spans about all of them)."""

MIN_RUNS = 3
"""`--pool` gives an interval for the mean of the runs' medians from this many runs on."""


def verdict(rounds: list[float]) -> str:
    """The rounds' median and its 95 % interval, against the target."""
    median = statistics.median(rounds)
    if len(rounds) < MIN_ROUNDS:
        return (
            f"too few rounds ({len(rounds)}) for an interval of the median, so no verdict: "
            f"run at least {MIN_ROUNDS} (the default is 20)"
        )
    low, high = median_interval(rounds)
    span = f"95 % interval of the median {low:+.2f} to {high:+.2f} %"
    if high < TARGET_PERCENT:
        return f"{span}: under the {TARGET_PERCENT:g} % target"
    if median < TARGET_PERCENT:
        return f"{span}: the median is under the {TARGET_PERCENT:g} % target, its interval is not"
    return f"{span}: OVER the {TARGET_PERCENT:g} % target"


def record_rounds(
    path: str, label: str, rounds: list[float], control: list[float] | None
) -> None:
    """Append this run's per-round slowdowns to `path` (one JSON object per line), for `--pool`."""
    entry = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "arm": label,
        "rounds": rounds,
        "control": control,
    }
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps(entry) + "\n")


def pool(path: str) -> int:
    """Print each recorded run of the five and all their rounds pooled (see `--record`)."""
    try:
        with open(path, encoding="utf-8") as file:
            runs = [json.loads(line) for line in file if line.strip()]
        runs = [run for run in runs if run["arm"] == "5 standard callbacks"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(
            f"--pool expects a file written by --record (one JSON object per line), "
            f"but {path!r} could not be read as one: {type(exc).__name__}: {exc}"
        )
        return 2
    if not runs:
        print(f"No run of the five callbacks is recorded in {path}.")
        return 1
    for run in runs:
        rounds = run["rounds"]
        print(
            f"{run['date']}: {len(rounds)} rounds, median {statistics.median(rounds):+.1f} %; "
            f"{verdict(rounds)}"
        )
    pooled = [r for run in runs for r in run["rounds"]]
    print(
        f"All {len(runs)} runs pooled, {len(pooled)} rounds: median "
        f"{statistics.median(pooled):+.1f} %; {verdict(pooled)}."
    )
    if len(runs) >= MIN_RUNS:
        # Each run samples one stretch of the host's load: the spread of the runs'
        # medians is the drift between runs, which pooled rounds do not show.
        medians = [statistics.median(run["rounds"]) for run in runs]
        low, high = bootstrap_interval(medians, np.mean)
        print(
            f"Mean of the {len(runs)} runs' medians: {statistics.fmean(medians):+.1f} % "
            f"(95 % interval, the runs resampled, {low:+.2f} to {high:+.2f} %; "
            f"{sum(m >= TARGET_PERCENT for m in medians)} of the {len(runs)} medians at or over "
            f"the {TARGET_PERCENT:g} % target)."
        )
    controls = [r for run in runs for r in (run["control"] or [])]
    if controls:
        print(
            f"Control pooled, {len(controls)} rounds: median {statistics.median(controls):+.1f} %."
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps",
        type=int,
        default=938,
        help="steps per measured epoch (default 938: an MNIST epoch)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=20,
        help="ABBA rounds (default 20: on a shared 2-core VM, 8 rounds left the median ±1.5 points apart from one run to the next)",
    )
    parser.add_argument(
        "--callbacks",
        default=",".join(ALL_CALLBACKS),
        help="comma-separated subset to measure (default: all five)",
    )
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="append this run's per-round slowdowns to FILE (JSON lines), for --pool",
    )
    parser.add_argument(
        "--pool",
        metavar="FILE",
        help="measure nothing: print the runs recorded in FILE and all their rounds pooled",
    )
    args = parser.parse_args(argv)
    if args.pool:
        return pool(args.pool)
    chosen = tuple(n for n in args.callbacks.split(",") if n)
    label = "5 standard callbacks" if chosen == ALL_CALLBACKS else " + ".join(chosen)

    print(f"Machine: {machine()}")
    model, dataset = build_model(), build_dataset(args.steps)
    with tempfile.TemporaryDirectory() as workdir, open(os.devnull, "w") as sink:
        try:
            standard_callbacks(workdir, sink, chosen)
        except ImportError as exc:
            print(f"Cannot run: a callback is missing ({exc}).")
            return 1
        arms: dict[str, Callable[[], list[Any]]] = {
            "no callbacks": list,
            label: lambda: standard_callbacks(workdir, sink, chosen),
        }
        control = ""
        if "ModelCheckpoint" in chosen:
            others = tuple(n for n in chosen if n != "ModelCheckpoint")
            control = " + ".join(
                [*others, "bare durable save"] if others else ["bare durable save"]
            )
            control = f"control: {control}"
            arms[control] = lambda: [
                *standard_callbacks(workdir, sink, others),
                BareDurableSave(run_directory(workdir)),
            ]
        timed(model, dataset, arms[label], sink)  # JIT compile, imports, caches
        runs: dict[str, list[Timing]] = {name: [] for name in arms}
        names = list(arms)
        for repeat in range(args.repeats):
            order = names if repeat % 2 == 0 else names[::-1]
            for name in [*order, *order[::-1]]:
                runs[name].append(timed(model, dataset, arms[name], sink))
        rows = breakdown(
            model, dataset, standard_callbacks(workdir, sink, chosen), sink, args.steps
        )

    print(
        f"\n{args.steps} steps of batch {BATCH} per epoch, {2 * args.repeats} epochs per arm, interleaved ABBA.\n"
    )
    print(
        "| arm | training phase, median ms/step | min | whole run, median ms/step | min "
        "| median CPU ms/step (all threads) |"
    )
    print("|---|---|---|---|---|---|")
    for name in names:
        phase = [1e3 * t.phase / args.steps for t in runs[name]]
        whole = [1e3 * t.run / args.steps for t in runs[name]]
        cpus = [1e3 * t.cpu / args.steps for t in runs[name]]
        print(
            f"| {name} | {statistics.median(phase):.3f} | {min(phase):.3f} | {statistics.median(whole):.3f} "
            f"| {min(whole):.3f} | {statistics.median(cpus):.3f} |"
        )

    def slowdown(name: str, field: str, pick: Callable[[list[float]], float]) -> float:
        return _percent(
            pick([getattr(t, field) for t in runs[name]]),
            pick([getattr(t, field) for t in runs[names[0]]]),
        )

    def paired(name: str) -> list[float]:
        """Slowdown of each ABBA round: the arm's two runs against the baseline's two of that round."""
        arm, base = runs[name], runs[names[0]]
        return sorted(
            _percent(
                arm[2 * r].phase + arm[2 * r + 1].phase,
                base[2 * r].phase + base[2 * r + 1].phase,
            )
            for r in range(args.repeats)
        )

    step = slowdown(names[1], "phase", statistics.median)
    rounds = paired(names[1])
    per_round = statistics.median(rounds)
    print(
        f"\nSlowdown of the training phase (the step), median of the {args.repeats} rounds' own "
        f"ratios: {per_round:+.1f} % (rounds from {rounds[0]:+.1f} to {rounds[-1]:+.1f} %); "
        f"{verdict(rounds)}."
    )
    print("Rounds (%): " + " ".join(f"{r:+.2f}" for r in rounds))
    print(
        f"Same, as the ratio of the arms' medians: {step:+.1f} %, of their minimums: "
        f"{slowdown(names[1], 'phase', min):+.1f} %."
    )
    print(
        f"Slowdown of the whole 1-epoch run (with the end-of-run save and close): "
        f"{slowdown(names[1], 'run', statistics.median):+.1f} % (median), "
        f"{slowdown(names[1], 'run', min):+.1f} % (min); CPU {slowdown(names[1], 'cpu', statistics.median):+.1f} %."
    )
    if args.record:
        record_rounds(args.record, label, rounds, paired(control) if control else None)
    if control:
        floor = statistics.median(paired(control))
        print(
            f"Control ({control.removeprefix('control: ')}, ModelCheckpoint replaced by a bare durable "
            f"save of the same bytes at the same steps): {floor:+.1f} % (training phase, median of rounds). "
            f"What cadence's checkpointing adds above that floor: {per_round - floor:+.1f} points."
        )
    print(
        "\nTime inside each subscriber (one more run, with the bus timing inline hooks):\n"
    )
    print("| subscriber | mode | total ms | µs per step |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
