"""Depthwise 3x3 convolution, forward + backward: cadence's direct kernel against im2col per group and PyTorch.

Run: `python tests/bench/bench_depthwise.py [--threads 2]`. Not collected by pytest.

For MobileNetV2's depthwise layers at 32x32 input (batch 32), it times one forward
and one backward (input and weight gradients) of:

- cadence's direct kernel (`grouped_conv2d_forward` / `_backward` of the CPU table): the
  flat plane bodies where they apply (3x3, padding 1, planes at least
  `FLAT_MIN_WIDTH` wide), else channels-last per sample;
- the same kernel with the flat bodies turned off (channels-last on every layer: the
  schedule before them);
- the same convolution as one im2col + BLAS product per channel (`conv2d_forward` /
  `_backward` on each channel's slice): what a grouped convolution costs without a
  kernel of its own;
- PyTorch eager (`torch.nn.functional.conv2d(groups=C)` and autograd), when installed.

Each figure is the fastest of interleaved blocks; ratios are against the direct kernel
of the same run, and the load average is printed: on a loaded machine only the ratios
mean something.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

import numpy as np
from _bench_common import cpu_model

import cadence as ms
from cadence.kernels import _grouped_conv as grouped_conv, cpu_kernels

if TYPE_CHECKING:
    from collections.abc import Callable

# (channels, side, stride) of MobileNetV2's depthwise layers for 32x32 input: each shape once.
LAYERS = (
    (32, 32, 1),
    (96, 32, 1),
    (144, 32, 1),
    (144, 32, 2),
    (192, 16, 1),
    (192, 16, 2),
    (384, 8, 1),
    (576, 8, 1),
    (576, 8, 2),
    (960, 4, 1),
)
BATCH = 32


def _direct(x: np.ndarray, w: np.ndarray, stride: int) -> Callable[[], Any]:
    k, c = cpu_kernels(), x.shape[1]
    geometry = ((stride, stride), (1, 1, 1, 1), (1, 1))

    def run() -> None:
        y = k.grouped_conv2d_forward(x, w, *geometry, c)
        k.grouped_conv2d_backward(y, x, w, *geometry, c, True)

    return run


def _channels_last(x: np.ndarray, w: np.ndarray, stride: int) -> Callable[[], Any]:
    run_direct = _direct(x, w, stride)

    def run() -> None:
        with patch.dict(grouped_conv.FLAT_MIN_WIDTH, clear=True):
            run_direct()

    return run


def _per_group(x: np.ndarray, w: np.ndarray, stride: int) -> Callable[[], Any]:
    k = cpu_kernels()
    geometry = ((stride, stride), (1, 1, 1, 1), (1, 1))
    slices = [
        (np.ascontiguousarray(x[:, i : i + 1]), np.ascontiguousarray(w[i : i + 1]))
        for i in range(x.shape[1])
    ]

    def run() -> None:
        for xs, ws in slices:
            y = k.conv2d_forward(xs, ws, *geometry)
            k.conv2d_backward(y, xs, ws, *geometry, True)

    return run


def _torch(x: np.ndarray, w: np.ndarray, stride: int) -> Callable[[], Any] | None:
    try:
        import torch
    except ImportError:
        return None
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)

    def run() -> None:
        y = torch.nn.functional.conv2d(
            tx, tw, stride=stride, padding=1, groups=x.shape[1]
        )
        y.backward(y.detach())

    return run


def _best(run: Callable[[], Any], blocks: list[float]) -> None:
    t0 = time.perf_counter()
    run()
    blocks.append(time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--threads", type=int, default=2, help="compute threads (BLAS and torch)"
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="interleaved rounds (best kept)"
    )
    args = parser.parse_args(argv)
    ms.set_context(runtime_num_threads=args.threads)
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    print(
        f"{cpu_model()}, {args.threads} threads, load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'layer (C, side, stride)':<26}{'direct ms':>10}{'channels-last':>14}"
        f"{'im2col/group':>14}{'torch':>8}"
    )
    rng = np.random.default_rng(0)
    for c, side, stride in LAYERS:
        x = rng.standard_normal((BATCH, c, side, side), dtype=np.float32)
        w = rng.standard_normal((c, 1, 3, 3), dtype=np.float32)
        runs = {
            "direct": _direct(x, w, stride),
            "channels_last": _channels_last(x, w, stride),
            "per_group": _per_group(x, w, stride),
        }
        baseline = _torch(x, w, stride)
        if baseline is not None:
            runs["torch"] = baseline
        times: dict[str, list[float]] = {name: [] for name in runs}
        for run in runs.values():
            run()  # warm-up and JIT compilation
        for _ in range(args.rounds):
            for name, run in runs.items():
                _best(run, times[name])
        direct = min(times["direct"])
        ratios = [
            f"{min(times[n]) / direct:>13.2f}x"
            for n in ("channels_last", "per_group", "torch")
            if n in times
        ]
        print(f"{(c, side, stride)!s:<26}{direct * 1e3:>10.1f}{''.join(ratios)}")
    print(
        "ratios: time of the alternative / time of the direct kernel (above 1: the direct kernel is faster)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
