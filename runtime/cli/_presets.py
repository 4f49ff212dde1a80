"""Model and optimizer presets of the command line, and the run description saved with checkpoints.

`cadence train` builds its network from a preset name and an input shape, and
writes a `RunSpec` (JSON) into every checkpoint it saves, so `cadence eval` and
`cadence predict` can rebuild the same network from the file alone. The web
service may build its networks from the same presets.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = [
    "MODELS",
    "OPTIMIZERS",
    "SPEC_KEY",
    "RunSpec",
    "Statistic",
    "build_network",
    "build_optimizer",
    "default_learning_rate",
    "lenet5",
    "mlp",
    "mobilenet_v2",
    "parameter_count",
    "prepare_inputs",
    "resnet18",
]

SPEC_KEY = "cadence_run"
"""Checkpoint entry (a JSON string) holding the `RunSpec` of the run that saved it."""


def mlp(input_shape: tuple[int, ...], num_classes: int) -> Any:
    """Return a multilayer perceptron: flatten, 128 hidden ReLU units, `num_classes` outputs."""
    from cadence import nn

    features = math.prod(input_shape)
    return nn.SequentialCell(
        nn.Flatten(), nn.Dense(features, 128), nn.ReLU(), nn.Dense(128, num_classes)
    )


def lenet5(input_shape: tuple[int, ...], num_classes: int) -> Any:
    """Return LeNet-5's layout: two convolution/max-pool stages, then dense 120-84-classes.

    The convolutions pad to keep the size (5x5 kernels, 3x3 below 16 pixels), so
    any image of at least 4x4 pixels fits: 8x8 digits as well as 28x28 MNIST.

    Raises:
        ValueError: `input_shape` is not (channels, height, width) with both sides >= 4.
    """
    from cadence import nn

    if len(input_shape) != 3 or min(input_shape[1:]) < 4:
        raise ValueError(
            f"the LeNet-5 preset needs images (channels, height, width) of at least 4x4 pixels, "
            f"but the samples have shape {input_shape!r}; use --model mlp for such data."
        )
    channels, height, width = input_shape
    kernel = 5 if min(height, width) >= 16 else 3
    flat = 16 * (height // 4) * (width // 4)
    return nn.SequentialCell(
        nn.Conv2d(channels, 6, kernel, pad_mode="same"),
        nn.ReLU(),
        nn.MaxPool2d(2, 2),
        nn.Conv2d(6, 16, kernel, pad_mode="same"),
        nn.ReLU(),
        nn.MaxPool2d(2, 2),
        nn.Flatten(),
        nn.Dense(flat, 120),
        nn.ReLU(),
        nn.Dense(120, 84),
        nn.ReLU(),
        nn.Dense(84, num_classes),
    )


def parameter_count(name: str, input_shape: tuple[int, ...], num_classes: int) -> int:
    """How many numbers the preset network `name` holds, computed without building it.

    `cadence eval` compares this with the checkpoint before building: a damaged or
    edited run description must not make it allocate more than the file can fill.
    Unknown presets and shapes a preset refuses count as 0 (building reports them).
    """

    def dense(n_in: int, n_out: int) -> int:
        return n_in * n_out + n_out

    if name == "mlp":
        return dense(math.prod(input_shape), 128) + dense(128, num_classes)
    if name == "lenet5" and len(input_shape) == 3 and min(input_shape[1:]) >= 4:
        channels, height, width = input_shape
        kernel = 5 if min(height, width) >= 16 else 3
        flat = 16 * (height // 4) * (width // 4)
        convs = dense(channels * kernel * kernel, 6) + dense(6 * kernel * kernel, 16)
        return convs + dense(flat, 120) + dense(120, 84) + dense(84, num_classes)
    if name in _ZOO_BODY:
        return _ZOO_BODY[name] + dense(_ZOO_FEATURES[name], num_classes)
    return 0


def _rgb(preset: str, input_shape: tuple[int, ...]) -> int:
    """The image side of (3, side, side) samples; ValueError for anything else."""
    if (
        len(input_shape) != 3
        or input_shape[0] != 3
        or input_shape[1] != input_shape[2]
        or input_shape[1] < 8
    ):
        raise ValueError(
            f"the {preset} preset needs square RGB images (3, side, side) of at least 8x8 pixels, "
            f"but the samples have shape {input_shape!r}; use --model lenet5 or mlp for such data."
        )
    return input_shape[1]


def resnet18(input_shape: tuple[int, ...], num_classes: int) -> Any:
    """Return ResNet-18 for small images (`cadence.models.resnet18`: 3x3 stem, no max-pool)."""
    from cadence.models import resnet18 as build

    _rgb("resnet18", input_shape)
    return build(num_classes=num_classes)


def mobilenet_v2(input_shape: tuple[int, ...], num_classes: int) -> Any:
    """Return MobileNetV2 (width 1.0) with the strides for the images' size (`cadence.models.mobilenet_v2`)."""
    from cadence.models import mobilenet_v2 as build

    return build(num_classes=num_classes, input_size=_rgb("mobilenet_v2", input_shape))


# Trainable numbers of the zoo presets apart from the classifier (a Dense layer of
# `_ZOO_FEATURES` inputs): both are the same for every image size.
_ZOO_BODY = {"resnet18": 11_168_832, "mobilenet_v2": 2_223_872}
_ZOO_FEATURES = {"resnet18": 512, "mobilenet_v2": 1280}

MODELS: dict[str, Callable[[tuple[int, ...], int], Any]] = {
    "lenet5": lenet5,
    "mlp": mlp,
    # issue 23, convolutional networks (zoo-conv)
    "mobilenet_v2": mobilenet_v2,
    "resnet18": resnet18,
}
"""Preset name -> `builder(input_shape, num_classes)` returning an `nn.Cell`."""

OPTIMIZERS = ("adam", "momentum", "sgd")


def default_learning_rate(optimizer: str, model: str, data: str) -> float:
    """The learning rate `cadence train` uses when none is given.

    Adam: 0.001. Momentum and SGD: 0.1 for the MLP on the digits (64 inputs in
    [0, 1]), 0.01 otherwise: with momentum 0.9, 0.1 makes LeNet-5 and MNIST's 784
    normalized inputs diverge.
    """
    if optimizer == "adam":
        return 0.001
    return 0.1 if (model, data) == ("mlp", "digits") else 0.01


def build_network(name: str, input_shape: tuple[int, ...], num_classes: int) -> Any:
    """Build the preset network `name` for samples of `input_shape` and `num_classes` classes.

    Raises:
        ValueError: Unknown preset, or the preset does not fit the input shape.
    """
    if name not in MODELS:
        raise ValueError(
            f"unknown model preset {name!r}; choose one of {', '.join(sorted(MODELS))}."
        )
    return MODELS[name](tuple(input_shape), num_classes)


def build_optimizer(name: str, params: Any, learning_rate: float) -> Any:
    """Build the optimizer `name` (`adam`, `momentum` with 0.9, or plain `sgd`) over `params`.

    Raises:
        ValueError: Unknown optimizer name.
    """
    from cadence import nn

    if name == "momentum":
        return nn.Momentum(params, learning_rate=learning_rate, momentum=0.9)
    if name == "sgd":
        return nn.SGD(params, learning_rate=learning_rate)
    if name == "adam":
        return nn.Adam(params, learning_rate=learning_rate)
    raise ValueError(
        f"unknown optimizer {name!r}; choose one of {', '.join(OPTIMIZERS)}."
    )


# A normalization statistic: one for every value, or one per channel.
Statistic = float | tuple[float, ...]


def _statistic(raw: Any) -> Statistic:
    """Read a mean or standard deviation from a run description (a number or a list)."""
    if isinstance(raw, list):
        return tuple(float(v) for v in raw)
    return float(raw)


def _per_channel(value: Statistic, spec: RunSpec, name: str) -> Any:
    """`value` as a float32 that broadcasts over (N, *input_shape): a scalar, or (C, 1, ...)."""
    if not isinstance(value, tuple):
        return np.float32(value)
    if len(value) != spec.input_shape[0]:
        raise ValueError(
            f"the run description's {name} has {len(value)} values, one per channel, but the network "
            f"takes {spec.input_shape[0]} channels (input shape {spec.input_shape!r})."
        )
    return np.asarray(value, np.float32).reshape(-1, *[1] * (len(spec.input_shape) - 1))


@dataclass(frozen=True)
class RunSpec:
    """What a checkpoint needs besides its parameters to be used: the network and its inputs.

    Attributes:
        model: The model preset name (`"mlp"`, `"lenet5"`, `"resnet18"`, `"mobilenet_v2"`).
        input_shape: One sample's shape as the network takes it ((C, H, W) or (features,)).
        num_classes: Number of output classes.
        mean: Subtracted from inputs scaled to [0, 1] (integer data is divided by 255):
            one number, or one per channel (the first axis of `input_shape`).
        std: Divides the result: one number, or one per channel.
        data: The data set trained on: `"digits"`, `"mnist"`, `"cifar10"` or an `.npz` path.
        data_dir: The MNIST or CIFAR-10 directory, if any.
    """

    model: str
    input_shape: tuple[int, ...]
    num_classes: int
    mean: Statistic = 0.0
    std: Statistic = 1.0
    data: str = "digits"
    data_dir: str | None = None

    def to_json(self) -> str:
        """Return the spec as a JSON object string."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> RunSpec:
        """Parse `to_json`'s output.

        Raises:
            ValueError: The text is not a spec.
        """
        try:
            raw = json.loads(text)
            return cls(
                model=str(raw["model"]),
                input_shape=tuple(int(n) for n in raw["input_shape"]),
                num_classes=int(raw["num_classes"]),
                mean=_statistic(raw.get("mean", 0.0)),
                std=_statistic(raw.get("std", 1.0)),
                data=str(raw.get("data", "digits")),
                data_dir=None if raw.get("data_dir") is None else str(raw["data_dir"]),
            )
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(
                f"the run description {text!r} is damaged: {exc}"
            ) from None

    @classmethod
    def from_checkpoint(cls, entries: Mapping[str, Any], path: str) -> RunSpec:
        """Read the spec from a loaded checkpoint (`load_checkpoint`'s dict).

        Raises:
            ValueError: The checkpoint was not written by `cadence train`.
        """
        text = entries.get(SPEC_KEY)
        if not isinstance(text, str):
            raise ValueError(
                f"the checkpoint {path!r} has no {SPEC_KEY!r} entry, so it was not written by "
                "`cadence train`; use a checkpoint from a `cadence train` output directory."
            )
        return cls.from_json(text)


def prepare_inputs(x: np.ndarray[Any, Any], spec: RunSpec) -> np.ndarray[Any, Any]:
    """Turn raw samples into network inputs: float32, scaled, normalized, shaped (N, *input_shape).

    Integer data (image pixels) is divided by 255; floats are taken as already in
    [0, 1]. Any array whose size is a whole number of samples is accepted, so a
    single (8, 8) digit and a batch of (N, 1, 8, 8) digits both work.

    Raises:
        ValueError: The array does not hold whole samples of `spec.input_shape`.
    """
    x = np.asarray(x)
    if x.dtype.kind not in "biuf":
        raise ValueError(
            f"the inputs must be numbers, but they have dtype {str(x.dtype)!r}."
        )
    sample = math.prod(spec.input_shape)
    if x.size == 0 or x.size % sample:
        raise ValueError(
            f"the inputs have shape {x.shape!r}, which is not a whole number of samples of shape "
            f"{spec.input_shape!r} ({sample} values each)."
        )
    out = x.astype(np.float32)
    if x.dtype.kind in "biu":
        out *= np.float32(1.0 / 255.0)
    out = out.reshape(-1, *spec.input_shape)
    if spec.mean != 0.0 or spec.std != 1.0:
        out = (out - _per_channel(spec.mean, spec, "mean")) / _per_channel(
            spec.std, spec, "std"
        )
    return out
