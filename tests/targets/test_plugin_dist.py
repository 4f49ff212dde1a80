"""A third-party plugin distribution, installed with pip, found by entry point, trained through."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.processes import environment_without, run_python

DIST = Path(__file__).parent / "plugin_dist"
TRAIN = """
import numpy as np, cadence as ms, cadence.nn as nn
from cadence_toy_target import CALLS
ms.set_context(device_target="TOY")
ms.set_seed(0)
net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), nn.Momentum(net.trainable_params(), 0.1, 0.9))
rng = np.random.default_rng(0)
data = [(rng.random((8, 4), dtype=np.float32), rng.integers(0, 3, 8).astype(np.int32)) for _ in range(4)]
seen = []
model.bus.subscribe(ms.TrainStepEnd, lambda e: seen.append(e.loss))
model.train(5, data)
print(ms.get_context("device_target"), seen[0], seen[-1], CALLS["dense_forward"], CALLS["momentum_update"])
"""


def pip(*args):
    return subprocess.run(
        [sys.executable, "-m", "pip", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def installed(tmp_path):
    src = tmp_path / "plugin_dist"
    shutil.copytree(
        DIST, src
    )  # building leaves build/ and egg-info behind: not in the source tree
    done = pip(
        "install", "--no-deps", "--no-build-isolation", "--no-index", "-q", str(src)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    try:
        yield
    finally:
        pip("uninstall", "-y", "-q", "cadence-toy-target")


@pytest.mark.slow
def test_installed_plugin_is_found_and_trains(installed):
    env = environment_without("TOY_TARGET_OFF", "CADENCE_TARGET_AUTOLOAD")
    done = run_python(TRAIN, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    target, first, last, dense_calls, updates = done.stdout.split()
    assert target == "Toy" and float(last) < float(first)
    assert int(dense_calls) > 0 and int(updates) == 20 * 4  # 20 steps x 4 parameters

    listing = subprocess.run(
        [sys.executable, "-m", "cadence", "targets", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    toy = next(t for t in json.loads(listing.stdout)["targets"] if t["name"] == "Toy")
    assert (
        toy["available"]
        and toy["origin"]
        == "cadence-toy-target 0.1.0, entry point 'toy = cadence_toy_target:ToyTarget'"
    )

    off = run_python(TRAIN, env={**env, "TOY_TARGET_OFF": "1"})
    assert (
        "The device target 'Toy' is not available on this machine: TOY_TARGET_OFF is set. To use it: unset TOY_TARGET_OFF."
        in off.stderr
    )

    no_autoload = run_python(TRAIN, env={**env, "CADENCE_TARGET_AUTOLOAD": "0"})
    assert "No device target named 'TOY'" in no_autoload.stderr
