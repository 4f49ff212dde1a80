"""One rank of a `cadence train --workers N` job, run under a guard that names it if a signal kills it.

MPICH's launcher (hydra) reports a rank killed by a signal by its PID alone,
and at once sends SIGKILL to every other rank, so no rank is left to say which
one died. This guard stands between the launcher and the rank: it runs the rank
as its child, and when a signal kills the child it prints the rank's number
(from the launcher's environment), then ends the same way so the launcher
still ends the job at once.

It is run by path (`python -I .../_rank_guard.py CMD ...`) and imports only the
standard library: started as `-m cadence...` it would import cadence, over a
second per rank, for nothing.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["GUARD_ENV", "ended_by_signal", "main"]

GUARD_ENV = (
    "CADENCE_RANK_GUARD"  # the same name as cadence.communication._peers.GUARD_ENV
)

# Where launchers put the rank and the job size: hydra (PMI_FD mode, PMI_PORT mode),
# Open MPI, PMIx launchers such as Slurm's.
_RANK_VARS = ("PMI_RANK", "PMI_ID", "OMPI_COMM_WORLD_RANK", "PMIX_RANK")
_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE")
# Re-raising one of these on the guard would leave a core file of the guard, not of the
# rank: the guard exits with the shell's status for it (128 + signal) instead.
_CORE_SIGNALS = frozenset(
    getattr(signal, name)
    for name in (
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGSEGV",
        "SIGSYS",
        "SIGXCPU",
        "SIGXFSZ",
    )
    if hasattr(signal, name)
)


def _first(env: Mapping[str, str], names: Sequence[str]) -> str | None:
    return next((env[n] for n in names if n in env), None)


def ended_by_signal(
    signum: int, child: int, env: Mapping[str, str], host: str | None = None
) -> str:
    """Return the line that names the rank in `env` whose process `child` was killed by `signum`."""
    rank, size = _first(env, _RANK_VARS), _first(env, _SIZE_VARS)
    who = (
        "a rank"
        if rank is None
        else f"rank {rank}" + ("" if size is None else f" of {size}")
    )
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    why = (
        " (sent from outside: the kernel's out-of-memory killer sends it too)"
        if name == "SIGKILL"
        else ""
    )
    return (
        f"cadence: {who} (pid {child} on {host or socket.gethostname()}, under pid {os.getpid()}) "
        f"was killed by {name}{why}. The launcher ends the other ranks."
    )


def _wait_for_rank(signum: int, frame: object) -> None:
    """SIGINT/SIGTERM reach the rank's whole process group: the rank answers them, the guard waits."""


def main(argv: Sequence[str]) -> int:
    """Run `argv` as this rank; return its exit status, or end by the signal that killed it."""
    if not argv:
        print("usage: _rank_guard.py COMMAND [ARG ...]", file=sys.stderr)
        return 2
    # A handler, not SIG_IGN: exec resets handlers but would pass SIG_IGN on to the rank.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _wait_for_rank)
    # close_fds=False: the launcher's PMI socket (PMI_FD) must reach the rank.
    # GUARD_ENV tells the rank's `init()` that its death will be named (no PID map needed).
    env = {**os.environ, GUARD_ENV: str(os.getpid())}
    child = subprocess.Popen(list(argv), close_fds=False, env=env)
    status = child.wait()
    if status >= 0:
        return status
    signum = -status
    print(ended_by_signal(signum, child.pid, os.environ), file=sys.stderr, flush=True)
    if signum in _CORE_SIGNALS:
        return 128 + signum
    if signum != signal.SIGKILL:  # the one that cannot be (and needs not be) reset
        signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    return 128 + signum  # not reached: the signal ends the guard


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
