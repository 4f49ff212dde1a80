"""3x3 stride-1 convolutions of ResNet-18 at 32x32: every CPU algorithm, forward + backward, at 1 and N threads.

Run: `python tests/bench/bench_conv3x3.py [--batch 32] [--threads 2] [--rounds 7] [--clock cpu|wall]`.
Not collected by pytest.

For each 3x3 stride-1 shape of ResNet-18 (64@32x32, 128@16x16, 256@8x8, 512@4x4) it runs
one forward and one backward (input and weight gradients) of each kernel pair of the CPU
table that computes it: Winograd (`conv2d_winograd`) with each transform set, F(4x4, 3x3)
and F(2x2, 3x3) (the runtime picks by output and batch size: `_winograd_reference.output_tile`),
im2col with the split GEMM (`conv2d`) and the per-sample columns (`conv2d_planar`). Calls are interleaved
(every pair at 1 thread, then every pair at N, per round) and each figure is the fastest
round's, timed as in `bench_scaling.py`: `--clock cpu` (the default: the machine is shared)
takes the busiest thread's CPU time, calling thread or kernel pool, which the load barely
changes. The last column names the pair the runtime picks (`cadence.ops._nn._conv_layout`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import cpu_model, parse_options
from bench_scaling import Sample, estimate
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from cadence.kernels import _winograd_reference, cpu_kernels
from cadence.ops._nn import _conv_layout

if TYPE_CHECKING:
    from collections.abc import Callable

SHAPES = ((64, 32), (128, 16), (256, 8), (512, 4))
"""(channels in and out, input side) of ResNet-18's 3x3 stride-1 convolutions at 32x32 input."""
ALGORITHMS = {
    # column: (kernel pair, MIN_F4_TILES while it runs)
    "winograd 4x4": ("conv2d_winograd", 1),
    "winograd 2x2": ("conv2d_winograd", 1 << 30),
    "im2col": ("conv2d", 1),
    "planar": ("conv2d_planar", 1),
}
GEOMETRY = ((1, 1), (1, 1, 1, 1), (1, 1))
OPTIONS: dict[str, dict[str, Any]] = {
    "--threads": {"type": int, "default": 2, "help": "threads of the second column"},
    "--batch": {"type": int, "default": 32, "help": "images per call"},
    "--rounds": {"type": int, "default": 7, "help": "interleaved rounds (best kept)"},
    "--clock": {
        "choices": ("cpu", "wall"),
        "default": "cpu",
        "help": "busiest thread's CPU time (loaded machine) or wall clock (quiet machine)",
    },
}


def _call(algorithm: str, x: np.ndarray, w: np.ndarray) -> Callable[[], Any]:
    pair, min_f4 = ALGORITHMS[algorithm]
    kernels = cpu_kernels()
    forward = getattr(kernels, f"{pair}_forward")
    backward = getattr(kernels, f"{pair}_backward")

    def run() -> None:
        chosen = _winograd_reference.MIN_F4_TILES
        _winograd_reference.MIN_F4_TILES = min_f4
        try:
            backward(forward(x, w, *GEOMETRY), x, w, *GEOMETRY, True)
        finally:
            _winograd_reference.MIN_F4_TILES = chosen

    return run


def _timed(run: Callable[[], Any], threads: int, clock: str) -> float:
    with threadpool_limits(limits=threads, user_api="blas"):
        start = Sample()
        run()
        return estimate(Sample().since(start), clock)


def main(argv: list[str] | None = None) -> int:
    args = parse_options(__doc__, OPTIONS, argv)
    counts = (1, args.threads)
    print(
        f"{cpu_model()}, batch {args.batch}, clock {args.clock}, fastest of {args.rounds} "
        f"interleaved rounds, load average {os.getloadavg()[0]:.1f}"
    )
    heads = "".join(f"{a:>14}" for a in ALGORITHMS)
    print(f"{'channels@side':<16}{'threads':>8}{heads} (ms)   picked")
    rng = np.random.default_rng(0)
    for c, side in SHAPES:
        x = rng.standard_normal((args.batch, c, side, side), dtype=np.float32)
        w = rng.standard_normal((c, c, 3, 3), dtype=np.float32) / np.float32(
            np.sqrt(9 * c)
        )
        runs = {a: _call(a, x, w) for a in ALGORITHMS}
        best = {(a, n): np.inf for a in ALGORITHMS for n in counts}
        for p, n in best:  # warm-up: JIT compilation, buffers, both thread counts
            _timed(runs[p], n, args.clock)
        for _ in range(args.rounds):
            for p, n in best:
                best[p, n] = min(best[p, n], _timed(runs[p], n, args.clock))
        picked = _conv_layout(cpu_kernels(), x.shape, w.shape, *GEOMETRY)
        if picked == "conv2d_winograd":
            m = _winograd_reference.output_tile(args.batch, side, side)
            picked += f" {m}x{m}"
        for n in counts:
            cells = "".join(f"{best[a, n] * 1e3:>14.1f}" for a in ALGORITHMS)
            print(f"{f'{c}@{side}x{side}':<16}{n:>8}{cells}   {picked}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
