"""MobileNetV2: inverted residual blocks of depthwise 3x3 convolutions and ReLU6 (`mobilenet_v2`).

Cell and parameter names follow MindSpore's model zoo (`backbone.features.0.features.0`,
`backbone.features.1.conv.0.features.0`, ..., `head.head.1`), so its
checkpoints load. For 224x224 inputs the network is the paper's (output
stride 32); for 32x32 inputs (`input_size=32`) the stem and the second stage
keep stride 1, so the last feature map is 4x4 instead of 1x1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import nn, ops
from ..validation import check_positive_int

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["STAGES", "ConvBNReLU", "InvertedResidual", "MobileNetV2", "mobilenet_v2"]

# (expansion t, output channels c, blocks n, first stride s) of each stage, from the paper.
STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1))  # fmt: skip


def _make_divisible(value: float, divisor: int = 8) -> int:
    """Round channels to a multiple of `divisor`, never below 90% of `value`."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class ConvBNReLU(nn.Cell):
    """Convolution ('pad' mode, same size at stride 1), BatchNorm2d, ReLU6; depthwise when `groups` > 1."""

    def __init__(self, in_planes: int, out_planes: int, kernel_size: int = 3, stride: int = 1, groups: int = 1) -> None:  # fmt: skip
        super().__init__()
        conv = nn.Conv2d(
            in_planes,
            out_planes,
            kernel_size,
            stride,
            pad_mode="pad",
            padding=(kernel_size - 1) // 2,
            group=groups,
        )
        self.features = nn.SequentialCell(
            [conv, nn.BatchNorm2d(out_planes), nn.ReLU6()]
        )

    def construct(self, x: Any) -> Tensor:
        """Apply the three layers (`SequentialCell` fuses the normalization and the ReLU6)."""
        result: Tensor = self.features(x)
        return result


class InvertedResidual(nn.Cell):
    """Expand (1x1), depthwise 3x3, project (1x1, linear); a residual sum when the shape is kept."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: int) -> None:
        super().__init__()
        hidden = round(inp * expand_ratio)
        self.use_res_connect = stride == 1 and inp == oup
        layers: list[nn.Cell] = (
            [ConvBNReLU(inp, hidden, kernel_size=1)] if expand_ratio != 1 else []
        )
        layers += [
            ConvBNReLU(hidden, hidden, stride=stride, groups=hidden),
            nn.Conv2d(hidden, oup, 1, has_bias=False),
            nn.BatchNorm2d(oup),
        ]
        self.conv = nn.SequentialCell(layers)

    def construct(self, x: Any) -> Tensor:
        """The block, plus the input when the shapes agree."""
        out: Tensor = self.conv(x)
        return x + out if self.use_res_connect else out


class _Backbone(nn.Cell):
    def __init__(self, width_mult: float, input_size: int) -> None:
        super().__init__()
        small = (
            input_size < 64
        )  # CIFAR-sized input: keep resolution in the stem and stage 2
        channels = _make_divisible(32 * width_mult)
        self.out_channels = _make_divisible(1280 * max(1.0, width_mult))
        features: list[nn.Cell] = [ConvBNReLU(3, channels, stride=1 if small else 2)]
        for stage, (t, c, n, s) in enumerate(STAGES):
            out = _make_divisible(c * width_mult)
            first = 1 if small and stage == 1 else s
            for i in range(n):
                features.append(
                    InvertedResidual(channels, out, first if i == 0 else 1, t)
                )
                channels = out
        features.append(ConvBNReLU(channels, self.out_channels, kernel_size=1))
        self.features = nn.SequentialCell(features)

    def construct(self, x: Any) -> Tensor:
        result: Tensor = self.features(x)
        return result


class _GlobalAvgPooling(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.mean = ops.ReduceMean(keep_dims=False)

    def construct(self, x: Any) -> Tensor:
        result: Tensor = self.mean(x, (2, 3))
        return result


class _Head(nn.Cell):
    def __init__(self, in_channels: int, num_classes: int) -> None:
        super().__init__()
        self.head = nn.SequentialCell(
            [_GlobalAvgPooling(), nn.Dense(in_channels, num_classes)]
        )

    def construct(self, x: Any) -> Tensor:
        result: Tensor = self.head(x)
        return result


class MobileNetV2(nn.Cell):
    """MobileNetV2 = `backbone` (features) + `head` (global average pooling, Dense).

    Args:
        num_classes: Classes of the output layer.
        width_mult: Multiplier of every layer's channels (rounded to multiples of 8).
        input_size: Side of the square input images: 224 (the paper's strides) or small
            sizes such as 32 (stride 1 in the stem and the second stage).
    """

    def __init__(
        self, num_classes: int = 1000, width_mult: float = 1.0, input_size: int = 224
    ) -> None:
        super().__init__()
        check_positive_int(num_classes, "num_classes", "MobileNetV2")
        check_positive_int(input_size, "input_size", "MobileNetV2")
        if not isinstance(width_mult, int | float) or isinstance(width_mult, bool) or width_mult <= 0:  # type: ignore[redundant-expr]  # fmt: skip
            raise ValueError(
                f"For 'MobileNetV2', the argument 'width_mult' must be a number > 0, but got {width_mult!r}."
            )
        self.backbone = _Backbone(float(width_mult), input_size)
        self.head = _Head(self.backbone.out_channels, num_classes)

    def construct(self, x: Any) -> Tensor:
        """Logits of NCHW images."""
        result: Tensor = self.head(self.backbone(x))
        return result


def mobilenet_v2(
    num_classes: int = 1000, width_mult: float = 1.0, input_size: int = 224
) -> MobileNetV2:
    """MobileNetV2 (see `MobileNetV2` for the arguments)."""
    return MobileNetV2(num_classes, width_mult, input_size)
