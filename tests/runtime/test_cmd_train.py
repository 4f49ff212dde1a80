"""`cadence train`, the README's first command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import re
import subprocess
import sys


def cadence(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cadence", *args], capture_output=True, text=True, timeout=600)


def test_train_prints_losses_epoch_times_and_a_test_accuracy():
    result = cadence("train", "--epochs", "3", "--print-every", "10")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Training an MLP (64-128-10) on scikit-learn's handwritten digits")
    assert any(re.fullmatch(r"epoch: 1 step: 10, loss is \d+\.\d+(e-\d+)?", line) for line in lines)
    assert sum(line.startswith("Train epoch time: ") for line in lines) == 3
    accuracy = float(re.search(r"Test accuracy: (\d\.\d+)", lines[-1]).group(1))  # type: ignore[union-attr]
    assert accuracy > 0.8  # 3 epochs already learn the digits well; the default 30 reach about 0.96


def test_bad_numbers_are_one_line_errors():
    result = cadence("train", "--epochs", "0")
    assert result.returncode == 2
    assert "argument --epochs: expected a positive whole number, got '0'" in result.stderr
    assert "Traceback" not in result.stderr
