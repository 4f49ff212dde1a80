"""The guard `cadence train --workers` runs each rank under: it names a rank a signal kills, and no other.

No MPI here: the launcher's environment (PMI_RANK, PMI_SIZE) is given by hand.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys

import pytest

from cadence.cli import _rank_guard
from cadence.cli._workers import _GUARD
from cadence.communication._peers import GUARD_ENV, Peer, pid_map_line

HOST = socket.gethostname()
RANK_ENV = {"PMI_RANK": "1", "PMI_SIZE": "2"}


def guarded(code: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start `python -c code` under the guard, as mpiexec starts a rank of `--workers`."""
    return subprocess.Popen(
        [sys.executable, "-I", str(_GUARD), sys.executable, "-c", code],
        env={**os.environ, **RANK_ENV, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as hydra gives each rank
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("import os; print(os.environ['CADENCE_RANK_GUARD'])", 0),
        ("raise SystemExit(3)", 3),
        (
            "raise SystemExit(137)",
            137,
        ),  # a status that looks like SIGKILL's is no signal
    ],
)
def test_an_exit_status_passes_through_unnamed(code, status):
    proc = guarded(code)
    code_, out, err = finish(proc)
    assert code_ == status
    assert "cadence:" not in err
    if status == 0:  # the rank learns that a guard names its death (no PID map needed)
        assert out.strip() == str(proc.pid)


def test_a_rank_killed_by_sigkill_is_named_and_the_guard_dies_the_same_way():
    proc = guarded(
        "import os, signal; print(os.getpid(), flush=True); os.kill(os.getpid(), signal.SIGKILL)"
    )
    status, out, err = finish(proc)
    assert (
        status == -signal.SIGKILL
    )  # the launcher sees a death by signal, and ends the job
    assert err.strip() == (
        f"cadence: rank 1 of 2 (pid {out.strip()} on {HOST}, under pid {proc.pid}) was killed by "
        "SIGKILL (sent from outside: the kernel's out-of-memory killer sends it too). "
        "The launcher ends the other ranks."
    )


def test_a_crash_is_named_without_a_core_file_of_the_guard():
    proc = guarded("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    status, _, err = finish(proc)
    assert status == 128 + signal.SIGSEGV
    assert "cadence: rank 1 of 2 (pid " in err
    assert "was killed by SIGSEGV. The launcher ends the other ranks." in err


def test_sigterm_to_the_process_group_is_answered_by_the_rank_not_the_guard():
    """Hydra passes Ctrl-C/SIGTERM on to each rank's process group: guard and rank both get it."""
    proc = guarded(
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    os.killpg(proc.pid, signal.SIGTERM)
    status, _, err = finish(proc)
    assert status == 143  # the rank's own answer, passed through
    assert "cadence:" not in err


def test_without_a_launcher_the_rank_is_not_numbered():
    line = _rank_guard.ended_by_signal(signal.SIGKILL, 42, {}, host="h")
    assert line.startswith("cadence: a rank (pid 42 on h, under pid ")
    assert "signal 200" in _rank_guard.ended_by_signal(200, 42, RANK_ENV, host="h")


def test_without_a_command_the_guard_says_how_to_use_it():
    done = subprocess.run(
        [sys.executable, "-I", str(_GUARD)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr == "usage: _rank_guard.py COMMAND [ARG ...]\n"


def test_the_guard_and_init_agree_on_the_variable_name():
    assert _rank_guard.GUARD_ENV == GUARD_ENV


def test_rank_0_maps_pids_to_ranks_under_hydra_only_and_only_unguarded():
    peers = (Peer(0, "a", 10, None), Peer(1, "b", 11, None))
    hydra = {"MPI_LOCALNRANKS": "1"}
    assert pid_map_line(peers, hydra) == (
        "cadence: 2 ranks (pid 10 is rank 0 on a, pid 11 is rank 1 on b); "
        "mpiexec names a rank that dies by its pid (BAD TERMINATION ... PID)."
    )
    assert (
        pid_map_line(peers, {}) is None
    )  # Open MPI, Slurm: their reports name the rank
    assert pid_map_line(peers, {**hydra, GUARD_ENV: "9"}) is None
    assert pid_map_line(peers[:1], hydra) is None
