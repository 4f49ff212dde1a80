"""Kernel-by-kernel 1-to-2-thread scaling of one model-zoo training step.

Run: `python tests/bench/bench_scaling.py --only "ResNet-18 (32x32)" [--batch 32] [--threads 2]
[--rounds 5] [--by shape|kernel] [--top N]`. Not collected by pytest.

Every function of the CPU kernel table (`cadence.kernels.KERNEL_NAMES`) is wrapped in a timer
(the outermost call only, so a kernel calling another through the table counts once), keyed
by its name and the shapes of its first two array arguments (`--by kernel`: the name only).
The step of `bench_zoo.cadence_step` then runs in rounds; each round runs one step at one
thread and one at `--threads` (BLAS's thread count, which is also how many parts the kernels
split into, `cadence.kernels._parallel`), alternately, so the machine's load falls on both.
Each figure is the fastest round's. "outside kernels" is the step minus its kernel calls:
the Python glue, the tape (gradient accumulation), the numpy calls between kernels, none of
which splits over threads.

`--clock wall` (the default) times by wall clock: right on a quiet machine. `--clock cpu`
is for a loaded one, where other processes take the cores for whole milliseconds: each
call is timed by the CPU time of the calling thread and, separately, of each thread of the
kernels' pool (`time.pthread_getcpuclockid`), which the load barely changes. A call's time
at N threads is then estimated as the busiest thread's CPU time: what it would take if every
thread had a core to itself (summed over the calls). The last column gives the calling thread's and the pool's CPU
milliseconds at N threads: a kernel whose work stays on the calling thread shows it there.

Columns: milliseconds per step at 1 and at N threads, the speed-up, the share of the N-thread
step, and "lost": N-thread time minus the 1-thread time / N, the milliseconds that perfect
scaling would save (the table is sorted by it: the worst scalers first).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import time
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import cpu_model
from bench_zoo import cadence_step, discover
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

import cadence as ms
from cadence.kernels import KERNEL_NAMES, _parallel, cpu_kernels

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

OUTSIDE = "outside kernels (glue, tape, numpy)"
STEP = "step"


def pool_cpu_seconds() -> list[float]:
    """CPU seconds so far of each thread of the kernels' pool (`cadence.kernels._parallel`)."""
    pool = _parallel._pool
    threads = [] if pool is None else list(pool._threads)
    return [
        time.clock_gettime(time.pthread_getcpuclockid(t.ident))
        for t in threads
        if t.ident is not None and t.is_alive()
    ]


class Sample:
    """One interval's wall seconds, the calling thread's CPU seconds and each pool thread's."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.caller = time.thread_time()
        self.pool = pool_cpu_seconds()

    def since(self, start: Sample) -> np.ndarray[Any, Any]:
        """(wall, caller CPU, busiest pool thread's CPU, the larger of the two) seconds from `start` to here."""
        grown = [b - a for a, b in zip(start.pool, self.pool, strict=False)]
        # A pool thread started inside the interval counts from its start.
        grown += self.pool[len(start.pool) :]
        caller, pool = self.caller - start.caller, max(grown, default=0.0)
        return np.array((self.wall - start.wall, caller, pool, max(caller, pool)))


class KernelClock:
    """Per kernel label in the current step: its calls' summed `Sample.since` seconds."""

    def __init__(self, by_shape: bool) -> None:
        self.by_shape = by_shape
        self.seconds: defaultdict[str, np.ndarray[Any, Any]] = defaultdict(
            lambda: np.zeros(4)
        )
        self.calls: defaultdict[str, int] = defaultdict(int)
        self._depth = 0

    def label(self, name: str, args: tuple[Any, ...]) -> str:
        if not self.by_shape:
            return name
        shapes = [
            "x".join(map(str, a.shape)) for a in args if isinstance(a, np.ndarray)
        ]
        return f"{name} {' '.join(shapes[:2])}"

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self._depth:  # called by another kernel: counted in that one
                return fn(*args, **kwargs)
            self._depth += 1
            start = Sample()
            try:
                return fn(*args, **kwargs)
            finally:
                key = self.label(name, args)
                self.seconds[key] += Sample().since(start)
                self.calls[key] += 1
                self._depth -= 1

        return timed


@contextlib.contextmanager
def clocked_kernels(clock: KernelClock) -> Iterator[None]:
    """Wrap every function of the CPU kernel table in `clock` inside the block."""
    table = cpu_kernels()
    names = [n for n in (*KERNEL_NAMES, "dense_backward_into") if hasattr(table, n)]
    saved = {n: getattr(table, n) for n in names}
    for n, fn in saved.items():
        setattr(table, n, clock.wrap(n, fn))
    try:
        yield
    finally:
        for n, fn in saved.items():
            setattr(table, n, fn)


def one_step(
    step: Callable[[], Any], clock: KernelClock, threads: int
) -> dict[str, np.ndarray[Any, Any]]:
    """(wall, caller CPU, pool CPU) seconds per label of one step at `threads` threads, the step's and what ran outside kernels."""
    clock.seconds.clear()
    clock.calls.clear()
    with threadpool_limits(limits=threads, user_api="blas"):
        start = Sample()
        step()
        total = Sample().since(start)
    out = dict(clock.seconds)
    outside = total - sum(clock.seconds.values(), np.zeros(4))
    outside[2:] = (0.0, outside[1])  # the pool runs only inside kernels
    out[OUTSIDE] = outside
    out[STEP] = total
    return out


def estimate(seconds: np.ndarray[Any, Any], clock: str) -> float:
    """The time a label takes: wall, or (`cpu`) the sum over its calls of each call's busiest thread's CPU time."""
    return float(seconds[0] if clock == "wall" else seconds[3])


def measure(
    step: Callable[[], Any], clock: KernelClock, threads: int, rounds: int, kind: str
) -> tuple[
    dict[str, np.ndarray[Any, Any]], dict[str, np.ndarray[Any, Any]], dict[str, int]
]:
    """Per label, its fastest round at 1 and at `threads` threads (interleaved rounds), and calls per step."""
    best: dict[int, dict[str, np.ndarray[Any, Any]]] = {1: {}, threads: {}}
    for n in (1, threads):  # warm-up: JIT compilation, buffers, both thread counts
        one_step(step, clock, n)
    for _ in range(rounds):
        for n in (1, threads):
            for key, s in one_step(step, clock, n).items():
                kept = best[n].get(key)
                if kept is None or estimate(s, kind) < estimate(kept, kind):
                    best[n][key] = s
    return best[1], best[threads], dict(clock.calls)


def table(
    one: dict[str, np.ndarray[Any, Any]],
    many: dict[str, np.ndarray[Any, Any]],
    calls: dict[str, int],
    threads: int,
    top: int,
    kind: str,
) -> list[str]:
    """The markdown rows, worst scalers (most milliseconds lost against perfect scaling) first."""
    ms1 = {k: estimate(v, kind) * 1e3 for k, v in one.items()}
    msn = {k: estimate(v, kind) * 1e3 for k, v in many.items()}
    # The step's own estimate: its parts' sum (by CPU, the step's busiest thread is not its critical path).
    for d in (ms1, msn):
        d[STEP] = (
            sum(v for k, v in d.items() if k != STEP) if kind == "cpu" else d[STEP]
        )
    keys = sorted(
        (k for k in ms1 if k != STEP),
        key=lambda k: msn.get(k, 0.0) - ms1[k] / threads,
        reverse=True,
    )
    rows = [
        f"| op | calls | ms, 1 thread | ms, {threads} threads | speed-up | share of step "
        f"| lost ms | CPU ms at {threads}: caller / busiest pool thread |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in [*keys[:top], STEP]:
        a, b = ms1[k], msn.get(k, 0.0)
        cpu = many.get(k, np.zeros(4)) * 1e3
        name = "**whole step**" if k == STEP else k
        rows.append(
            f"| {name} | {calls.get(k, '')} | {a:.1f} | {b:.1f} | {a / b if b else 0:.2f} "
            f"| {b / msn[STEP]:.1%} | {b - a / threads:.1f} | {cpu[1]:.1f} / {cpu[2]:.1f} |"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", required=True, help="the network (its NAME in bench_zoo)"
    )
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument(
        "--threads", type=int, default=2, help="the thread count against 1"
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="interleaved rounds (fastest kept)"
    )
    parser.add_argument("--by", choices=("shape", "kernel"), default="shape")
    parser.add_argument("--top", type=int, default=40, help="rows shown")
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="time by wall clock (quiet machine) or by each thread's CPU time (loaded machine)",
    )
    args = parser.parse_args(argv)
    for name, value in (
        ("--batch", args.batch),
        ("--threads", args.threads),
        ("--rounds", args.rounds),
    ):
        if value < 1:
            parser.error(f"{name} must be at least 1, but got {value}.")
    networks = discover(args.only)
    if not networks:
        print(f"No `_zoo_*.py` network module matches {args.only!r}.")
        return 1
    ms.set_context(runtime_num_threads=args.threads)
    clock = KernelClock(by_shape=args.by == "shape")
    with clocked_kernels(clock):
        step = cadence_step(networks[0], args.batch)
        one, many, calls = measure(step, clock, args.threads, args.rounds, args.clock)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{networks[0].NAME}, batch {args.batch}; CPU: {cpu_model()}; load average: {load}; "
        f"fastest of {args.rounds} interleaved rounds; clock: {args.clock}\n"
    )
    print("\n".join(table(one, many, calls, args.threads, args.top, args.clock)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
