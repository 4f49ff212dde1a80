"""Running a short Python program in a fresh interpreter, as the import and isolation tests do."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

__all__ = [
    "environment_without",
    "mpiexec_command",
    "run_interpreter",
    "run_python",
    "run_session",
]


def environment_without(*names: str) -> dict[str, str]:
    """This process's environment without the variables `names`."""
    return {k: v for k, v in os.environ.items() if k not in names}


def run_interpreter(
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 120.0,
    check: bool = False,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `python ARGS` with this interpreter and return its text output.

    Runs as `run_session` does: past `timeout` seconds the test fails with what the process
    printed. With `check`, a non-zero exit raises `subprocess.CalledProcessError`.
    """
    done = run_session([sys.executable, *args], timeout=timeout, env=env, cwd=cwd)
    if check:
        done.check_returncode()
    return done


def run_python(
    code: str,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 120.0,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run `python -c code ARGS` (see `run_interpreter`)."""
    return run_interpreter("-c", code, *args, env=env, timeout=timeout, check=check)


def run_session(
    cmd: list[str],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `cmd` in a session of its own and return its text output; fail the test past `timeout` seconds.

    On a timeout the whole process group is killed (mpiexec and every rank it started,
    a launcher and its workers), and the failure shows what the processes printed.
    """
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
        pytest.fail(
            f"{' '.join(cmd)} did not finish within {timeout:g} s (a hang):\n"
            f"stdout: {out}\nstderr: {err}"
        )
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def mpiexec_command(ranks: int) -> list[str]:
    """`mpiexec -n RANKS`: the MPICH wheel's (the mpi extra) beside this Python, else the PATH's."""
    beside = Path(sys.executable).with_name("mpiexec")
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.fail(
            "mpiexec not found: install the test extra (it includes cadence[mpi])"
        )
    return [found, "-n", str(ranks)]
