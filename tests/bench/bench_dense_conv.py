"""Dense (group 1) convolution, forward + backward, per ResNet-18 layer: cadence against PyTorch and its GEMMs.

Run: `python tests/bench/bench_dense_conv.py [--threads 2] [--batch 32] [--rounds 7]`.
Not collected by pytest.

For every distinct convolution of ResNet-18 at 32x32 input (CIFAR shape) it
times one forward and one backward (input and weight gradients; the stem,
whose input needs no gradient, only the weight's) of:

- cadence's CPU kernels (`conv2d_forward` / `conv2d_backward` of the kernel table);
- PyTorch eager (`torch.nn.functional.conv2d` and autograd), when installed;
- the three products of the convolution as GEMMs through numpy's BLAS (forward,
  weight and input gradients, with the im2col matrices prepared outside the
  timing): the ceiling of an im2col implementation.

Runs are interleaved (one call of each per round) and each figure is the fastest
round, so the machine's load falls on all alike; `--threads 1 --cpu-time` times
by the calling thread's CPU time instead, which the load does not inflate. The last row weighs each layer
by how often ResNet-18 has it: the convolutions of one training step.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import cpu_model, parse_options

import cadence as ms
from cadence.kernels import cpu_kernels
from cadence.ops._nn import _conv_layout

if TYPE_CHECKING:
    from collections.abc import Callable

# (in channels, out channels, input side, kernel, stride, times in ResNet-18).
LAYERS = (
    (3, 64, 32, 3, 1, 1),
    (64, 64, 32, 3, 1, 4),
    (64, 128, 32, 3, 2, 1),
    (64, 128, 32, 1, 2, 1),
    (128, 128, 16, 3, 1, 3),
    (128, 256, 16, 3, 2, 1),
    (128, 256, 16, 1, 2, 1),
    (256, 256, 8, 3, 1, 3),
    (256, 512, 8, 3, 2, 1),
    (256, 512, 8, 1, 2, 1),
    (512, 512, 4, 3, 1, 3),
)
OPTIONS: dict[str, dict[str, Any]] = {
    "--threads": {
        "type": int,
        "default": 2,
        "help": "compute threads (BLAS, numba, torch)",
    },
    "--batch": {"type": int, "default": 32, "help": "images per call"},
    "--rounds": {"type": int, "default": 7, "help": "interleaved rounds (best kept)"},
    "--cpu-time": {
        "action": "store_true",
        "help": "time by the calling thread's CPU time (with --threads 1: what load does not inflate)",
    },
}


def _geometry(k: int, stride: int) -> tuple[Any, ...]:
    pad = k // 2
    return (stride, stride), (pad, pad, pad, pad), (1, 1)


def _cadence(
    x: np.ndarray, w: np.ndarray, stride: int
) -> tuple[str, Callable[[], Any]]:
    """The kernel pair the runtime picks for this convolution (`ops._nn._conv_layout`), and one call of it."""
    kernels, geometry = cpu_kernels(), _geometry(w.shape[2], stride)
    layout = _conv_layout(kernels, x.shape, w.shape, *geometry)
    forward, backward = (
        getattr(kernels, f"{layout}_{d}") for d in ("forward", "backward")
    )
    need_dx = x.shape[1] > 3  # the stem's input is the data: no gradient

    def run() -> None:
        backward(forward(x, w, *geometry), x, w, *geometry, need_dx)

    return layout, run


def _torch(x: np.ndarray, w: np.ndarray, stride: int) -> Callable[[], Any] | None:
    """PyTorch's `Conv2d` (no bias) holding w, forward and backward, or None without torch."""
    try:
        import torch
    except ImportError:
        return None
    conv = torch.nn.Conv2d(
        x.shape[1], w.shape[0], w.shape[2], stride, w.shape[2] // 2, bias=False
    )
    conv.weight.data = torch.from_numpy(w)
    source = torch.from_numpy(x).requires_grad_(x.shape[1] > 3)

    def run() -> None:
        out = conv(source)
        out.backward(out.detach())

    return run


def _gemms(x: np.ndarray, w: np.ndarray, stride: int) -> Callable[[], Any]:
    n, c, side = x.shape[0], x.shape[1], x.shape[2]
    o, k = w.shape[0], w.shape[2]
    rows = n * ((side + 2 * (k // 2) - k) // stride + 1) ** 2
    rng = np.random.default_rng(1)
    cols, dy = (rng.random(s, dtype=np.float32) for s in ((rows, c * k * k), (rows, o)))
    w2 = w.reshape(o, -1)

    def run() -> None:
        cols @ w2.T
        dy.T @ cols
        if c > 3:
            dy @ w2

    return run


def _use_threads(count: int) -> None:
    """Give cadence (BLAS, and so its kernels' parts) and torch `count` threads each."""
    ms.set_context(runtime_num_threads=count)
    with contextlib.suppress(ImportError):
        import torch

        torch.set_num_threads(count)


def main(argv: list[str] | None = None) -> int:
    args = parse_options(__doc__, OPTIONS, argv)
    _use_threads(args.threads)
    clock = time.thread_time if args.cpu_time else time.perf_counter
    print(
        f"{cpu_model()}, {args.threads} threads, batch {args.batch}, load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'layer (C, O, side, k, stride) kernel':<42}{'cadence ms':>11}{'torch ms':>10}{'GEMMs ms':>10}{'torch/cadence':>15}"
    )
    rng = np.random.default_rng(0)
    totals: dict[str, float] = {}
    for c, o, side, k, stride, times in LAYERS:
        x = rng.standard_normal((args.batch, c, side, side), dtype=np.float32)
        w = rng.standard_normal((o, c, k, k), dtype=np.float32) * np.float32(
            1 / np.sqrt(c * k * k)
        )
        layout, cadence_run = _cadence(x, w, stride)
        runs = {"cadence": cadence_run, "gemm": _gemms(x, w, stride)}
        baseline = _torch(x, w, stride)
        if baseline is not None:
            runs["torch"] = baseline
        best = dict.fromkeys(runs, np.inf)
        for run in runs.values():
            run()  # warm-up and JIT compilation
        for _ in range(args.rounds):
            for name, run in runs.items():
                t0 = clock()
                run()
                best[name] = min(best[name], clock() - t0)
        for name, seconds in best.items():
            totals[name] = totals.get(name, 0.0) + times * seconds
        _row(
            f"{(c, o, side, k, stride)} {layout.removeprefix('conv2d')[1:] or 'im2col'}",
            best,
        )
    _row("one step's convolutions", totals)
    print("torch/cadence: torch's time over cadence's (above 1: cadence is faster)")
    return 0


def _row(label: str, seconds: dict[str, float]) -> None:
    ms_ = {name: s * 1e3 for name, s in seconds.items()}
    torch_ms = ms_.get("torch")
    ratio = "-" if torch_ms is None else f"{torch_ms / ms_['cadence']:.2f}"
    torch_cell = "-" if torch_ms is None else f"{torch_ms:.1f}"
    print(
        f"{label:<32}{ms_['cadence']:>11.1f}{torch_cell:>10}{ms_['gemm']:>10.1f}{ratio:>15}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
