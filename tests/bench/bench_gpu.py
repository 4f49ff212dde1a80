"""GPU benchmark: samples/s of one training step on the GPU target vs the CPU target, same run.

Run on a machine with an NVIDIA GPU and `pip install 'cadence[cuda]'`:
`python tests/bench/bench_gpu.py [--steps N] [--batches 64,256,1024]`. Not collected by pytest.

Measures the tutorial MLP (Flatten -> Dense(784,512) -> ReLU -> Dense(512,512) -> ReLU ->
Dense(512,10)) and LeNet-5 (32x32 input), SoftmaxCrossEntropyWithLogits(sparse, mean), SGD
lr 0.01, random float32 data, through `TrainOneStepCell`, at each batch size, on the GPU
target and on the CPU target. The batch is copied to the device every step (as a data
pipeline would); the loss is copied back every step (as `Model.train` does), which also
synchronizes the device so the timing is honest. Without a GPU it says so and exits 0.
"""

from __future__ import annotations

import argparse
import platform
import sys
from typing import TYPE_CHECKING, Any

import numpy as np
from _bench_common import best_rate

if TYPE_CHECKING:
    from collections.abc import Callable


def mlp() -> tuple[Any, tuple[int, ...]]:
    from cadence.testing import mnist_mlp

    net = mnist_mlp()
    return net, (1, 28, 28)


def lenet5() -> tuple[Any, tuple[int, ...]]:
    from cadence.cli._presets import build_network

    return build_network("lenet5", (1, 32, 32), 10), (1, 32, 32)


def step_fn(target: str, make: Callable[[], Any], batch: int) -> Callable[[], float]:
    import cadence as ms
    import cadence.nn as nn

    ms.set_context(device_target=target)
    ms.set_seed(0)
    net, shape = make()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss), nn.SGD(net.trainable_params(), learning_rate=0.01)
    )
    train.set_train()
    rng = np.random.default_rng(batch)
    x = ms.Tensor(rng.random((batch, *shape), dtype=np.float32))
    y = ms.Tensor(rng.integers(0, 10, batch).astype(np.int32))
    return lambda: float(train(x, y).asnumpy())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batches", default="64,256,1024")
    args = parser.parse_args()
    import cadence as ms
    from cadence.compute._targets import lookup

    gpu = lookup("GPU")
    assert gpu is not None, (
        "cadence's own GPU entry point is missing; reinstall cadence"
    )
    reason = gpu.probe()
    if reason is not None:
        print(f"No GPU: {reason} Nothing to measure; {gpu.install_hint}.")
        return 0
    if "CUDA simulator" in gpu.devices():
        print(
            "NUMBA_ENABLE_CUDASIM is set: the simulator is not a GPU. Unset it and rerun."
        )
        return 0
    print(
        f"GPU: {', '.join(gpu.devices())}; Python {platform.python_version()}, numpy {np.__version__}"
    )
    print("| model | batch | GPU samples/s | CPU samples/s | GPU / CPU |")
    print("|---|---|---|---|---|")
    for name, make in (("MLP", mlp), ("LeNet-5", lenet5)):
        for batch in (int(b) for b in args.batches.split(",")):
            g = best_rate(step_fn("GPU", make, batch), batch, args.steps, blocks=5)
            c = best_rate(step_fn("CPU", make, batch), batch, args.steps, blocks=5)
            print(
                f"| {name} | {batch} | {g:,.0f} | {c:,.0f} | {g / c:.2f}x |", flush=True
            )
    ms.set_context(device_target="CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
