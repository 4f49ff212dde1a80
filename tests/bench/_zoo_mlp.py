"""The zoo benchmark's MLP (`bench_zoo.py`): MindSpore's quickstart network on 1x28x28 inputs.

Flatten -> Dense(784, 512) -> ReLU -> Dense(512, 512) -> ReLU -> Dense(512, 10). The
ceiling is the step's eight matrix products alone through numpy's BLAS (what
cadence's dense kernels call), each the best of a few runs.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import numpy as np
from bench_compute import mlp_products, torch_twin

from cadence.testing import mnist_mlp

if TYPE_CHECKING:
    import cadence.nn as nn

NAME = "MLP"
CLASSES = 10


def cadence_network() -> nn.Cell:
    return mnist_mlp()


def torch_network() -> Any:
    return torch_twin(mnist_mlp())


def batch(
    size: int, rng: np.random.Generator
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    images = rng.random((size, 1, 28, 28), dtype=np.float32)
    return images, rng.integers(0, CLASSES, size).astype(np.int32)


def ceiling_seconds(size: int) -> float:
    total = 0.0
    for _, a, b in mlp_products(size):
        best = np.inf
        for _ in range(5):
            t0 = time.perf_counter()
            a @ b
            best = min(best, time.perf_counter() - t0)
        total += best
    return total
