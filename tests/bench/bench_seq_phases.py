"""Phases of the sequence networks, forward + backward: cadence against PyTorch eager, one phase at a time.

Run: `python tests/bench/bench_seq_phases.py [--threads 2] [--rounds 7] [--batch 32 128]`.
Not collected by pytest.

The phases of `bench_zoo`'s sentiment LSTM and Transformer that are not one big
matrix product, at the networks' sizes:

- `lstm-layer`: one bidirectional LSTM layer (32 steps, 64 inputs, 64 hidden units),
  forward and the gradients of its input and weights (`cadence.nn.LSTM` / `torch.nn.LSTM`);
- `softmax`: the attention weights' softmax, (batch x 4 heads x 64, 64) rows, forward and
  backward (the CPU kernels / `torch.softmax` with autograd);
- `layer-norm`: a layer norm over (batch x 64, 128), forward and backward.

Each figure is the fastest of interleaved rounds (every implementation runs once per
round, so the machine's load falls on all alike). Two figures each: wall time, and
the CPU time of the calling thread (`time.thread_time`), which load inflates far less:
with `--threads 1` it is all of the work of both libraries. On a loaded machine only
the ratios and the thread times mean something.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import cpu_model, parse_options

import cadence as ms
from cadence.kernels import cpu_kernels

if TYPE_CHECKING:
    from collections.abc import Callable

STEPS, WIDTH, HIDDEN, HEADS, SEQ, D_MODEL = 32, 64, 64, 4, 64, 128


def _lstm(size: int, rng: np.random.Generator) -> tuple[Callable[[], Any], Any]:
    x = rng.standard_normal((STEPS, size, WIDTH), dtype=np.float32)
    net = ms.nn.LSTM(WIDTH, HIDDEN, bidirectional=True)
    step = ms.value_and_grad(lambda t: net(t)[0].sum(), 0, net.trainable_params())
    tx = ms.Tensor(x)

    def torch_run() -> Any:
        import torch

        layer = torch.nn.LSTM(WIDTH, HIDDEN, bidirectional=True)
        t = torch.tensor(x, requires_grad=True)

        def run() -> None:
            layer.zero_grad(set_to_none=True)
            layer(t)[0].sum().backward()

        return run

    return (lambda: step(tx)), torch_run


def _softmax(size: int, rng: np.random.Generator) -> tuple[Callable[[], Any], Any]:
    k = cpu_kernels()
    x = rng.standard_normal((size * HEADS * SEQ, SEQ), dtype=np.float32)
    dy = rng.standard_normal(x.shape, dtype=np.float32)

    def run() -> None:
        k.softmax_backward(dy, k.softmax_forward(x))

    def torch_run() -> Any:
        import torch

        t, g = torch.tensor(x, requires_grad=True), torch.tensor(dy)
        return lambda: torch.softmax(t, -1).backward(g)

    return run, torch_run


def _layer_norm(size: int, rng: np.random.Generator) -> tuple[Callable[[], Any], Any]:
    k = cpu_kernels()
    x = rng.standard_normal((size * SEQ, D_MODEL), dtype=np.float32)
    dy = rng.standard_normal(x.shape, dtype=np.float32)
    gamma, beta = np.ones(D_MODEL, np.float32), np.zeros(D_MODEL, np.float32)

    def run() -> None:
        _, stats = k.layer_norm_forward(x, gamma, beta, 1e-5)
        k.layer_norm_backward(dy, x, gamma, stats)

    def torch_run() -> Any:
        import torch

        t, g = torch.tensor(x, requires_grad=True), torch.tensor(dy)
        norm = torch.nn.LayerNorm(D_MODEL)
        return lambda: norm(t).backward(g)

    return run, torch_run


PHASES = {"lstm-layer": _lstm, "softmax": _softmax, "layer-norm": _layer_norm}


def _timed(run: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    run()
    return time.perf_counter() - wall, time.thread_time() - cpu


def main(argv: list[str] | None = None) -> int:
    args = parse_options(
        __doc__,
        {
            "--threads": {
                "type": int,
                "default": 2,
                "help": "compute threads (BLAS, row blocks, torch)",
            },
            "--rounds": {
                "type": int,
                "default": 7,
                "help": "interleaved rounds (best kept)",
            },
            "--batch": {"type": int, "nargs": "+", "default": [32, 128]},
        },
        argv,
    )
    ms.set_context(runtime_num_threads=args.threads)
    try:
        import torch

        torch.set_num_threads(args.threads)
        has_torch = True
    except ImportError:
        has_torch = False
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{cpu_model()}; threads: {args.threads}; load average: {load}")
    print(
        "| phase | batch | cadence ms (wall / thread) | torch ms (wall / thread) | torch / cadence (wall) | (thread) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name, build in PHASES.items():
        for size in args.batch:
            run, torch_build = build(size, np.random.default_rng(0))
            runs = {"cadence": run}
            if has_torch:
                runs["torch"] = torch_build()
            best = {n: [np.inf, np.inf] for n in runs}
            for r in runs.values():
                r()  # warm-up and JIT compilation
            for _ in range(args.rounds):
                for n, r in runs.items():
                    best[n] = [
                        min(a, b) for a, b in zip(best[n], _timed(r), strict=True)
                    ]
            c = best["cadence"]
            t = best.get("torch")
            ratio = "-" if t is None else f"{t[0] / c[0]:.2f} | {t[1] / c[1]:.2f}"
            torch_ms = "-" if t is None else f"{t[0] * 1e3:.1f} / {t[1] * 1e3:.1f}"
            print(
                f"| {name} | {size} | {c[0] * 1e3:.1f} / {c[1] * 1e3:.1f} | {torch_ms} | {ratio} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
