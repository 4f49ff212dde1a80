"""Multi-rank tests: `run_mpi` runs a script under `mpiexec -n N` with an outer timeout, so a hang fails one test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.processes import run_session

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


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
        # The scripts import what they share from `tests.helpers`.
        "PYTHONPATH": os.pathsep.join(
            filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
        ),
        **(env or {}),
    }
    cmd = [mpiexec(), *launcher, "-n", str(n), *wrapper, sys.executable, *args]
    return run_session(cmd, timeout=timeout, env=full_env, cwd=cwd)


RunMpi = Callable[..., subprocess.CompletedProcess[str]]


def _parents() -> dict[int, int]:
    """Return every process's parent PID, from /proc."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # ended meanwhile
                continue
            found[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return found


def ended(pid: int) -> bool:
    """Return whether process `pid` has ended (a zombie has: an orphan waits for init to reap it)."""
    try:
        stat = (Path(f"/proc/{pid}") / "stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] in "ZX"


def rank_pids(root: int) -> dict[int, int]:
    """Return rank -> PID of the Python ranks started under process `root` (guards excluded)."""
    parents = _parents()
    ranks: dict[int, int] = {}
    for pid in parents:
        up = pid
        while up not in (0, 1, root):
            up = parents.get(up, 0)
        if up != root:
            continue
        try:
            env = (Path(f"/proc/{pid}") / "environ").read_bytes().split(b"\0")
            cmdline = (Path(f"/proc/{pid}") / "cmdline").read_bytes()
        except OSError:
            continue
        rank = next((v[9:] for v in env if v.startswith(b"PMI_RANK=")), None)
        if rank is not None and b"_rank_guard" not in cmdline:
            ranks[int(rank)] = pid
    return ranks


@pytest.fixture
def run_mpi() -> RunMpi:
    """Return the function that runs `python ARGS` under `mpiexec -n N` with a timeout."""
    return _run_mpi


@pytest.fixture
def script_dir() -> Path:
    """Return this folder (the rank scripts live here)."""
    return HERE
