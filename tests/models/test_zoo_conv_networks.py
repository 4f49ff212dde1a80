"""ResNet-18 and MobileNetV2 (cadence.models): training end to end, checkpoints, and MindSpore's checkpoint.

The training tests use narrow networks on 32x32 images of a generated four-class
problem (each class a fixed random pattern, plus noise), train through
`Model.train` with the standard callbacks, and require the loss to fall clearly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Callback, Model, RunContext, nn
from cadence.callbacks import (
    CheckpointConfig,
    LossMonitor,
    ModelCheckpoint,
    TimeMonitor,
)
from cadence.dataset import NumpySlicesDataset
from cadence.models import MobileNetV2, ResNet, mobilenet_v2, resnet18

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"


def test_mindspore_resnet18_checkpoint_loads_and_gives_mindspores_logits() -> None:
    # Written and evaluated by real MindSpore (tests/models/record_mindspore_resnet18.py).
    net = resnet18(num_classes=10, base_channels=4)
    params = ms.load_checkpoint(str(FIXTURES / "resnet18_w4.ckpt"))
    assert set(params) == {p.name for p in net.get_parameters()}
    not_loaded, _ = ms.load_param_into_net(net, params, strict_load=True)
    assert not_loaded == []
    recorded = np.load(FIXTURES / "resnet18_w4_io.npz")
    net.set_train(False)
    logits = net(ms.Tensor(recorded["images"])).asnumpy()
    np.testing.assert_allclose(logits, recorded["logits"], rtol=1e-4, atol=1e-5)


def _patterns_dataset(samples: int, batch: int, side: int, seed: int = 0) -> Any:
    rng = np.random.default_rng(seed)
    patterns = rng.normal(size=(4, 3, side, side)).astype(np.float32)
    labels = rng.integers(0, 4, samples).astype(np.int32)
    images = patterns[labels] + 0.5 * rng.normal(size=(samples, 3, side, side)).astype(
        np.float32
    )
    return NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(
        batch
    )


class _EpochLoss(Callback):
    """Mean training loss of each epoch."""

    def __init__(self) -> None:
        self.epochs: list[float] = []
        self._step: list[float] = []

    def on_train_step_end(self, run_context: RunContext) -> None:
        self._step.append(
            float(np.asarray(run_context.original_args().net_outputs.asnumpy()))
        )

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.epochs.append(float(np.mean(self._step)))
        self._step = []


# name: (build, image side, samples, learning rate, epochs). MobileNetV2 trains on 16x16
# images to stay quick; its deep stack of batch norms at batch 8 wants a small step and
# a few more epochs before the loss drops.
NETWORKS = {
    "resnet18": (lambda: resnet18(num_classes=4, base_channels=8), 32, 16, 0.02, 4),
    "mobilenet_v2": (lambda: mobilenet_v2(num_classes=4, width_mult=0.25, input_size=16), 16, 16, 0.005, 10),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_network_trains_with_the_standard_callbacks_and_round_trips_a_checkpoint(
    name: str, tmp_path: Path
) -> None:
    ms.set_seed(0)
    build, side, samples, lr, epochs = NETWORKS[name]
    net = build()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), lr, 0.9))
    losses = _EpochLoss()
    saver = ModelCheckpoint(
        prefix=name,
        directory=str(tmp_path),
        config=CheckpointConfig(save_checkpoint_steps=4),
    )
    data = _patterns_dataset(samples, 8, side)
    model.train(epochs, data, callbacks=[LossMonitor(), TimeMonitor(), saver, losses])
    assert losses.epochs[-1] < 0.5 * losses.epochs[0], losses.epochs

    saved = sorted(tmp_path.glob(f"{name}*.ckpt"))
    assert saved, list(tmp_path.iterdir())
    probe = ms.Tensor(
        np.random.default_rng(1).normal(size=(3, 3, side, side)).astype(np.float32)
    )
    net.set_train(False)
    expected = net(probe).asnumpy()
    ms.save_checkpoint(net, str(tmp_path / "final.ckpt"))
    fresh = build()
    ms.load_param_into_net(
        fresh, ms.load_checkpoint(str(tmp_path / "final.ckpt")), strict_load=True
    )
    fresh.set_train(False)
    np.testing.assert_array_equal(fresh(probe).asnumpy(), expected)


def test_resnet18_has_the_papers_shape_and_parameter_count() -> None:
    net = resnet18()
    assert isinstance(net, ResNet)
    # 11,173,962: the CIFAR ResNet-18 with 10 classes (3x3 stem, [2, 2, 2, 2] basic blocks).
    assert sum(p.size for p in net.trainable_params()) == 11_173_962
    names = {p.name for p in net.get_parameters()}
    assert {
        "layer2.0.down_sample_layer.0.weight",
        "layer4.1.bn2d.moving_variance",
        "end_point.bias",
    } <= names
    assert "layer1.0.down_sample_layer.0.weight" not in names  # stage 1 keeps the shape


@pytest.mark.parametrize(
    ("size", "width", "params", "out_hw"),
    [(224, 1.0, 3_504_872, 7), (32, 1.0, 2_236_682, 4)],
)
def test_mobilenet_v2_matches_the_papers_sizes(
    size: int, width: float, params: int, out_hw: int
) -> None:
    net = mobilenet_v2(
        num_classes=1000 if size == 224 else 10, width_mult=width, input_size=size
    )
    assert isinstance(net, MobileNetV2)
    assert sum(p.size for p in net.trainable_params()) == params
    features = net.backbone(ms.Tensor(np.zeros((1, 3, size, size), np.float32)))
    assert features.shape == (1, net.backbone.out_channels, out_hw, out_hw)


def test_mobilenet_v2_takes_the_model_zoos_backbone_and_head_options() -> None:
    # Two narrow stages, a 96-wide last convolution (the zoo's `last_channel`), rounded to 4.
    stages = [[1, 8, 1, 1], [2, 12, 2, 2]]
    net = mobilenet_v2(
        num_classes=3, input_size=16, inverted_residual_setting=stages, round_nearest=4,
        input_channel=6, last_channel=96, has_dropout=True, activation="Softmax",
    )  # fmt: skip
    shapes = {p.name: p.shape for p in net.trainable_params()}
    assert shapes["backbone.features.0.features.0.weight"] == (
        8,
        3,
        3,
        3,
    )  # 6 rounded to 4s
    assert shapes["backbone.features.4.features.0.weight"] == (96, 12, 1, 1)
    assert shapes["head.head.2.weight"] == (3, 96)  # pooling, dropout, Dense
    net.set_train(False)
    out = net(ms.Tensor(np.random.default_rng(0).random((2, 3, 16, 16), np.float32)))
    np.testing.assert_allclose(out.asnumpy().sum(axis=1), 1.0, rtol=1e-5)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: resnet18(num_classes=0), "resnet18.*'num_classes'.*> 0"),
        (lambda: resnet18(base_channels=2.5), "resnet18.*'base_channels'"),  # type: ignore[arg-type]
        (lambda: mobilenet_v2(width_mult=0), "'MobileNetV2'.*'width_mult'.*> 0.*got 0"),
        (lambda: mobilenet_v2(input_size=-1), "MobileNetV2.*'input_size'"),
        (
            lambda: mobilenet_v2(last_channel=0),
            "'MobileNetV2'.*'last_channel'.*> 0.*got 0",
        ),
        (
            lambda: mobilenet_v2(activation="relu"),
            "'MobileNetV2'.*'activation'.*'None', 'Sigmoid', 'Softmax'.*'relu'",
        ),
        (
            lambda: mobilenet_v2(has_dropout=1),
            "'MobileNetV2'.*'has_dropout' must be a bool",
        ),
        (
            lambda: mobilenet_v2(inverted_residual_setting=[[1, 16, 1]]),
            "'inverted_residual_setting'.*\\[t, c, n, s\\] rows",
        ),
        (
            lambda: mobilenet_v2(last_chanel=640),
            "unexpected arguments \\['last_chanel'\\]",
        ),
    ],
)
def test_network_builders_refuse_bad_arguments(build: Any, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        build()
