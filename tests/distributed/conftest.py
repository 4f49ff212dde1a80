"""Multi-rank tests: `run_mpi` runs a script under `mpiexec -n N` with an outer timeout, so a hang fails one test."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def mpiexec() -> str:
    """Return the `mpiexec` next to this Python (the mpich wheel's), or skip when MPI is missing."""
    candidate = Path(sys.executable).parent / "mpiexec"
    found = str(candidate) if candidate.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.fail(
            "mpiexec not found: install the test extra (it includes cadence[mpi])"
        )
    return found


def _run_mpi(
    args: list[str],
    *,
    n: int = 2,
    timeout: float = 120.0,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    launcher: tuple[str, ...] = (),
    wrapper: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run `python ARGS` on `n` ranks; fail the test if the job outlives `timeout` seconds.

    `launcher` holds extra `mpiexec` options (`-disable-auto-cleanup`, ...);
    `wrapper` is a command each rank's Python runs under.
    """
    full_env = {
        **os.environ,
        # One BLAS thread per rank: two ranks share this machine's cores.
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
        **(env or {}),
    }
    cmd = [mpiexec(), *launcher, "-n", str(n), *wrapper, sys.executable, *args]
    # Its own session, so that a timeout ends mpiexec and every rank it started.
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        pytest.fail(
            f"mpiexec -n {n} did not finish within {timeout:g} s (a hang):\n"
            f"stdout: {out}\nstderr: {err}"
        )
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


RunMpi = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_mpi() -> RunMpi:
    """Return the function that runs `python ARGS` under `mpiexec -n N` with a timeout."""
    return _run_mpi


@pytest.fixture
def script_dir() -> Path:
    """Return this folder (the rank scripts live here)."""
    return HERE
