"""Data-parallel benchmark: 2 MPI ranks with 1 BLAS thread each against 1 process with 2 threads.

Run: `python tests/bench/bench_distributed.py [--steps N] [--only mlp:256 ...]`. Not
collected by pytest.

Same global batch, same network, same number of steps: one process trains on
batch B with 2 threads; `mpiexec -n 2` trains 2 ranks on B/2 each (sharded),
1 thread each, gradients averaged by the default reduction (the machine's
shared-memory window, see docs/distributed.md). Reported: global samples/s of
each and their ratio, per-step reduction time and the part of it the training
thread waited for after backward (exposed; all of it on the window path, which
overlaps nothing), and the hidden fraction 1 - exposed / reduction. Also the
raw allreduce latency (8 bytes) and bandwidth (1 MB and 40 MB) between the 2
ranks on this machine (shared memory), and the best time of one whole
reduction of the network's gradients through the window and through
`MPI_Allreduce`, the ranks starting together (the reduction's own cost,
without the waiting for a slower rank that the step timings include).

Two more arms in the same run tell a miss from a limit:

- the ceiling: two independent processes, 1 thread and B/2 samples per step each,
  running at once with no communication at all: what 2 ranks would reach if every
  reduction were free (their summed samples/s over the 2-thread process's);
- forced overlap: the 2 ranks with 1 MiB `MPI_Allreduce` buckets reduced during
  backward (the bucket path's default only where every rank has a spare core):
  the hidden fraction and what it does to throughput.

Inside the 2-rank job (`BENCH_AB`, set by `main`), three more models are timed in
blocks interleaved with the default's: one reduced by `MPI_Allreduce` after
backward, one whose every gradient is copied into the window (Dense layers
not writing theirs there), and one whose ranks each step their own full copy
of the weights instead of their share of the machine's one copy: A/Bs that
host noise does not skew.

`--pairs N` runs only the 2-thread process and the 2 ranks, N times each, every
pair back to back (ABBA order), and prints the median of the pairs' ratios: the
table's arms run minutes apart, and host noise moves their ratio between quiet runs.

Last, where each arm's step goes (the best block's, per step): the train
cell's forward and backward, the reduction's barriers (waiting for the other
rank) and the rest of it (sums, SGD from the rows), the optimizer's update, the
loop's stop vote and everything else between steps.

Timing: after a warm-up `train` (JIT compilation, first broadcast), the best of
BLOCKS timed `train` calls of `--steps` steps; on a shared machine the best
block is the one least disturbed by other processes (see bench_compute.py).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _bench_common import bootstrap_interval, parse_options, repository_root_on_path

BLOCKS = 5
HERE = Path(__file__)
BUCKET_ENV = "BENCH_BUCKET_BYTES"  # set: the ranks' bucket size instead of the default
OVERLAP_BUCKET_BYTES = 1 << 20
AB_ENV = "BENCH_AB"  # set: the ranks also time MPI_Allreduce after backward, blocks interleaved
ONE_BUCKET = (
    1 << 62
)  # as cadence.nn._buckets.ONE_BUCKET: one bucket, reduced when backward ends


def _threads_env(threads: int) -> dict[str, str]:
    n = str(threads)
    return {
        **os.environ,
        "OMP_NUM_THREADS": n,
        "OPENBLAS_NUM_THREADS": n,
        "MKL_NUM_THREADS": n,
        "NUMBA_NUM_THREADS": n,
    }


def worker(kind: str, batch: int, steps: int, distributed: bool) -> dict[str, Any]:
    import numpy as np

    import cadence as ms
    from cadence import dataset as ds, nn
    from cadence.testing import lenet5, mnist_mlp

    repository_root_on_path()
    from tests.helpers.parallel import join_data_parallel

    rank, size = join_data_parallel() if distributed else (0, 1)
    shape: tuple[int, ...] = (1, 28, 28) if kind == "mlp" else (1, 32, 32)
    rng = np.random.default_rng(0)
    rows = batch * steps
    x = rng.standard_normal((rows, *shape)).astype(np.float32)
    y = rng.integers(0, 10, rows).astype(np.int32)
    shards = (size, rank) if distributed else (None, None)
    data = ds.NumpySlicesDataset(
        {"x": x, "y": y}, shuffle=False, num_shards=shards[0], shard_id=shards[1]
    ).batch(batch // size)
    # One arm, or (BENCH_AB) four models whose timed blocks alternate: the default
    # reduction, MPI_Allreduce after backward, the window with every gradient copied
    # into its row (Dense layers not writing theirs there), and the window with each
    # rank stepping its own full copy of the weights (none kept in the shared row).
    buckets: list[int | None] = (
        [int(os.environ[BUCKET_ENV])] if os.environ.get(BUCKET_ENV) else [None]
    )
    if distributed and os.environ.get(AB_ENV):
        buckets = [None, ONE_BUCKET, None, None]
    arms = []
    for n, bucket in enumerate(buckets):
        ms.set_seed(0)
        net: Any = mnist_mlp() if kind == "mlp" else lenet5()
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = ms.Model(net, loss, nn.SGD(net.trainable_params(), 0.01))
        step_cell: Any = model.train_network
        reducer = step_cell.grad_reducer if step_cell.reducer_flag else None
        if reducer is not None and bucket is not None:
            reducer.bucket_bytes = bucket  # before the first step plans
        arms.append(_Arm(model, step_cell, reducer))
        model.train(1, data)  # warm-up: JIT, first broadcast
        if reducer is not None and n >= 2:  # the plan is built: change it from now on
            _ARM_CHANGES[n](reducer.overlapped([]))
    for _ in range(BLOCKS):
        for arm in arms:
            arm.block(data, steps, distributed)
    out = arms[0].result(rows, steps)
    if len(arms) > 1:
        out["allreduce_arm"] = arms[1].result(rows, steps)
        out["copy_arm"] = arms[2].result(rows, steps)
        out["own_copy_arm"] = arms[3].result(rows, steps)
    if distributed and arms[0].reducer is not None:
        reducer = arms[0].reducer
        out["buckets"] = reducer.overlapped([]).bucket_count  # built by the first step
        out["reduction"] = reducer.reduction
        out.update(_allreduce_micro())
        out.update(_reduction_micro([p.asnumpy() for p in arms[0].step_cell.weights]))
    return out if rank == 0 else {}


def _offer_nothing(plan: Any) -> None:
    plan.destinations = list  # every gradient is copied into the row


def _own_weights(plan: Any) -> None:
    shared = plan._shared
    vote = shared.vote
    # Every rank votes for the optimizer's path: each keeps and steps its own full copy.
    shared.vote = lambda params, steps, *rest: vote(params, None)


_ARM_CHANGES = {2: _offer_nothing, 3: _own_weights}


class _Arm:
    """One model under test and the best of its timed blocks."""

    def __init__(self, model: Any, step_cell: Any, reducer: Any) -> None:
        self.model, self.step_cell, self.reducer = model, step_cell, reducer
        self.phases = _PhaseTimer(step_cell)
        self.best = float("inf")
        self.best_stats = (0.0, 0.0, 0.0)
        self.best_phases: dict[str, float] = {}

    def block(self, data: Any, steps: int, distributed: bool) -> None:
        import numpy as np

        from cadence.communication._collectives import allreduce, barrier

        if self.reducer is not None:
            self.reducer.stats.reset()
        self.phases.start()
        if distributed:
            barrier()
        start = time.perf_counter()
        self.model.train(1, data)
        elapsed = time.perf_counter() - start
        if distributed:
            elapsed = float(allreduce(np.array([elapsed]), "max")[0])
        if elapsed < self.best:
            self.best = elapsed
            self.best_phases = self.phases.per_step_ms(elapsed, steps)
            if self.reducer is not None:
                s = self.reducer.stats
                self.best_stats = (
                    s.allreduce_s / max(1, s.steps),
                    s.exposed_s / max(1, s.steps),
                    s.barrier_s / max(1, s.steps),
                )

    def result(self, rows: int, steps: int) -> dict[str, Any]:
        return {
            "samples_per_s": rows / self.best,
            "allreduce_ms": self.best_stats[0] * 1e3,
            "exposed_ms": self.best_stats[1] * 1e3,
            "barrier_ms": self.best_stats[2] * 1e3,
            "phases_ms": self.best_phases,
        }


class _PhaseTimer:
    """Where one step's time goes (the training thread's wall clock, summed over a block).

    `step`: the train cell (forward, backward, reduction, update); `update`: the
    optimizer; `vote`: the loop's per-step stop vote; `loop`: everything else
    between steps (data, events). The reduction's exposed wait comes from the
    reducer's own stats.
    """

    active: _PhaseTimer | None = None
    """The timer of the block running now: the one vote wrapper adds to it."""

    def __init__(self, step_cell: Any) -> None:
        import cadence.training._loop as loop

        self.sums = {"step": 0.0, "update": 0.0, "vote": 0.0}
        self._wrap(step_cell, "construct", "step")
        self._wrap(step_cell.optimizer, "construct", "update")
        vote = getattr(loop, "any_rank")  # noqa: B009
        if not getattr(
            vote, "timed", False
        ):  # the loop calls it by the name it imported
            setattr(loop, "any_rank", _timed_vote(vote))  # noqa: B010

    def _timed(self, fn: Any, key: str) -> Any:
        sums, clock = self.sums, time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                sums[key] += clock() - start

        return timed

    def _wrap(self, obj: Any, name: str, key: str) -> None:
        object.__setattr__(obj, name, self._timed(getattr(obj, name), key))

    def start(self) -> None:
        for key in self.sums:
            self.sums[key] = 0.0
        _PhaseTimer.active = self

    def per_step_ms(self, elapsed: float, steps: int) -> dict[str, float]:
        ms = {k: v * 1e3 / steps for k, v in self.sums.items()}
        ms["loop"] = elapsed * 1e3 / steps - ms["step"] - ms["vote"]
        return ms


def _timed_vote(vote: Any) -> Any:
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return vote(*args, **kwargs)
        finally:
            if _PhaseTimer.active is not None:
                _PhaseTimer.active.sums["vote"] += time.perf_counter() - start

    timed.timed = True  # type: ignore[attr-defined]
    return timed


def _reduction_micro(grads: list[Any]) -> dict[str, float]:
    """Best time of one whole gradient reduction (copies in, reduce, views out), each path, in us.

    The ranks start each repeat together (a barrier), so this is the reduction's
    own cost, without the waiting for a slower rank that the step timings include.
    """
    from cadence.communication import _world
    from cadence.nn._buckets import ONE_BUCKET, BucketPlan, ReductionStats
    from cadence.nn._window_plan import WindowPlan

    world = _world.require("bench")
    shapes = [g.shape for g in grads]
    plans: dict[str, Any] = {
        "window_us": WindowPlan(world, shapes, grads[0].dtype, 2.0, ReductionStats()),
        "allreduce_us": BucketPlan(
            world, shapes, [g.dtype for g in grads], 2.0, ONE_BUCKET, ReductionStats()
        ),
    }
    result = {}
    for label, plan in plans.items():
        best = float("inf")
        for _ in range(100):
            world.comm.Barrier()
            t = time.perf_counter()
            plan.begin()
            for i in reversed(range(len(grads))):
                plan.ready(i, grads[i])
            plan.finish(grads)
            best = min(best, time.perf_counter() - t)
        result[label] = best * 1e6
    return result


def _allreduce_micro() -> dict[str, float]:
    import numpy as np

    from cadence.communication import _world

    world = _world.require("bench")
    result = {}
    for label, n in (
        ("latency_us_8B", 2),
        ("gbps_1MB", 262_144),
        ("gbps_40MB", 10_000_000),
    ):
        buf = np.ones(n, np.float32)
        reps = 200 if n < 1000 else (20 if n < 1_000_000 else 5)
        best = float("inf")
        for _ in range(reps):
            world.comm.Barrier()
            t = time.perf_counter()
            world.comm.Allreduce(world.mpi.IN_PLACE, buf, op=world.mpi.SUM)
            best = min(best, time.perf_counter() - t)
        result[label] = (
            best * 1e6 if label.startswith("latency") else buf.nbytes * 8 / best / 1e9
        )
    return result


def _command(
    kind: str,
    batch: int,
    steps: int,
    distributed: bool,
    threads: int,
    bucket: int,
    ab: bool = True,
) -> tuple[list[str], dict[str, str]]:
    args = [sys.executable, str(HERE), "--worker", kind, str(batch), str(steps)]
    if not distributed:
        return args, _threads_env(threads)
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    env = _threads_env(1)
    if bucket:
        env[BUCKET_ENV] = str(bucket)
    elif ab:  # the default reduction, and MPI_Allreduce after backward next to it
        env[AB_ENV] = "1"
    return [mpiexec, "-n", "2", *args, "--distributed"], env


def _result(out: str) -> dict[str, Any]:
    line = [ln for ln in out.splitlines() if ln.startswith("{")][-1]
    return dict(json.loads(line))


def run(
    kind: str,
    batch: int,
    steps: int,
    distributed: bool,
    threads: int = 1,
    bucket: int = 0,
    ab: bool = True,
) -> dict[str, Any]:
    cmd, env = _command(kind, batch, steps, distributed, threads, bucket, ab)
    out = subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=1200, check=True
    ).stdout
    return _result(out)


def ceiling(kind: str, batch: int, steps: int) -> float:
    """Samples/s of two 1-thread processes on B/2 each, at once, never communicating (summed)."""
    cmd, env = _command(kind, batch // 2, steps, False, 1, 0)
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=1200)[0] for p in procs]
    return sum(float(_result(out)["samples_per_s"]) for out in outs)


def paired_ratios(kind: str, batch: int, steps: int, count: int) -> list[float]:
    """2 ranks over the 2-thread process, `count` pairs each run back to back, in ABBA order.

    The table's ratio compares arms run minutes apart, which host noise moves by
    several points between quiet runs; a pair's two runs share the same minute.
    """
    ratios = []
    for i in range(count):
        order = (False, True) if i % 2 == 0 else (True, False)
        rate = {
            d: run(kind, batch, steps, d, threads=1 if d else 2, ab=False)[
                "samples_per_s"
            ]
            for d in order
        }
        ratios.append(rate[True] / rate[False])
    return ratios


def _hidden(result: dict[str, Any]) -> float:
    """The fraction of the allreduce time the training thread did not wait for."""
    if not result["allreduce_ms"]:
        return 0.0
    return max(0.0, 1 - float(result["exposed_ms"]) / float(result["allreduce_ms"]))


CASES = ("mlp:256", "mlp:64", "lenet:256", "lenet:64")


def _phase_row(label: str, result: dict[str, Any]) -> str:
    p = result["phases_ms"]
    compute = p["step"] - p["update"] - result["exposed_ms"]
    barriers = result["barrier_ms"]
    return (
        f"| {label} | {p['step'] + p['vote'] + p['loop']:.2f} | {compute:.2f} | "
        f"{barriers:.2f} | {result['exposed_ms'] - barriers:.2f} | {p['update']:.2f} | "
        f"{p['vote']:.3f} | {p['loop']:.2f} |"
    )


def main() -> None:
    ns = parse_options(
        __doc__,
        {
            "--steps": {"type": int, "default": 40},
            "--worker": {"nargs": 3},
            "--distributed": {"action": "store_true"},
            "--only": {"nargs": "+", "choices": CASES, "default": list(CASES)},
            "--pairs": {"type": int, "default": 0},
        },
    )
    if ns.worker:
        kind, batch, steps = ns.worker[0], int(ns.worker[1]), int(ns.worker[2])
        result = worker(kind, batch, steps, ns.distributed)
        if result:
            print(json.dumps(result), flush=True)
        return
    print(
        f"Load average before the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n"
    )
    if ns.pairs > 0:
        for case in ns.only:
            kind, batch = case.split(":")[0], int(case.split(":")[1])
            ratios = paired_ratios(kind, batch, ns.steps, ns.pairs)
            low, high = bootstrap_interval(ratios)
            print(
                f"{kind} {batch}: 2 ranks / 2-thread process over {len(ratios)} back-to-back "
                f"pairs: median {statistics.median(ratios):.3f} (95% bootstrap interval "
                f"{low:.3f}-{high:.3f}), min {min(ratios):.3f}, max {max(ratios):.3f}; "
                f"pairs: {' '.join(f'{r:.3f}' for r in ratios)}",
                flush=True,
            )
        return
    print(
        "| network | global batch | 1 process, 2 threads (samples/s) | 1 process, 1 thread | "
        "2 ranks, 1 thread each (samples/s) | ratio to 2 threads | ceiling: no communication | "
        "reduction / step (ms) | exposed / step (ms) | hidden | MPI_Allreduce after backward: ratio "
        "(interleaved) | forced overlap: ratio | forced overlap: hidden |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    micro: dict[str, float] = {}
    phases: list[str] = []
    reductions: list[str] = []
    for case in ns.only:
        kind, batch = case.split(":")[0], int(case.split(":")[1])
        one = run(kind, batch, ns.steps, False, threads=2)
        single = run(kind, batch, ns.steps, False, threads=1)
        two = run(kind, batch, ns.steps, True)
        free = ceiling(kind, batch, ns.steps)
        forced = run(kind, batch, ns.steps, True, bucket=OVERLAP_BUCKET_BYTES)
        base = one["samples_per_s"]
        print(
            f"| {kind} | {batch} | {base:.0f} | {single['samples_per_s']:.0f} | "
            f"{two['samples_per_s']:.0f} | {two['samples_per_s'] / base:.2f} | {free / base:.2f} | "
            f"{two['allreduce_ms']:.2f} | {two['exposed_ms']:.2f} | {_hidden(two):.0%} "
            f"({two['reduction']}) | {two['allreduce_arm']['samples_per_s'] / base:.2f} | "
            f"{forced['samples_per_s'] / base:.2f} | {_hidden(forced):.0%} "
            f"({forced['buckets']} bucket{'s' if forced['buckets'] > 1 else ''}) |",
            flush=True,
        )
        micro = {
            k: v
            for k, v in two.items()
            if k.startswith(("latency", "gbps")) or k.endswith("_us")
        }
        reductions.append(
            f"{kind} ({batch}): {micro['window_us']:.0f} us through the shared window, "
            f"{micro['allreduce_us']:.0f} us with MPI_Allreduce"
        )
        phases += [
            _phase_row(f"{kind} {batch}: 1 process, 2 threads", one),
            _phase_row(f"{kind} {batch}: 2 ranks, rank 0", two),
            _phase_row(
                f"{kind} {batch}: 2 ranks, MPI_Allreduce after backward",
                two["allreduce_arm"],
            ),
            _phase_row(f"{kind} {batch}: 2 ranks, forced overlap", forced),
            _phase_row(
                f"{kind} {batch}: 2 ranks, every gradient copied into the window "
                f"(interleaved, ratio {two['copy_arm']['samples_per_s'] / base:.2f})",
                two["copy_arm"],
            ),
            _phase_row(
                f"{kind} {batch}: 2 ranks, each stepping its own copy of the weights "
                f"(interleaved, ratio {two['own_copy_arm']['samples_per_s'] / base:.2f})",
                two["own_copy_arm"],
            ),
        ]
    print()
    print(
        f"Allreduce between the 2 ranks (shared memory, best of repeats): latency {micro['latency_us_8B']:.1f} us "
        f"(8 bytes), {micro['gbps_1MB']:.2f} Gb/s at 1 MB, {micro['gbps_40MB']:.2f} Gb/s at 40 MB."
    )
    print(
        "One reduction of the network's gradients (copies in, reduce, views out; best of 100): "
        + "; ".join(reductions)
        + "."
    )
    print()
    print(
        "Per step (ms, the best block): | arm | step | forward + backward | reduction: barriers "
        "(waiting for the other rank) | reduction: the rest (sums, SGD from the rows) | "
        "update | stop vote | loop |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(phases))


if __name__ == "__main__":
    main()
