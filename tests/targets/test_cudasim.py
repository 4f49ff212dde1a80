"""Run the CUDA suite (`cudasim_suite/`) under numba's CUDA simulator, in its own process.

numba decides between the simulator and a real GPU when it is first imported, so
the suite cannot share this process. Kept small: the simulator runs every CUDA
thread as a Python thread.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SUITE = Path(__file__).parent / "cudasim_suite"


def run_suite(env_extra):
    env = {**os.environ, "CADENCE_CUDA_SUITE": "1", **env_extra}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(SUITE),
            "-q",
            "-p",
            "no:cacheprovider",
            "-x",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=SUITE.parent.parent.parent,
    )


@pytest.mark.slow
def test_cuda_suite_passes_under_the_simulator():
    done = run_suite({"NUMBA_ENABLE_CUDASIM": "1"})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[
        -2000:
    ]
