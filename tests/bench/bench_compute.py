"""Compute benchmark: samples/s through `Model.train` with LossMonitor, against PyTorch, Keras/JAX and numpy.

Run: `python tests/bench/bench_compute.py [--steps N] [--threads T] [--cpu-time]`. Not collected
by pytest. `--threads 1 --cpu-time` times every block by the process's CPU time instead of wall
time: on a machine other processes load, the work each implementation does, which their load
barely changes (wall time then measures the load).

Measures, in one process and run, with the same thread count for every library:
- the tutorial MLP (Flatten -> Dense(784,512) -> ReLU -> Dense(512,512) -> ReLU -> Dense(512,10)),
  SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean'), SGD lr 0.01, MNIST-shaped float32
  random data, at batch 64 and 256, and LeNet-5 (32x32 input) at batch 64. The cadence figure is
  samples/s through `Model(net, loss, SGD).train(1, dataset, callbacks=[LossMonitor()],
  dataset_sink_mode=False)` on an in-memory `NumpySlicesDataset(...).batch(B)` (a new batch
  every step; LossMonitor's lines go to os.devnull). Beside it: the same network's
  `TrainOneStepCell` called directly on one fixed batch ("step cell only"; the difference is
  what the loop, the dataset and the callbacks cost per step), a hand-written numpy step (MLP
  only), a PyTorch eager loop and a Keras 3 loop on JAX (`train_on_batch`, one XLA-compiled
  step; channels-last images), each on one fixed batch and each only if importable: the
  bench runs without torch, jax or keras and says so;
- the fraction of the machine's large-sgemm GFLOP/s the cadence step reaches (matmul FLOPs only);
- the peak resident memory of a training step: the process's peak RSS (VmHWM, reset through
  /proc/self/clear_refs) over a few steps, above the RSS before them, per framework;
- the GEMM floor of the MLP step: each of the step's matrix products (3 forward, 3 weight
  gradients, 2 input gradients) timed alone through numpy (OpenBLAS, what cadence's kernels
  call) and through torch (MKL); the cadence step over its own (OpenBLAS) GEMM-only time, and
  the highest cadence / torch ratio any implementation could reach if everything but those
  products cost nothing: torch's step time / the GEMM-only time.

Timing. JIT compilation and warm-up happen before timing (for `Model.train`, one short warm-up
`train` call on the same model). Each figure is the best of several timed blocks of `--steps`
steps, not the mean or median: on a shared machine, other processes take a core for whole
blocks, and multi-threaded BLAS then waits for its slowest thread, so a slow block measures the
machine's load rather than the code; the fastest block is the closest to what the code itself
costs. The blocks are interleaved: each round times one block of every implementation in
turn, so a burst of load elsewhere slows one round of all of them rather than all the blocks
of one. Through `Model.train`, a block is one `train` call over `--steps` + 1 batches, timed
from the first step's end to the last one's by a callback listed after LossMonitor: it covers
everything the loop does per step (fetching and batching the data, the step events,
LossMonitor, the step itself), but not the once-per-run setup and teardown of `train`, which
a real epoch of hundreds of steps amortizes.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import math
import os
import platform
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import cpu_model

import cadence as ms
import cadence.nn as nn
from cadence import Callback, RunContext
from cadence.callbacks import LossMonitor
from cadence.dataset import NumpySlicesDataset
from cadence.testing import mnist_mlp

if TYPE_CHECKING:
    from collections.abc import Callable

Array = np.ndarray[Any, Any]
BLOCKS = 7
GEMM_ROUNDS = 3
MLP_SHAPE = (1, 28, 28)
LENET_SHAPE = (1, 32, 32)
CLOCK = time.perf_counter
"""What every block is timed with: wall time, or the process's CPU time with `--cpu-time`."""


def best_seconds(fn: Callable[[], Any], blocks: int = BLOCKS, inner: int = 10) -> float:
    """Seconds per call of `fn`: the fastest of `blocks` blocks of `inner` calls, after one warm-up call."""
    fn()
    best = math.inf
    for _ in range(blocks):
        t0 = CLOCK()
        for _ in range(inner):
            fn()
        best = min(best, (CLOCK() - t0) / inner)
    return best


def sgemm_gflops(n: int = 2048, reps: int = 5) -> float:
    """GFLOP/s of a large float32 matmul through numpy (OpenBLAS)."""
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
    return 2 * n**3 / best_seconds(lambda: a @ b, blocks=reps, inner=1) / 1e9


def torch_sgemm_gflops(n: int = 2048, reps: int = 5) -> float:
    """GFLOP/s of the same matmul through torch (MKL)."""
    import torch

    a = torch.from_numpy(
        np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    )
    b = torch.from_numpy(
        np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
    )
    return 2 * n**3 / best_seconds(lambda: torch.mm(a, b), blocks=reps, inner=1) / 1e9


MLP_DIMS = [(784, 512), (512, 512), (512, 10)]


def mlp_matmul_flops(batch: int) -> int:
    fwd = sum(2 * batch * i * o for i, o in MLP_DIMS)
    bwd_w = fwd
    bwd_x = sum(
        2 * batch * i * o for i, o in MLP_DIMS[1:]
    )  # the input needs no gradient
    return fwd + bwd_w + bwd_x


def data(batch: int, shape: tuple[int, ...]) -> tuple[Array, Array]:
    rng = np.random.default_rng(batch)
    return rng.random((batch, *shape), dtype=np.float32), rng.integers(
        0, 10, batch
    ).astype(np.int32)


# --- cadence ------------------------------------------------------------------------------
def cadence_mlp() -> nn.Cell:
    return mnist_mlp()


def cadence_lenet() -> nn.Cell:
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

    return LeNet5()


def cadence_loss() -> nn.Cell:
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def cadence_step(
    build: Callable[[], nn.Cell], batch: int, shape: tuple[int, ...]
) -> Callable[[], Any]:
    """One training step through `TrainOneStepCell` alone, on one fixed batch."""
    ms.set_seed(0)
    net = build()
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, cadence_loss()),
        nn.SGD(net.trainable_params(), learning_rate=0.01),
    )
    train.set_train()
    x, y = data(batch, shape)
    tx, ty = ms.Tensor(x), ms.Tensor(y)
    return lambda: train(tx, ty)


class StepClock(Callback):
    """Records the bench's clock (`CLOCK`) at every training step end."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.times.append(CLOCK())


def numpy_dataset(batch: int, shape: tuple[int, ...], steps: int) -> Any:
    """`steps` batches of random MNIST-like data, in memory, in order."""
    rng = np.random.default_rng(steps)
    images = rng.random((steps * batch, *shape), dtype=np.float32)
    labels = rng.integers(0, 10, steps * batch).astype(np.int32)
    return NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(
        batch
    )


def model_train_block(
    build: Callable[[], nn.Cell], batch: int, shape: tuple[int, ...], steps: int
) -> Callable[[], float]:
    """A timed block through `Model.train` with LossMonitor: returns seconds per step."""
    ms.set_seed(0)
    net = build()
    model = ms.Model(
        net, cadence_loss(), nn.SGD(net.trainable_params(), learning_rate=0.01)
    )
    warm_up = numpy_dataset(batch, shape, 3)
    timed = numpy_dataset(batch, shape, steps + 1)
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        model.train(1, warm_up, callbacks=[LossMonitor()], dataset_sink_mode=False)

    def block() -> float:
        clock = StepClock()
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            model.train(
                1, timed, callbacks=[LossMonitor(), clock], dataset_sink_mode=False
            )
        return (clock.times[steps] - clock.times[0]) / steps

    return block


def step_block(step: Callable[[], Any], steps: int) -> Callable[[], float]:
    """A timed block of `steps` calls of `step`: returns seconds per step (after 3 warm-up calls)."""
    for _ in range(3):
        step()

    def block() -> float:
        t0 = CLOCK()
        for _ in range(steps):
            step()
        return (CLOCK() - t0) / steps

    return block


def interleaved_best(
    blocks: dict[str, Callable[[], float]], rounds: int = BLOCKS
) -> dict[str, float]:
    """Seconds per step of each implementation: the fastest of `rounds` rounds, each timing every block in turn."""
    best = dict.fromkeys(blocks, math.inf)
    for _ in range(rounds):
        for name, block in blocks.items():
            best[name] = min(best[name], block())
    return best


def peak_step_rss(step: Callable[[], Any], calls: int = 5) -> float | None:
    """MB of resident memory the process peaks at during `calls` steps, above its RSS before them.

    Before: one step (so compilation and lazily built state are done), a garbage
    collection and glibc's `malloc_trim`, which returns freed heap pages to the
    system, so the memory a step allocates and frees again shows up as a new peak.
    The peak mark (VmHWM) is reset through /proc/self/clear_refs. None where any of
    this is unavailable (not Linux/glibc, or not permitted).
    """

    def status(key: str) -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) / 1024
        raise KeyError(key)

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
        step()
        gc.collect()
        trim(0)
        before = status("VmRSS:")
        Path("/proc/self/clear_refs").write_text("5")
        for _ in range(calls):
            step()
        return status("VmHWM:") - before
    except (OSError, KeyError, AttributeError):
        return None


# --- hand-written numpy ------------------------------------------------------------------------
def numpy_mlp_step(batch: int) -> Callable[[], Any]:
    rng = np.random.default_rng(0)
    ws = [
        (rng.uniform(-0.04, 0.04, (o, i)).astype(np.float32), np.zeros(o, np.float32))
        for i, o in MLP_DIMS
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


def torch_twin(cell: nn.SequentialCell) -> Any:
    """The same stack of Flatten, Dense and ReLU layers in PyTorch, freshly initialized.

    The baselines then run cadence's own architecture (`cadence.testing.mnist_mlp`),
    written once. Imports torch; raises TypeError on a layer it has no twin for.
    """
    import torch

    def twin(layer: nn.Cell) -> Any:
        if isinstance(layer, nn.Dense) and layer.activation is None:
            return torch.nn.Linear(
                layer.in_channels, layer.out_channels, bias=layer.has_bias
            )
        if isinstance(layer, nn.ReLU | nn.Flatten):
            return getattr(torch.nn, type(layer).__name__)()
        raise TypeError(f"torch_twin: no PyTorch twin for {layer!r}.")

    return torch.nn.Sequential(*(twin(layer) for layer in cell))


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
    mlp = torch_twin(mnist_mlp())
    lenet = nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
        nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
    )  # fmt: skip
    return make(mlp, MLP_SHAPE), make(lenet, LENET_SHAPE)


# --- Keras 3 on JAX -------------------------------------------------------------------------
def keras_steps(batch: int) -> tuple[Callable[[], Any], Callable[[], Any]] | None:
    """The MLP and LeNet-5 steps through Keras 3 on JAX (`train_on_batch`), or None if not importable."""
    os.environ.setdefault("KERAS_BACKEND", "jax")
    try:
        import keras  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return None
    if keras.backend.backend() != "jax":
        return None
    keras.utils.set_random_seed(0)
    layers = keras.layers

    def make(model: Any, shape: tuple[int, ...]) -> Callable[[], Any]:
        model.compile(
            optimizer=keras.optimizers.SGD(learning_rate=0.01),
            loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        )
        x, y = data(batch, shape)
        x = np.ascontiguousarray(
            np.moveaxis(x, 1, -1)
        )  # channels last, Keras's default
        return lambda: float(model.train_on_batch(x, y))

    mlp = keras.Sequential([
        keras.Input((28, 28, 1)), layers.Flatten(), layers.Dense(512, activation="relu"),
        layers.Dense(512, activation="relu"), layers.Dense(10),
    ])  # fmt: skip
    lenet = keras.Sequential([
        keras.Input((32, 32, 1)), layers.Conv2D(6, 5, activation="relu"), layers.MaxPooling2D(2),
        layers.Conv2D(16, 5, activation="relu"), layers.MaxPooling2D(2), layers.Flatten(),
        layers.Dense(120, activation="relu"), layers.Dense(84, activation="relu"), layers.Dense(10),
    ])  # fmt: skip
    return make(mlp, MLP_SHAPE), make(lenet, LENET_SHAPE)


# --- the GEMM floor of the MLP step ------------------------------------------------------------
def mlp_products(batch: int) -> list[tuple[str, Array, Array]]:
    """The matrix products of one MLP training step, as (name, a, b) for `a @ b`.

    Operands have the layouts cadence's dense kernels pass to BLAS (and torch's Linear to
    its own): weights stored (out, in), the forward multiplies by `W.T`, the weight gradient
    is `dz.T @ x`, the input gradient `dz @ W`. The input needs no gradient, so the first
    layer has no input-gradient product.
    """
    rng = np.random.default_rng(batch)

    def rand(*shape: int) -> Array:
        return rng.standard_normal(shape, dtype=np.float32)

    x, h1, h2 = rand(batch, 784), rand(batch, 512), rand(batch, 512)
    w1, w2, w3 = rand(512, 784), rand(512, 512), rand(10, 512)
    dz1, dz2, dz3 = rand(batch, 512), rand(batch, 512), rand(batch, 10)
    return [
        ("fwd x @ W1.T", x, w1.T),
        ("fwd h1 @ W2.T", h1, w2.T),
        ("fwd h2 @ W3.T", h2, w3.T),
        ("bwd dW3 = dz3.T @ h2", dz3.T, h2),
        ("bwd dx3 = dz3 @ W3", dz3, w3),
        ("bwd dW2 = dz2.T @ h1", dz2.T, h1),
        ("bwd dx2 = dz2 @ W2", dz2, w2),
        ("bwd dW1 = dz1.T @ x", dz1.T, x),
    ]


def gemm_floor(
    batch: int,
    torch_step_s: float | None,
    cadence_step_s: float,
    cell_step_s: float,
    peak_np: float,
    peak_torch: float | None,
) -> None:
    """Print the time of each matrix product of one MLP step alone, their sums, and what they bound.

    `torch_step_s` and `peak_torch` are None when torch is not installed.
    """
    products = mlp_products(batch)
    flops = int(sum(2 * a.shape[0] * a.shape[1] * b.shape[1] for _, a, b in products))
    assert flops == mlp_matmul_flops(batch)
    torch_mm: Callable[[Array, Array], Callable[[], Any]] | None = None
    if torch_step_s is not None:
        import torch

        def torch_mm(a: Array, b: Array) -> Callable[[], Any]:
            ta, tb = torch.from_numpy(a), torch.from_numpy(b)
            return lambda: torch.mm(ta, tb)

    def numpy_mm(a: Array, b: Array) -> Callable[[], Any]:
        return lambda: a @ b

    print()
    print(
        f"GEMM floor, MLP batch {batch}: the step's {len(products)} matrix products, each alone "
        f"(best of {GEMM_ROUNDS} x {BLOCKS} blocks of 10 calls), {flops / 1e6:.1f} MFLOP in all"
    )
    print()
    print("| product | m x k x n | numpy (OpenBLAS) µs | torch (MKL) µs |")
    print("|---|---|---|---|")
    # Several rounds, each timing every product through both libraries in turn, and the
    # fastest round per product and library: a burst of load elsewhere then slows one
    # round, not one library.
    t_np = [math.inf] * len(products)
    t_torch = [math.inf] * len(products)
    for _ in range(GEMM_ROUNDS):
        for i, (_, a, b) in enumerate(products):
            t_np[i] = min(t_np[i], best_seconds(numpy_mm(a, b)))
            if torch_mm is not None:
                t_torch[i] = min(t_torch[i], best_seconds(torch_mm(a, b)))
    for (name, a, b), tn, tt in zip(products, t_np, t_torch, strict=True):
        torch_cell = f"{1e6 * tt:,.1f}" if torch_mm is not None else "-"
        m, k = a.shape
        print(f"| {name} | {m} x {k} x {b.shape[1]} | {1e6 * tn:,.1f} | {torch_cell} |")
    sum_np, sum_torch = sum(t_np), sum(t_torch)
    torch_sum = f"{1e6 * sum_torch:,.0f}" if torch_mm is not None else "-"
    print(f"| GEMM-only step time | | {1e6 * sum_np:,.0f} | {torch_sum} |")
    print()

    def gflops(seconds: float) -> float:
        return flops / seconds / 1e9

    print(
        f"- OpenBLAS products: {gflops(sum_np):.1f} GFLOP/s, "
        f"{100 * gflops(sum_np) / peak_np:.0f}% of its large sgemm"
    )
    if torch_mm is not None and peak_torch is not None:
        print(
            f"- MKL products: {gflops(sum_torch):.1f} GFLOP/s, "
            f"{100 * gflops(sum_torch) / peak_torch:.0f}% of its large sgemm"
        )
    print(
        f"- cadence step: {1e6 * cadence_step_s:,.0f} µs through Model.train, "
        f"{1e6 * cell_step_s:,.0f} µs step cell only; the OpenBLAS products alone are "
        f"{100 * sum_np / cadence_step_s:.0f}% / {100 * sum_np / cell_step_s:.0f}% of that "
        f"(everything else: {1e6 * (cadence_step_s - sum_np):,.0f} / "
        f"{1e6 * (cell_step_s - sum_np):,.0f} µs)"
    )
    print(
        f"- cadence step / its own GEMM-only time (target <= 1.25): "
        f"{cadence_step_s / sum_np:.2f}x through Model.train, {cell_step_s / sum_np:.2f}x step cell only"
    )
    if torch_mm is None or torch_step_s is None or peak_torch is None:
        print("- torch not installed: no torch step, no ceiling for cadence / torch")
        return
    print(
        f"- torch eager step (measured above): {1e6 * torch_step_s:,.0f} µs, "
        f"{gflops(torch_step_s):.1f} GFLOP/s = {100 * gflops(torch_step_s) / peak_torch:.0f}% "
        f"of torch's large sgemm; its MKL products alone are {100 * sum_torch / torch_step_s:.0f}% of it"
    )
    ceiling_np, ceiling_mkl = torch_step_s / sum_np, torch_step_s / sum_torch
    verdict = "within" if ceiling_np >= 1.3 else "beyond"
    print(
        f"- highest cadence / torch any implementation could reach if everything but the "
        f"products cost nothing: {ceiling_np:.2f}x with OpenBLAS products (torch step / "
        f"OpenBLAS GEMM-only), {ceiling_mkl:.2f}x with MKL products; 1.3x is {verdict} the "
        f"OpenBLAS ceiling"
    )


def machine() -> str:
    cpu = cpu_model()
    import numba

    blas = "unknown BLAS"
    try:
        from threadpoolctl import threadpool_info  # type: ignore[import-untyped]

        # numpy's own BLAS first (scipy may load a second OpenBLAS of another version).
        info = sorted(
            (i for i in threadpool_info() if i.get("user_api") == "blas"),
            key=lambda i: "numpy" not in str(i.get("filepath", "")),
        )
        if info:
            blas = f"{info[0].get('internal_api')} {info[0].get('version')} ({info[0].get('num_threads')} threads)"
    except ImportError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, {blas}"


CONFIGS = (("MLP", 64), ("MLP", 256), ("LeNet-5", 64))


def implementations(
    model: str, batch: int, steps: int
) -> tuple[dict[str, Callable[[], float]], dict[str, Callable[[], Any]]]:
    """The timed blocks of every implementation of one configuration, and their plain steps (for RSS)."""
    mlp = model == "MLP"
    build, shape = (cadence_mlp, MLP_SHAPE) if mlp else (cadence_lenet, LENET_SHAPE)
    which = 0 if mlp else 1
    plain: dict[str, Callable[[], Any]] = {"cadence": cadence_step(build, batch, shape)}
    if mlp:
        plain["numpy"] = numpy_mlp_step(batch)
    for name, make in (("torch", torch_steps), ("keras/jax", keras_steps)):
        pair = make(batch)
        if pair is not None:
            plain[name] = pair[which]
    blocks = {"Model.train": model_train_block(build, batch, shape, steps)}
    blocks.update({name: step_block(step, steps) for name, step in plain.items()})
    return blocks, plain


def rate_cell(rate: dict[str, float], name: str) -> str:
    return f"{rate[name]:,.0f}" if name in rate else "-"


def ratio_cell(rate: dict[str, float], name: str) -> str:
    """Cadence's `Model.train` rate over `name`'s."""
    return f"{rate['Model.train'] / rate[name]:.2f}x" if name in rate else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="steps per timed block")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="compute threads (BLAS, torch; XLA uses its own pool); default: all cores",
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time blocks by the process's CPU time, not wall time: with --threads 1, a "
        "measure of the work that other processes' load barely moves (it counts every "
        "thread's CPU, spinning BLAS or XLA workers included)",
    )
    args = parser.parse_args()
    steps = args.steps
    if args.cpu_time:
        global CLOCK
        CLOCK = time.process_time

    threads = args.threads or os.cpu_count() or 1
    ms.set_context(runtime_num_threads=threads)
    has_torch = torch_steps(64) is not None
    if has_torch:
        import torch

        torch.set_num_threads(threads)
    has_keras = keras_steps(64) is not None
    print(f"machine: {machine()}")
    print(
        f"threads: {threads}; clock: {'process CPU time' if args.cpu_time else 'wall time'}; "
        "load average at start: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    )
    print(
        ("torch " + torch.__version__ if has_torch else "torch not installed")
        + "; "
        + (keras_version() if has_keras else "keras/jax not installed")
    )
    peak = sgemm_gflops()
    peak_torch = torch_sgemm_gflops() if has_torch else None
    print(
        f"large sgemm (2048^3, float32): numpy (OpenBLAS) {peak:.1f} GFLOP/s"
        + (f", torch (MKL) {peak_torch:.1f} GFLOP/s" if peak_torch else "")
    )
    print()
    print(
        "| model | batch | cadence Model.train samples/s | step cell only | numpy | torch | keras/jax "
        "| cadence / torch | cadence / keras | % of sgemm |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    floors = []
    memory = []
    for model, batch in CONFIGS:
        blocks, plain = implementations(model, batch, steps)
        best = interleaved_best(blocks)
        rate = {name: batch / s for name, s in best.items()}

        frac = (
            f"{100 * rate['Model.train'] * mlp_matmul_flops(batch) / batch / 1e9 / peak:.0f}%"
            if model == "MLP"
            else "-"
        )
        cells = [
            rate_cell(rate, n)
            for n in ("Model.train", "cadence", "numpy", "torch", "keras/jax")
        ]
        ratios = [ratio_cell(rate, n) for n in ("torch", "keras/jax")]
        print(f"| {model} | {batch} | " + " | ".join([*cells, *ratios, frac]) + " |")
        if model == "MLP":
            floors.append(
                (batch, best.get("torch"), best["Model.train"], best["cadence"])
            )
        memory.append(
            (
                model,
                batch,
                {n: peak_step_rss(s) for n, s in plain.items() if n != "numpy"},
            )
        )
    print()
    print(
        "Peak RSS of a training step above the RSS before it (MB, fixed batch, 5 steps):"
    )
    print()
    print("| model | batch | cadence | torch | keras/jax |")
    print("|---|---|---|---|---|")
    for model, batch, mb in memory:
        cells = [
            "-" if mb.get(n) is None else f"{mb[n]:.1f}"
            for n in ("cadence", "torch", "keras/jax")
        ]
        print(f"| {model} | {batch} | " + " | ".join(cells) + " |")
    for batch, torch_s, cadence_s, cell_s in floors:
        gemm_floor(batch, torch_s, cadence_s, cell_s, peak, peak_torch)
    print()
    print("load average at end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


def keras_version() -> str:
    import jax  # type: ignore[import-not-found, import-untyped, unused-ignore]
    import keras  # type: ignore[import-not-found, import-untyped, unused-ignore]

    return f"keras {keras.__version__} on jax {jax.__version__}"


if __name__ == "__main__":
    main()
