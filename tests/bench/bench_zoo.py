"""Model-zoo benchmark: samples/s of one training step, cadence against PyTorch eager, per network.

Run: `python tests/bench/bench_zoo.py [--threads 2] [--steps N] [--rounds R] [--only NAME]`.
Not collected by pytest.

Networks are discovered, not listed: every module `_zoo_<net>.py` in this folder
provides `NAME`, `CLASSES`, `cadence_network()`, `torch_network()` (the same
architecture in PyTorch, importing torch inside), `batch(size, rng)` (inputs
and int32 labels) and optionally `ceiling_seconds(size)`: the time of the
step's big products alone through the best available GEMM, a limit no
implementation of the step beats. For each network, at batch 32 and 128, with
the same thread count for every library, it measures:

- cadence `TrainOneStepCell(WithLossCell(net, SoftmaxCrossEntropyWithLogits(sparse=True,
  reduction='mean')), Momentum(lr 0.01, momentum 0.9))` on one fixed batch;
- cadence `Model.train` with LossMonitor (lines to os.devnull) over an in-memory
  dataset of fresh batches: the loop, the data and the callbacks included;
- PyTorch eager: `CrossEntropyLoss`, `SGD(lr=0.01, momentum=0.9)`, zero_grad /
  backward / step on one fixed batch (left out, and said so, when torch is missing);
- the ceiling (samples/s at `ceiling_seconds`) where the module gives one;
- cadence's peak traced memory in one step (tracemalloc: numpy's allocations; torch's
  allocator is not traced, so there is no torch column).

Timing: untimed warm-up calls first (JIT compilation). Then `--rounds` rounds; in each,
every implementation runs one block of `--steps` steps, one after the other
(interleaved, so the machine's load falls on all of them alike); each figure is its
fastest block. Ratios are cadence / torch from the same run. The machine's load
average is printed: on a loaded machine only the ratios mean something.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import time
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import cpu_model
from bench_compute import StepClock

import cadence as ms
import cadence.nn as nn
from cadence.callbacks import LossMonitor
from cadence.dataset import NumpySlicesDataset

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

BATCHES = (32, 128)
HERE = Path(__file__).parent


def discover(only: str | None = None) -> list[ModuleType]:
    """The `_zoo_*.py` modules of this folder, by file name (only `only`'s, when given)."""
    found = [
        importlib.import_module(path.stem) for path in sorted(HERE.glob("_zoo_*.py"))
    ]
    return [m for m in found if only is None or m.NAME.lower() == only.lower()]


def _step_cell(net: nn.Cell) -> nn.Cell:
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    cell = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    cell.set_train()
    return cell


def cadence_step(zoo: ModuleType, size: int) -> Callable[[], Any]:
    """One cadence training step on one fixed batch."""
    ms.set_seed(0)
    cell = _step_cell(zoo.cadence_network())
    x, y = zoo.batch(size, np.random.default_rng(0))
    tx, ty = ms.Tensor(x), ms.Tensor(y)
    return lambda: cell(tx, ty)


def model_train_blocks(zoo: ModuleType, size: int, steps: int) -> Callable[[], float]:
    """A function running `steps` steps of `Model.train` and returning their seconds."""
    ms.set_seed(0)
    net = zoo.cadence_network()
    model = ms.Model(
        net,
        nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
        nn.Momentum(net.trainable_params(), 0.01, 0.9),
    )
    rng = np.random.default_rng(1)
    xs, ys = zip(*(zoo.batch(size, rng) for _ in range(steps + 1)), strict=True)
    data = NumpySlicesDataset(
        {"x": np.concatenate(xs), "y": np.concatenate(ys)}, shuffle=False
    ).batch(size)
    clock = StepClock()

    def block() -> float:
        clock.times.clear()
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            model.train(
                1, data, callbacks=[LossMonitor(), clock], dataset_sink_mode=False
            )
        # From the first step's end to the last: the run's setup and teardown are not per step.
        return (clock.times[-1] - clock.times[0]) * steps / (len(clock.times) - 1)

    return block


def torch_step(zoo: ModuleType, size: int) -> Callable[[], Any] | None:
    """One PyTorch eager training step on one fixed batch, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)
    model = zoo.torch_network()
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = zoo.batch(size, np.random.default_rng(0))
    tx, ty = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))

    def step() -> None:
        # As cadence's step, the loss is not read back to a Python float.
        opt.zero_grad(set_to_none=True)
        loss_fn(model(tx), ty).backward()
        opt.step()

    return step


def timed(step: Callable[[], Any], steps: int) -> float:
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    return time.perf_counter() - t0


def peak_step_bytes(step: Callable[[], Any]) -> int:
    """The peak of memory traced (numpy's allocations) during one step."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        step()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(
    zoo: ModuleType, size: int, steps: int, rounds: int
) -> dict[str, float | None]:
    """Samples/s of every implementation (best block of interleaved rounds), the ceiling, the peak."""
    cell, torch_fn = cadence_step(zoo, size), torch_step(zoo, size)
    train_block = model_train_blocks(zoo, size, steps)
    for _ in range(3):
        cell()
        if torch_fn is not None:
            torch_fn()
    train_block()
    ceiling = getattr(zoo, "ceiling_seconds", None)
    seconds: dict[str, float] = dict.fromkeys(
        ("step", "train", "torch", "ceiling"), np.inf
    )
    for _ in range(rounds):
        seconds["step"] = min(seconds["step"], timed(cell, steps))
        seconds["train"] = min(seconds["train"], train_block())
        if torch_fn is not None:
            seconds["torch"] = min(seconds["torch"], timed(torch_fn, steps))
        if ceiling is not None:  # measured in the rounds too: under the same load
            seconds["ceiling"] = min(seconds["ceiling"], steps * ceiling(size))
    rates: dict[str, float | None] = {k: size * steps / s for k, s in seconds.items()}
    if torch_fn is None:
        rates["torch"] = None
    if ceiling is None:
        rates["ceiling"] = None
    rates["peak_mib"] = peak_step_bytes(cell) / 2**20
    return rates


def _cell(value: float | None, fmt: str = ",.0f") -> str:
    return "-" if value is None else format(value, fmt)


def _ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None else f"{a / b:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--threads", type=int, default=2, help="compute threads (BLAS and torch)"
    )
    parser.add_argument("--steps", type=int, default=5, help="steps per timed block")
    parser.add_argument(
        "--rounds", type=int, default=5, help="interleaved rounds (best block kept)"
    )
    parser.add_argument("--only", help="run one network (its NAME)")
    args = parser.parse_args(argv)
    ms.set_context(runtime_num_threads=args.threads)
    try:
        import torch

        torch.set_num_threads(args.threads)
        baseline = f"PyTorch {torch.__version__} eager"
    except ImportError:
        baseline = (
            "PyTorch is not installed: cadence alone (pip install torch to compare)"
        )
    networks = discover(args.only)
    if not networks:
        print(f"No `_zoo_*.py` network module matches {args.only!r} in {HERE}.")
        return 1
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"CPU: {cpu_model()}; threads: {args.threads}; load average: {load}; baseline: {baseline}"
    )
    print(f"Blocks of {args.steps} steps, best of {args.rounds} interleaved rounds.\n")
    print(
        "| network | batch | cadence step (samples/s) | Model.train (samples/s) | torch eager (samples/s) "
        "| step / torch | train / torch | ceiling (samples/s) | step / ceiling | torch / ceiling "
        "| cadence peak MiB/step |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for zoo in networks:
        for size in BATCHES:
            r = measure(zoo, size, args.steps, args.rounds)
            print(
                f"| {zoo.NAME} | {size} | {_cell(r['step'])} | {_cell(r['train'])} | {_cell(r['torch'])} "
                f"| {_ratio(r['step'], r['torch'])} | {_ratio(r['train'], r['torch'])} | {_cell(r['ceiling'])} "
                f"| {_ratio(r['step'], r['ceiling'])} | {_ratio(r['torch'], r['ceiling'])} | {_cell(r['peak_mib'], '.1f')} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
