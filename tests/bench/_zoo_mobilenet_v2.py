"""MobileNetV2 (width 1.0, 32x32 inputs) for `bench_zoo.py`: cadence's `mobilenet_v2` and the same network in PyTorch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from _conv_ceiling import cifar_batch, network_ceiling, torch_classifier

from cadence.models import mobilenet_v2
from cadence.models._mobilenet_v2 import STAGES

if TYPE_CHECKING:
    import numpy as np

    from cadence import nn

NAME = "MobileNetV2 (32x32)"
CLASSES = 10


def cadence_network() -> nn.Cell:
    """cadence.models.mobilenet_v2(10, 1.0, input_size=32)."""
    return mobilenet_v2(num_classes=CLASSES, width_mult=1.0, input_size=32)


def torch_network() -> Any:
    """The same architecture in PyTorch (stride 1 in the stem and the second stage, as cadence's for 32x32)."""
    import torch

    def conv_bn_relu(
        cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1
    ) -> Any:
        return torch.nn.Sequential(
            torch.nn.Conv2d(
                cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False
            ),
            torch.nn.BatchNorm2d(cout),
            torch.nn.ReLU6(),
        )

    class Inverted(torch.nn.Module):
        def __init__(self, cin: int, cout: int, stride: int, t: int) -> None:
            super().__init__()
            hidden = cin * t
            parts = [conv_bn_relu(cin, hidden, 1)] if t != 1 else []
            parts += [
                conv_bn_relu(hidden, hidden, 3, stride, hidden),
                torch.nn.Conv2d(hidden, cout, 1, bias=False),
                torch.nn.BatchNorm2d(cout),
            ]
            self.conv = torch.nn.Sequential(*parts)
            self.residual = stride == 1 and cin == cout

        def forward(self, x: Any) -> Any:
            return x + self.conv(x) if self.residual else self.conv(x)

    layers, cin = [conv_bn_relu(3, 32)], 32
    for stage, (t, c, n, s) in enumerate(STAGES):
        first = (
            1 if stage == 1 else s
        )  # 32x32 input: stage 2 keeps stride 1, as cadence's
        for i in range(n):
            layers.append(Inverted(cin, c, first if i == 0 else 1, t))
            cin = c
    layers.append(conv_bn_relu(cin, 1280, 1))
    return torch_classifier(layers, 1280, CLASSES)


def batch(size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random 32x32 RGB images and int32 labels."""
    return cifar_batch(size, rng, CLASSES)


def ceiling_seconds(size: int) -> float:
    """One step's dense-convolution and Dense GEMMs alone through numpy's BLAS."""
    return network_ceiling(cadence_network(), size)
