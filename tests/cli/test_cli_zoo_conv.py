"""`cadence train --model resnet18 --data cifar10` on generated files in CIFAR-10's binary layout, then `eval`."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import numpy as np

from cadence.cli._presets import parameter_count

if TYPE_CHECKING:
    from pathlib import Path


def write_cifar10(directory: Path, n_train: int, n_test: int) -> None:
    """`data_batch_1.bin` and `test_batch.bin`: records of a label byte and 3 planes of 32x32 bytes."""
    directory.mkdir()
    rng = np.random.default_rng(0)
    for name, n in (("data_batch_1.bin", n_train), ("test_batch.bin", n_test)):
        labels = (np.arange(n) % 10).astype(np.uint8)
        pixels = rng.integers(0, 256, (n, 3 * 32 * 32), dtype=np.uint8)
        (directory / name).write_bytes(
            np.concatenate([labels[:, None], pixels], axis=1).tobytes()
        )


def cadence(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cadence", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_resnet18_trains_on_cifar10_files_and_evaluates(tmp_path: Path) -> None:
    write_cifar10(tmp_path / "cifar-10-batches-bin", 10, 4)
    args = "--model resnet18 --data cifar10 --data-dir cifar-10-batches-bin --epochs 1 --batch-size 10"
    train = cadence(
        tmp_path, "train", *args.split(), "--valid-fraction", "0", "--output-dir", "out"
    )
    assert train.returncode == 0, train.stderr
    assert "Training resnet18 on CIFAR-10 (" in train.stdout
    assert "10 train, 4 test samples of shape (3, 32, 32), 10 classes" in train.stdout
    assert "Test accuracy: " in train.stdout
    evaluated = cadence(tmp_path, "eval", "out/model.ckpt")
    assert evaluated.returncode == 0, evaluated.stderr
    assert (
        "4 test samples of CIFAR-10" in evaluated.stdout
        and "resnet18" in evaluated.stdout
    )


def test_cifar10_needs_its_directory(tmp_path: Path) -> None:
    done = cadence(tmp_path, "train", "--model", "resnet18", "--data", "cifar10")
    assert done.returncode != 0
    assert (
        "--data cifar10 needs --data-dir DIR" in done.stderr
        and "test_batch.bin" in done.stderr
    )
    (tmp_path / "empty").mkdir()
    done = cadence(tmp_path, "train", "--data", "cifar10", "--data-dir", "empty")
    assert done.returncode != 0 and "cifar-10-batches-bin" in done.stderr


def test_zoo_presets_count_their_parameters_without_being_built() -> None:
    # The counts `cadence eval` checks a checkpoint against; the builders agree (test_zoo_conv_networks).
    assert parameter_count("resnet18", (3, 32, 32), 10) == 11_173_962
    assert parameter_count("mobilenet_v2", (3, 32, 32), 10) == 2_236_682
