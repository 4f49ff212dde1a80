"""ResNet-18 (CIFAR shape, 32x32) for `bench_zoo.py`: cadence's `resnet18` and the same network in PyTorch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from _conv_ceiling import cifar_batch, network_ceiling, torch_classifier

from cadence.models import resnet18

if TYPE_CHECKING:
    import numpy as np

    from cadence import nn

NAME = "ResNet-18 (32x32)"
CLASSES = 10


def cadence_network() -> nn.Cell:
    """cadence.models.resnet18(10)."""
    return resnet18(num_classes=CLASSES)


def torch_network() -> Any:
    """The same architecture in PyTorch: 3x3 stem, basic blocks [2, 2, 2, 2], global average pool, Linear."""
    import torch

    class Block(torch.nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = torch.nn.BatchNorm2d(cout, eps=1e-4)
            self.conv2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = torch.nn.BatchNorm2d(cout, eps=1e-4)
            self.short = (
                torch.nn.Sequential(
                    torch.nn.Conv2d(cin, cout, 1, stride, bias=False),
                    torch.nn.BatchNorm2d(cout, eps=1e-4),
                )
                if stride != 1 or cin != cout
                else torch.nn.Identity()
            )

        def forward(self, x: Any) -> Any:
            out = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(out)) + self.short(x))

    widths, layers = [64, 128, 256, 512], []
    cin = 64
    for cout, stride in zip(widths, [1, 2, 2, 2], strict=True):
        layers += [Block(cin, cout, stride), Block(cout, cout, 1)]
        cin = cout
    stem = [
        torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False),
        torch.nn.BatchNorm2d(64, eps=1e-4),
        torch.nn.ReLU(),
    ]
    return torch_classifier([*stem, *layers], 512, CLASSES)


def batch(size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random 32x32 RGB images and int32 labels."""
    return cifar_batch(size, rng, CLASSES)


def ceiling_seconds(size: int) -> float:
    """One step's dense-convolution and Dense GEMMs alone through numpy's BLAS."""
    return network_ceiling(cadence_network(), size)
