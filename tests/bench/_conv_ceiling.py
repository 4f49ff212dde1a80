"""The GEMM ceiling and the input batches of a convolutional network's training step, for `_zoo_resnet18` / `_zoo_mobilenet_v2`.

`conv_ceiling_seconds` runs the network's forward once on a batch, recording
the geometry of every convolution and Dense layer, then times the matrix
products a step of them costs through numpy's BLAS (the best GEMM available
to cadence on the CPU): per dense convolution the forward product (N*OH*OW,
C*KH*KW) @ (C*KH*KW, O) and the two backward products (weight and input
gradients); per Dense layer its three products. Depthwise convolutions are
left out: they are not GEMMs (their cost is memory traffic), so the ceiling is
what the step cannot beat even with free depthwise layers, im2col, batch norm
and activations.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

import cadence as ms
from cadence import nn


def _products(net: nn.Cell, images: np.ndarray) -> list[tuple[int, int, int]]:
    """(m, k, n) of the forward product of every dense convolution and Dense layer."""
    shapes: list[tuple[int, int, int]] = []
    conv_construct, dense_construct = nn.Conv2d.construct, nn.Dense.construct

    def conv(self: nn.Conv2d, x: Any) -> Any:
        y = conv_construct(self, x)
        if self.group == 1:
            kh, kw = self.kernel_size
            shapes.append(
                (
                    y.shape[0] * y.shape[2] * y.shape[3],
                    self.in_channels * kh * kw,
                    self.out_channels,
                )
            )
        return y

    def dense(self: nn.Dense, x: Any) -> Any:
        y = dense_construct(self, x)
        shapes.append((y.shape[0], self.in_channels, self.out_channels))
        return y

    setattr(nn.Conv2d, "construct", conv)  # noqa: B010 (patched for one forward pass)
    setattr(nn.Dense, "construct", dense)  # noqa: B010
    try:
        net.set_train(True)
        net(ms.Tensor(images))
    finally:
        setattr(nn.Conv2d, "construct", conv_construct)  # noqa: B010
        setattr(nn.Dense, "construct", dense_construct)  # noqa: B010
    return shapes


def conv_ceiling_seconds(net: nn.Cell, images: np.ndarray, repeats: int = 3) -> float:
    """Best-of-`repeats` seconds of all the GEMMs of one training step of `net` on `images`."""
    rng = np.random.default_rng(0)
    operands = []
    for m, k, n in _products(net, images):
        a, b, g = (rng.random(s, dtype=np.float32) for s in ((m, k), (k, n), (m, n)))
        operands.append((a, b, g))
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for a, b, g in operands:
            a @ b  # forward
            g.T @ a  # weight gradient
            g @ b.T  # input gradient
        best = min(best, time.perf_counter() - t0)
    return best


def cifar_batch(
    size: int, rng: np.random.Generator, classes: int
) -> tuple[np.ndarray, np.ndarray]:
    """Random 32x32 RGB images and int32 labels below `classes`."""
    images = rng.standard_normal((size, 3, 32, 32), dtype=np.float32)
    return images, rng.integers(0, classes, size).astype(np.int32)


def network_ceiling(net: nn.Cell, size: int) -> float:
    """`conv_ceiling_seconds` of `net` on a random batch of `size` 32x32 images."""
    return conv_ceiling_seconds(net, cifar_batch(size, np.random.default_rng(0), 10)[0])


def torch_classifier(features: list[Any], channels: int, classes: int) -> Any:
    """A PyTorch Sequential: `features`, global average pooling, then Linear(channels, classes)."""
    import torch

    pool = [torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten()]
    return torch.nn.Sequential(*features, *pool, torch.nn.Linear(channels, classes))
