"""Run the CUDA suite (`cudasim_suite/`) under numba's CUDA simulator, in its own process.

numba decides between the simulator and a real GPU when it is first imported, so
the suite cannot share this process. Kept small: the simulator runs every CUDA
thread as a Python thread. One process per file of the suite, each under its own
time limit, so a slow or hung file fails its own test (the whole suite takes
several minutes on 2 cores).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SUITE = Path(__file__).parent / "cudasim_suite"


FILES = sorted(path.name for path in SUITE.glob("test_*.py"))
# Seconds each file may take (the slowest took about 1 minute in a CI-like run).
LIMITS: dict[str, int] = {}


def run_suite(env_extra, target=SUITE, limit=600):
    env = {**os.environ, "CADENCE_CUDA_SUITE": "1", **env_extra}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(target),
            "-q",
            "-p",
            "no:cacheprovider",
            "-x",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=limit,
        cwd=SUITE.parent.parent.parent,
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_cuda_suite_passes_under_the_simulator(name):
    done = run_suite({"NUMBA_ENABLE_CUDASIM": "1"}, SUITE / name, LIMITS.get(name, 600))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[
        -2000:
    ]
