"""Compute benchmark: samples/s through one training step (TrainOneStepCell).

Run: `python tests/bench/bench_compute.py [--steps N] [--threads T]`. Not collected by pytest.

Measures, in one process and run:
- the tutorial MLP (Flatten -> Dense(784,512) -> ReLU -> Dense(512,512) -> ReLU -> Dense(512,10)),
  SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'), SGD lr 0.01, MNIST-shaped float32
  random data, at batch 64 and 256: cadence vs a hand-written numpy step vs PyTorch eager (if importable);
- the fraction of the machine's large-sgemm GFLOP/s the cadence step reaches (matmul FLOPs only);
- LeNet-5 (32x32 input) at batch 64: cadence vs PyTorch eager.
JIT compilation and warm-up happen before timing; each figure is the best of several timed blocks.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable


def best_rate(
    step: Callable[[], Any], batch: int, steps: int, blocks: int = 7
) -> float:
    """Samples per second of the fastest of `blocks` timed blocks of `steps` steps.

    The best block, not the median: on a shared machine, other processes stealing a
    core collapse BLAS throughput for whole blocks; every implementation is measured
    the same way.
    """
    for _ in range(3):
        step()
    rates = []
    for _ in range(blocks):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        rates.append(batch * steps / (time.perf_counter() - t0))
    return max(rates)


def sgemm_gflops(n: int = 2048, reps: int = 5) -> float:
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
    a @ b
    best = min(_timed(lambda: a @ b) for _ in range(reps))
    return 2 * n**3 / best / 1e9


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def mlp_matmul_flops(batch: int) -> int:
    dims = [(784, 512), (512, 512), (512, 10)]
    fwd = sum(2 * batch * i * o for i, o in dims)
    bwd_w = fwd
    bwd_x = sum(2 * batch * i * o for i, o in dims[1:])  # the input needs no gradient
    return fwd + bwd_w + bwd_x


def data(
    batch: int, shape: tuple[int, ...]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rng = np.random.default_rng(batch)
    return rng.random((batch, *shape), dtype=np.float32), rng.integers(
        0, 10, batch
    ).astype(np.int32)


# --- cadence ------------------------------------------------------------------------------
def cadence_mlp_step(batch: int) -> Callable[[], Any]:
    import cadence as ms
    import cadence.nn as nn

    ms.set_seed(0)
    net = nn.SequentialCell(
        nn.Flatten(),
        nn.Dense(784, 512),
        nn.ReLU(),
        nn.Dense(512, 512),
        nn.ReLU(),
        nn.Dense(512, 10),
    )
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), learning_rate=0.01)
    )
    train.set_train()
    x, y = data(batch, (1, 28, 28))
    tx, ty = ms.Tensor(x), ms.Tensor(y)
    return lambda: train(tx, ty)


def cadence_lenet_step(batch: int) -> Callable[[], Any]:
    import cadence as ms
    import cadence.nn as nn
    from cadence.common.initializer import Normal

    class LeNet5(nn.Cell):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
            self.fc1 = nn.Dense(400, 120, weight_init=Normal(0.02))
            self.fc2 = nn.Dense(120, 84, weight_init=Normal(0.02))
            self.fc3 = nn.Dense(84, 10, weight_init=Normal(0.02))
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
            self.flatten = nn.Flatten()

        def construct(self, x: Any) -> Any:
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    ms.set_seed(0)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), learning_rate=0.01)
    )
    train.set_train()
    x, y = data(batch, (1, 32, 32))
    tx, ty = ms.Tensor(x), ms.Tensor(y)
    return lambda: train(tx, ty)


# --- hand-written numpy ------------------------------------------------------------------------
def numpy_mlp_step(batch: int) -> Callable[[], Any]:
    rng = np.random.default_rng(0)
    ws = [
        (rng.uniform(-0.04, 0.04, (o, i)).astype(np.float32), np.zeros(o, np.float32))
        for i, o in [(784, 512), (512, 512), (512, 10)]
    ]
    x, y = data(batch, (784,))
    rows = np.arange(batch)
    lr = np.float32(0.01)

    def step() -> float:
        (w1, b1), (w2, b2), (w3, b3) = ws
        h1 = np.maximum(x @ w1.T + b1, 0)
        h2 = np.maximum(h1 @ w2.T + b2, 0)
        z = h2 @ w3.T + b3
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(axis=1, keepdims=True)
        loss = float(-np.log(p[rows, y]).mean())
        g3 = p
        g3[rows, y] -= 1
        g3 /= batch
        gh2 = (g3 @ w3) * (h2 > 0)
        gh1 = (gh2 @ w2) * (h1 > 0)
        grads = [
            (g3.T @ h2, g3.sum(0)),
            (gh2.T @ h1, gh2.sum(0)),
            (gh1.T @ x, gh1.sum(0)),
        ]
        for (w, b), (gw, gb) in zip(ws[::-1], grads, strict=True):
            w -= lr * gw
            b -= lr * gb
        return loss

    return step


# --- PyTorch eager --------------------------------------------------------------------------------
def torch_steps(batch: int) -> tuple[Callable[[], Any], Callable[[], Any]] | None:
    try:
        import torch
    except ImportError:
        return None
    torch.manual_seed(0)

    def make(model: Any, shape: tuple[int, ...]) -> Callable[[], Any]:
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        loss_fn = torch.nn.CrossEntropyLoss()
        x, y = data(batch, shape)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))

        def step() -> float:
            opt.zero_grad()
            loss = loss_fn(model(tx), ty)
            loss.backward()
            opt.step()
            return float(loss.item())

        return step

    nn = torch.nn
    mlp = nn.Sequential(
        nn.Flatten(),
        nn.Linear(784, 512),
        nn.ReLU(),
        nn.Linear(512, 512),
        nn.ReLU(),
        nn.Linear(512, 10),
    )
    lenet = nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
    )  # fmt: skip
    return make(mlp, (1, 28, 28)), make(lenet, (1, 32, 32))


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(
                line.split(":", 1)[1].strip()
                for line in f
                if line.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    import numba

    blas = "unknown BLAS"
    try:
        from threadpoolctl import threadpool_info  # type: ignore[import-untyped]

        info = [i for i in threadpool_info() if i.get("user_api") == "blas"]
        if info:
            blas = f"{info[0].get('internal_api')} {info[0].get('version')} ({info[0].get('num_threads')} threads)"
    except ImportError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, {blas}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="steps per timed block")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="compute threads (BLAS and torch); default: all cores",
    )
    args = parser.parse_args()

    import cadence as ms

    threads = args.threads or os.cpu_count() or 1
    ms.set_context(runtime_num_threads=threads)
    torch_pair = torch_steps(64)
    if torch_pair is not None:
        import torch

        torch.set_num_threads(threads)
        torch_version = torch.__version__
    print(f"machine: {machine()}")
    print(
        f"threads: {threads}"
        + (f"; torch {torch_version}" if torch_pair else "; torch not installed")
    )
    peak = sgemm_gflops()
    print(f"large sgemm (2048^3, float32): {peak:.1f} GFLOP/s")
    print()
    print(
        "| model | batch | cadence samples/s | numpy samples/s | torch samples/s | cadence / numpy | cadence / torch | % of sgemm |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for batch in (64, 256):
        c = best_rate(cadence_mlp_step(batch), batch, args.steps)
        n = best_rate(numpy_mlp_step(batch), batch, args.steps)
        pair = torch_steps(batch)
        t = best_rate(pair[0], batch, args.steps) if pair else float("nan")
        frac = c * mlp_matmul_flops(batch) / batch / 1e9 / peak
        print(
            f"| MLP | {batch} | {c:,.0f} | {n:,.0f} | {t:,.0f} | {c / n:.2f}x | {c / t:.2f}x | {100 * frac:.0f}% |"
        )
    c = best_rate(cadence_lenet_step(64), 64, args.steps)
    t = best_rate(torch_pair[1], 64, args.steps) if torch_pair else float("nan")
    print(f"| LeNet-5 | 64 | {c:,.0f} | - | {t:,.0f} | - | {c / t:.2f}x | - |")


if __name__ == "__main__":
    main()
