"""On a machine with an NVIDIA GPU: the CUDA suite on the real device, in its own process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.processes import environment_without, run_python

SUITE = Path(__file__).parent / "cudasim_suite"
PROBE = (
    "from cadence.compute._targets import lookup; print(lookup('GPU').probe() or 'OK')"
)


def gpu_missing():
    out = run_python(PROBE, env=environment_without("NUMBA_ENABLE_CUDASIM"))
    reason = out.stdout.strip() or out.stderr.strip()[-300:]
    return None if reason == "OK" else reason


@pytest.mark.cuda
@pytest.mark.slow
def test_cuda_suite_passes_on_a_real_gpu():
    reason = gpu_missing()
    if reason is not None:
        pytest.skip(f"no CUDA GPU here: {reason}")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(SUITE), "-q", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        env={**env, "CADENCE_CUDA_SUITE": "1"},
        timeout=1800,
        cwd=SUITE.parents[2],
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
