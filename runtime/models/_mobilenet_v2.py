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
from ..validation import check_bool, check_choice, check_positive_int

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = [
    "STAGES",
    "ZOO_OPTIONS",
    "ConvBNReLU",
    "InvertedResidual",
    "MobileNetV2",
    "mobilenet_v2",
]

# (expansion t, output channels c, blocks n, first stride s) of each stage, from the paper.
STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1))  # fmt: skip


# The model zoo's `MobileNetV2Backbone` / `MobileNetV2Head` options beyond the width, with
# their defaults; `MobileNetV2` takes them as keywords (`_zoo_options` checks them).
ZOO_OPTIONS: dict[str, Any] = {
    "inverted_residual_setting": None,
    "round_nearest": 8,
    "input_channel": 32,
    "last_channel": 1280,
    "has_dropout": False,
    "activation": "None",
}
_ACTIVATIONS = {"None": None, "Sigmoid": ops.Sigmoid, "Softmax": ops.Softmax}


def _zoo_options(options: dict[str, Any]) -> dict[str, Any]:
    """`ZOO_OPTIONS` updated with `options`, each checked; a name it lacks raises TypeError."""
    unknown = sorted(set(options) - set(ZOO_OPTIONS))
    if unknown:
        raise TypeError(
            f"For 'MobileNetV2', unexpected arguments {unknown}; the model zoo's options are "
            f"{sorted(ZOO_OPTIONS)}."
        )
    merged = {**ZOO_OPTIONS, **options}
    for name in ("round_nearest", "input_channel", "last_channel"):
        check_positive_int(merged[name], name, "MobileNetV2")
    check_bool(merged["has_dropout"], "has_dropout", "MobileNetV2")
    check_choice(merged["activation"], "activation", _ACTIVATIONS, "MobileNetV2")
    stages = merged["inverted_residual_setting"]
    if stages is not None and (
        not isinstance(stages, list | tuple)
        or not stages
        or any(
            not isinstance(row, list | tuple)
            or len(row) != 4
            or any(not isinstance(v, int) or isinstance(v, bool) or v < 1 for v in row)
            for row in stages
        )
    ):
        raise ValueError(
            f"For 'MobileNetV2', the argument 'inverted_residual_setting' must be a non-empty list of "
            f"[t, c, n, s] rows of positive ints, but got {stages!r}."
        )
    return merged


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
    def __init__(self, width_mult: float, input_size: int, zoo: dict[str, Any]) -> None:
        super().__init__()
        small = (
            input_size < 64
        )  # CIFAR-sized input: keep resolution in the stem and stage 2
        rounding = zoo["round_nearest"]
        channels = _make_divisible(zoo["input_channel"] * width_mult, rounding)
        self.out_channels = _make_divisible(
            zoo["last_channel"] * max(1.0, width_mult), rounding
        )
        features: list[nn.Cell] = [ConvBNReLU(3, channels, stride=1 if small else 2)]
        for stage, (t, c, n, s) in enumerate(
            zoo["inverted_residual_setting"] or STAGES
        ):
            out = _make_divisible(c * width_mult, rounding)
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
    def __init__(
        self, in_channels: int, num_classes: int, has_dropout: bool, activation: str
    ) -> None:
        super().__init__()
        # The dropout sits between the pooling and the Dense (`head.head.2` then), as in the
        # zoo, and drops 80%: the zoo's 1.x `Dropout(0.2)` was a keep probability, 2.x's p=0.8.
        dropout = [nn.Dropout(p=0.8)] if has_dropout else []
        self.head = nn.SequentialCell(
            [_GlobalAvgPooling(), *dropout, nn.Dense(in_channels, num_classes)]
        )
        make = _ACTIVATIONS[activation]
        self.activation = None if make is None else make()

    def construct(self, x: Any) -> Tensor:
        result: Tensor = self.head(x)
        return result if self.activation is None else self.activation(result)


class MobileNetV2(nn.Cell):
    """MobileNetV2 = `backbone` (features) + `head` (global average pooling, Dense).

    Args:
        num_classes: Classes of the output layer.
        width_mult: Multiplier of every layer's channels (rounded to multiples of 8).
        input_size: Side of the square input images: 224 (the paper's strides) or small
            sizes such as 32 (stride 1 in the stem and the second stage).
        **zoo: The model zoo's `MobileNetV2Backbone` / `MobileNetV2Head` options, by keyword:
            `inverted_residual_setting` ([t, c, n, s] rows; None: the paper's), `round_nearest`
            (8), `input_channel` (32, the stem's width), `last_channel` (1280, the last
            convolution's width, which the head takes), `has_dropout` (False: a Dropout(p=0.8)
            before the Dense) and `activation` ('None', 'Sigmoid' or 'Softmax' after the Dense).
    """

    def __init__(
        self, num_classes: int = 1000, width_mult: float = 1.0, input_size: int = 224,
        **zoo: Any,
    ) -> None:  # fmt: skip
        super().__init__()
        check_positive_int(num_classes, "num_classes", "MobileNetV2")
        check_positive_int(input_size, "input_size", "MobileNetV2")
        if not isinstance(width_mult, int | float) or isinstance(width_mult, bool) or width_mult <= 0:  # type: ignore[redundant-expr]  # fmt: skip
            raise ValueError(
                f"For 'MobileNetV2', the argument 'width_mult' must be a number > 0, but got {width_mult!r}."
            )
        options = _zoo_options(zoo)
        self.backbone = _Backbone(float(width_mult), input_size, options)
        self.head = _Head(
            self.backbone.out_channels, num_classes, options["has_dropout"],
            options["activation"],
        )  # fmt: skip

    def construct(self, x: Any) -> Tensor:
        """Logits of NCHW images."""
        result: Tensor = self.head(self.backbone(x))
        return result


def mobilenet_v2(
    num_classes: int = 1000, width_mult: float = 1.0, input_size: int = 224, **zoo: Any
) -> MobileNetV2:
    """MobileNetV2 (see `MobileNetV2` for the arguments and the model zoo's options)."""
    return MobileNetV2(num_classes, width_mult, input_size, **zoo)
