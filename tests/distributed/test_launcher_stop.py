"""How `cadence train --workers` stops its `mpiexec` after Ctrl-C or SIGTERM: pass it on, then abort, then kill.

A stand-in for mpiexec (a Python script) records the signals it gets; no MPI here.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from cadence.cli import _workers

# Records each signal; ends at the `ends_at`-th one (never with 0), as MPICH's mpiexec ends
# on its second Ctrl-C.
LAUNCHER = """
import signal, sys, time
got = []
def note(sig, frame):
    got.append(signal.Signals(sig).name)
    print(signal.Signals(sig).name, flush=True)
    if len(got) == int(sys.argv[1]):
        sys.exit(9)
signal.signal(signal.SIGINT, note)
signal.signal(signal.SIGTERM, note)
print("ready", flush=True)
while True:
    time.sleep(0.01)
"""


def launcher(ends_at: int) -> subprocess.Popen[bytes]:
    job = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(ends_at)],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert job.stdout is not None
    assert job.stdout.readline() == b"ready\n"
    return job


def said(job: subprocess.Popen[bytes]) -> list[str]:
    """The signals the stand-in reported (its output, read to the end and closed)."""
    assert job.stdout is not None
    with job.stdout:
        return job.stdout.read().decode().split()


@pytest.fixture(autouse=True)
def short_grace(monkeypatch):
    monkeypatch.setattr(_workers, "STOP_GRACE_S", 0.5)


@pytest.mark.parametrize(
    ("sig", "ends_at", "seen"),
    [
        (signal.SIGTERM, 1, ["SIGTERM"]),  # the job stops by itself: one signal only
        (signal.SIGINT, 1, ["SIGINT"]),
        (
            signal.SIGTERM,
            3,
            ["SIGTERM", "SIGINT", "SIGINT"],
        ),  # then mpiexec's abort: Ctrl-C twice
    ],
)
def test_the_signal_is_passed_on_once_then_the_job_is_aborted(sig, ends_at, seen):
    job = launcher(ends_at)
    _workers._stop(job, sig)
    assert job.returncode == 9
    assert said(job) == seen


def test_a_job_that_ignores_everything_is_killed():
    job = launcher(0)
    _workers._stop(job, signal.SIGTERM)
    assert job.returncode == -signal.SIGKILL
    assert said(job) == ["SIGTERM", "SIGINT", "SIGINT"]
