"""How `cadence train` normalizes its inputs: CIFAR-10 per channel, MNIST with one pair, old descriptions still read."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

from cadence.cli._data import load_splits
from cadence.cli._presets import RunSpec, prepare_inputs
from tests.cli.test_cli_zoo_conv import write_cifar10

if TYPE_CHECKING:
    from pathlib import Path

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


def test_cifar10_is_normalized_per_channel(tmp_path: Path) -> None:
    write_cifar10(tmp_path / "bin", 10, 4)
    splits = load_splits("cifar10", str(tmp_path / "bin"), 0.0, 0)
    spec = splits.spec("resnet18")
    assert (spec.mean, spec.std) == (CIFAR_MEAN, CIFAR_STD)
    # A picture whose every pixel is the training set's mean colour becomes all zeros; one
    # standard deviation above it, all ones: channel by channel.
    mean_colour = np.asarray(CIFAR_MEAN, np.float32)[None, :, None, None]
    std = np.asarray(CIFAR_STD, np.float32)[None, :, None, None]
    image = np.broadcast_to(mean_colour, (2, 3, 32, 32))
    np.testing.assert_allclose(prepare_inputs(image, spec), 0.0, atol=1e-6)
    np.testing.assert_allclose(prepare_inputs(image + std, spec), 1.0, rtol=1e-5)
    # Raw bytes are scaled to [0, 1] first: the red plane of 255s gives (1 - 0.4914) / 0.2470.
    pixels = np.zeros((1, 3, 32, 32), np.uint8)
    pixels[:, 0] = 255
    out = prepare_inputs(pixels, spec)
    np.testing.assert_allclose(
        out[0, :, 0, 0],
        [(1 - 0.4914) / 0.2470, -0.4822 / 0.2435, -0.4465 / 0.2616],
        rtol=1e-5,
    )


def test_the_run_description_keeps_per_channel_and_single_statistics() -> None:
    per_channel = RunSpec("resnet18", (3, 32, 32), 10, CIFAR_MEAN, CIFAR_STD, "cifar10")
    assert RunSpec.from_json(per_channel.to_json()) == per_channel
    single = RunSpec(
        "lenet5", (1, 28, 28), 10, 0.1307, 0.3081, "mnist"
    )  # as older runs wrote CIFAR-10 too
    assert RunSpec.from_json(single.to_json()) == single
    ones = np.ones((1, 1, 28, 28), np.float32)
    np.testing.assert_allclose(
        prepare_inputs(ones, single), (1 - 0.1307) / 0.3081, rtol=1e-6
    )


def test_per_channel_statistics_must_match_the_channels() -> None:
    wrong = RunSpec("mlp", (64,), 10, CIFAR_MEAN, CIFAR_STD)
    with pytest.raises(
        ValueError,
        match=r"the run description's mean has 3 values, one per channel, but the network takes 64 channels",
    ):
        prepare_inputs(np.zeros((1, 64), np.float32), wrong)
