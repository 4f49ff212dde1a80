"""ResNet with basic blocks, for 32x32 inputs (CIFAR-10 shape): `resnet18`.

Cell and parameter names follow MindSpore's model zoo (`conv1`, `bn1`,
`layer1.0.conv1`, `layer1.0.bn1d`, `layer2.0.down_sample_layer.0`, ...,
`end_point`), so its ResNet-18 checkpoints load. The stem is the CIFAR one:
a 3x3 convolution of stride 1 and no max-pool, so the four stages see 32, 16,
8 and 4 pixels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import nn, ops
from ..nn._norm import fusable_norm_activation
from ..validation import check_positive_int

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["ResNet", "ResidualBlockBase", "resnet18"]


def _conv3x3(in_channel: int, out_channel: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(
        in_channel, out_channel, 3, stride=stride, pad_mode="pad", padding=1
    )


def _bn(channel: int) -> nn.BatchNorm2d:
    # The model zoo's ResNet batch norm: eps 1e-4, the moving statistics keep 0.9 of their value.
    return nn.BatchNorm2d(channel, eps=1e-4, momentum=0.9)


def _norm_act(norm: nn.BatchNorm2d, act: nn.Cell, x: Any) -> Tensor:
    """act(norm(x)), as one fused kernel when the two cells fuse (as in `SequentialCell`)."""
    fused = fusable_norm_activation(norm, act)
    if fused is None:
        result: Tensor = act(norm(x))
        return result
    return norm.fused(x, fused)


class ResidualBlockBase(nn.Cell):
    """The basic residual block: two 3x3 convolutions, and a 1x1 projection when the shape changes."""

    def __init__(self, in_channel: int, out_channel: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = _conv3x3(in_channel, out_channel, stride)
        self.bn1d = _bn(out_channel)
        self.conv2 = _conv3x3(out_channel, out_channel)
        self.bn2d = _bn(out_channel)
        self.relu = nn.ReLU()
        self.down_sample = stride != 1 or in_channel != out_channel
        self.down_sample_layer: nn.SequentialCell | None = None
        if self.down_sample:
            self.down_sample_layer = nn.SequentialCell(
                [nn.Conv2d(in_channel, out_channel, 1, stride=stride), _bn(out_channel)]
            )

    def construct(self, x: Any) -> Tensor:
        """Residual: relu(bn(conv(relu(bn(conv(x))))) + shortcut(x))."""
        out = _norm_act(self.bn1d, self.relu, self.conv1(x))
        out = self.conv2(out)
        identity = x if self.down_sample_layer is None else self.down_sample_layer(x)
        fused = fusable_norm_activation(self.bn2d, self.relu)
        if fused is not None and self.bn2d.uses_batch_statistics():
            # Training: normalize, add the shortcut and clip in one pass (and one backward pass).
            return self.bn2d.fused(out, fused, identity)
        # Inference (and export, which traces these cells' operations) keeps the cells.
        result: Tensor = self.relu(self.bn2d(out) + identity)
        return result


class ResNet(nn.Cell):
    """A ResNet of basic blocks: stem, four stages, global average pooling, `end_point` (Dense).

    Args:
        layer_nums: Blocks per stage (ResNet-18: [2, 2, 2, 2]).
        in_channels: Input channels of each stage.
        out_channels: Output channels of each stage.
        strides: Stride of each stage's first block.
        num_classes: Classes of the final Dense layer.
    """

    def __init__(
        self,
        layer_nums: list[int],
        in_channels: list[int],
        out_channels: list[int],
        strides: list[int],
        num_classes: int,
    ) -> None:
        super().__init__()
        if (
            not len(layer_nums)
            == len(in_channels)
            == len(out_channels)
            == len(strides)
            == 4
        ):
            raise ValueError(
                "For 'ResNet', 'layer_nums', 'in_channels', 'out_channels' and 'strides' must each have "
                f"4 entries, but got {layer_nums!r}, {in_channels!r}, {out_channels!r}, {strides!r}."
            )
        self.conv1 = _conv3x3(3, in_channels[0])
        self.bn1 = _bn(in_channels[0])
        self.relu = nn.ReLU()
        stages = [
            nn.SequentialCell(
                [
                    ResidualBlockBase(
                        cin if i == 0 else cout, cout, stride if i == 0 else 1
                    )
                    for i in range(n)
                ]
            )
            for n, cin, cout, stride in zip(
                layer_nums, in_channels, out_channels, strides, strict=True
            )
        ]
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.end_point = nn.Dense(out_channels[3], num_classes)

    def construct(self, x: Any) -> Tensor:
        """Logits of NCHW images."""
        out = _norm_act(self.bn1, self.relu, self.conv1(x))
        out = self.layer4(self.layer3(self.layer2(self.layer1(out))))
        result: Tensor = self.end_point(self.flatten(self.mean(out, (2, 3))))
        return result


def resnet18(num_classes: int = 10, base_channels: int = 64) -> ResNet:
    """ResNet-18 for 32x32 images: stages of [2, 2, 2, 2] basic blocks.

    Args:
        num_classes: Classes of the output layer.
        base_channels: Channels of the first stage (64 in the paper); the others double it
            at each stage. Smaller values give a narrower network for tests and examples.
    """
    check_positive_int(num_classes, "num_classes", "resnet18")
    w = check_positive_int(base_channels, "base_channels", "resnet18")
    widths = [w, 2 * w, 4 * w, 8 * w]
    return ResNet([2, 2, 2, 2], [w, *widths[:3]], widths, [1, 2, 2, 2], num_classes)
