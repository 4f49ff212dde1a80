"""Runtime overhead: the event bus and the Model loop against plain Python, measured in the same run.

Run: `python tests/bench/bench_runtime.py` (or all benchmarks: `python tests/bench/run_all.py`).
Prints a markdown table; ratios compare numbers taken in this run, interleaved, so a
noisy shared machine affects both sides alike.
"""

from __future__ import annotations

import functools
import gc
import platform
import statistics
import sys
import time
from typing import TYPE_CHECKING

import cadence
from cadence import Callback, EventBus, Model, TrainStepBegin, TrainStepEnd
from cadence.testing import ListDataset

if TYPE_CHECKING:
    from collections.abc import Callable

STEPS = 10000
REPEATS = 15


class NoOp(Callback):
    def on_train_step_begin(self, run_context):
        pass

    def on_train_step_end(self, run_context):
        pass


def network(x, y):
    return 0.5


def bare_loop(dataset: ListDataset, callbacks: list[Callback]) -> None:
    """What a hand-written loop does: iterate, call the network, call each callback's two hooks."""
    rc = cadence.RunContext({})
    cb = {"cur_step_num": 0}
    for batch in dataset.create_tuple_iterator(num_epochs=1):
        cb["cur_step_num"] += 1
        for c in callbacks:
            c.on_train_step_begin(rc)
        out = network(*batch)
        cb["net_outputs"] = out
        for c in callbacks:
            c.on_train_step_end(rc)


def model_loop(dataset: ListDataset, callbacks: list[Callback]) -> None:
    Model(network).train(1, dataset, callbacks=callbacks)


def per_step_ns(fn: Callable[[], None], steps: int) -> float:
    gc.disable()
    try:
        start = time.perf_counter_ns()
        fn()
        return (time.perf_counter_ns() - start) / steps
    finally:
        gc.enable()


def interleaved(
    cases: dict[str, Callable[[], None]], steps: int, repeats: int = REPEATS
) -> dict[str, float]:
    """Median ns per step of each case, the cases run in turn `repeats` times."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for fn in cases.values():  # warm up
        fn()
    for _ in range(repeats):
        for name, fn in cases.items():
            samples[name].append(per_step_ns(fn, steps))
    return {name: statistics.median(v) for name, v in samples.items()}


def ns_per_call(fn: Callable[[], object], n: int = 200_000) -> float:
    best = float("inf")
    for _ in range(7):
        gc.disable()
        start = time.perf_counter_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter_ns() - start) / n)
        gc.enable()
    return best


def bench_publish() -> dict[str, float]:
    bus = EventBus()
    event = TrainStepEnd(epoch=1, step=1, step_in_epoch=1, loss=0.5)
    empty = ns_per_call(lambda: bus.publish(event))
    loop_overhead = ns_per_call(lambda: None)
    wants = ns_per_call(lambda: bus.wants(TrainStepBegin))
    build = ns_per_call(
        lambda: TrainStepEnd(epoch=1, step=1, step_in_epoch=1, loss=0.5)
    )
    return {"publish, no subscriber": empty - loop_overhead, "wants(), no subscriber": wants - loop_overhead,
            "build a TrainStepEnd": build - loop_overhead}  # fmt: skip


def bench_worker_publish() -> tuple[float, float]:
    """Ns the publishing thread spends per event handed to one worker subscriber: (CPU, wall).

    CPU time of the publishing thread is its own cost; wall time also includes
    waiting for the GIL while the worker (a no-op here) runs on its loop thread.
    """
    bus = EventBus()

    async def sink(event: TrainStepEnd) -> None:
        pass

    bus.subscribe(TrainStepEnd, sink, mode="worker", queue_size=1_000_000)
    event = TrainStepEnd(epoch=1, step=1, step_in_epoch=1, loss=0.5)
    bus.publish(event)  # start the worker loop before timing
    bus.drain_sync()
    n = 20_000
    cpu = wall = float("inf")
    for _ in range(7):
        start_cpu, start = time.thread_time_ns(), time.perf_counter_ns()
        for _ in range(n):
            bus.publish(event)
        cpu = min(cpu, (time.thread_time_ns() - start_cpu) / n)
        wall = min(wall, (time.perf_counter_ns() - start) / n)
        bus.drain_sync()
    bus.close()
    return cpu, wall


def main() -> None:
    print(
        f"# Runtime benchmark — Python {platform.python_version()}, {platform.machine()}, {sys.platform}"
    )
    pub = bench_publish()
    worker_cpu, worker_wall = bench_worker_publish()
    dataset = ListDataset.of_steps(STEPS)
    rows: list[tuple[int, float, float]] = []
    sizes = (0, 1, 10, 50)
    cbs: dict[int, list[Callback]] = {n: [NoOp() for _ in range(n)] for n in sizes}
    cases: dict[str, Callable[[], None]] = {}
    for n in sizes:
        cases[f"bare {n}"] = functools.partial(bare_loop, dataset, cbs[n])
        cases[f"model {n}"] = functools.partial(model_loop, dataset, cbs[n])
    medians = interleaved(cases, STEPS)
    fixed = medians["model 0"] - medians["bare 0"]
    listening = (medians["model 1"] - medians["model 0"]) - (
        medians["bare 1"] - medians["bare 0"]
    )
    # Marginal cost of one more hook call: the slope between 10 and 50 callbacks,
    # free of the fixed per-step costs that appear once anything listens.
    slope_model = (medians["model 50"] - medians["model 10"]) / 80
    slope_bare = (medians["bare 50"] - medians["bare 10"]) / 80
    rows.extend((n, medians[f"bare {n}"], medians[f"model {n}"]) for n in sizes)
    print()
    print("| measure | result | target |")
    print("|---|---|---|")
    print(
        f"| publish an event nobody listens to | {pub['publish, no subscriber']:.0f} ns | < 300 ns |"
    )
    print(
        f"| `bus.wants(type)` (asked before building a step event) | {pub['wants(), no subscriber']:.0f} ns | - |"
    )
    print(
        f"| build a `TrainStepEnd` event | {pub['build a TrainStepEnd']:.0f} ns | - |"
    )
    print(
        f"| fixed per-step overhead of `Model.train` over the bare loop, no callbacks | {fixed / 1000:.2f} µs | < 5 µs |"
    )
    print(
        f"| extra per-step cost once something listens to step events (2 events built and published) | {listening / 1000:.2f} µs | - |"
    )
    print(
        f"| one more inline hook call: Model.train vs a direct method call | {slope_model:.1f} ns vs {slope_bare:.1f} ns = {slope_model / slope_bare:.2f}x | ≤ 1.5x |"
    )
    print(
        f"| publishing thread's CPU time per event for one worker subscriber | {worker_cpu / 1000:.2f} µs | < 2 µs |"
    )
    print(
        f"| same, wall time (includes waiting for the GIL while the worker runs) | {worker_wall / 1000:.2f} µs | - |"
    )
    print()
    print(
        f"Per step, {STEPS} steps per run, median of {REPEATS} interleaved repeats (the run's set-up is included, amortized)."
    )
    print()
    print(
        "| no-op callbacks (2 hooks each) | bare loop ns/step | Model.train ns/step | Model / bare |"
    )
    print("|---|---|---|---|")
    for n, bare, model in rows:
        print(f"| {n} | {bare:.0f} | {model:.0f} | {model / bare:.2f} |")


if __name__ == "__main__":
    main()
