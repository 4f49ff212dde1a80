"""Which process each rank is, so that a rank that dies is named by its rank, not by a PID.

`init()` gathers every rank's host name, PID and process start time once (one
small allgather). A rank waiting in a collective can then tell whether a rank on
its own machine is gone: its PID no longer exists, is a zombie, or now belongs
to another process (a different start time). Ranks on other machines cannot be
checked this way; their death is bounded by the watchdog's timeout instead.

Under MPICH's launcher (hydra), rank 0 also prints the PID of every rank once
(`pid_map_line`): hydra kills every rank at once with SIGKILL when one dies by a
signal, so no rank can name the dead one, and hydra's own report names a PID.
Ranks that `cadence train --workers` starts run under `_rank_guard`, which
names a dead rank itself: they print no map.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any

__all__ = ["GUARD_ENV", "Peer", "gather_peers", "gone_ranks", "pid_map_line"]

# Set by `cadence.cli._rank_guard` for the rank it runs (to the guard's PID).
GUARD_ENV = "CADENCE_RANK_GUARD"
# Set by hydra (MPICH's mpiexec) for every process it starts, and by no other launcher
# we know of: Open MPI's and Slurm's reports of a dead process name its rank already.
_HYDRA_ENV = "MPI_LOCALNRANKS"


@dataclass(frozen=True)
class Peer:
    """One rank's process: where it runs and which process it is."""

    rank: int
    host: str
    pid: int
    start: str | None
    """Field 22 of /proc/PID/stat (start time in clock ticks), None where /proc is missing."""

    def describe(self) -> str:
        """Return `rank R (pid P on HOST)` for messages."""
        return f"rank {self.rank} (pid {self.pid} on {self.host})"


def _stat(pid: int) -> tuple[str, str] | None:
    """Return `(state, start time)` of process `pid` from /proc, None when it does not exist."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode("ascii", "replace")
    except FileNotFoundError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], fields[19]


def _start_time(pid: int) -> str | None:
    found = _stat(pid) if os.path.isdir("/proc") else None
    return None if found is None else found[1]


def gather_peers(comm: Any) -> tuple[Peer, ...]:
    """Return every rank's `Peer`, in rank order (a collective: every rank calls it at init)."""
    pid = os.getpid()
    entries = comm.allgather((socket.gethostname(), pid, _start_time(pid)))
    return tuple(
        Peer(rank, host, peer_pid, start)
        for rank, (host, peer_pid, start) in enumerate(entries)
    )


def _is_gone(peer: Peer) -> bool:
    if peer.start is not None:
        found = _stat(peer.pid)
        return found is None or found[0] in ("Z", "X") or found[1] != peer.start
    try:
        os.kill(peer.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # exists, owned by someone else: not our rank any more
        return True
    return False


def gone_ranks(peers: tuple[Peer, ...], me: int) -> list[Peer]:
    """Return the ranks on this machine (other than `me`) whose process has ended."""
    here = peers[me].host
    return [p for p in peers if p.rank != me and p.host == here and _is_gone(p)]


def pid_map_line(
    peers: tuple[Peer, ...], env: dict[str, str] | None = None
) -> str | None:
    """Return the line that maps each rank's PID to its rank, or None when no one needs it.

    Needed under hydra when no guard names a dead rank: hydra's
    `BAD TERMINATION ... PID 4711` report is then the only trace of which rank died.
    """
    env = dict(os.environ) if env is None else env
    if len(peers) < 2 or _HYDRA_ENV not in env or GUARD_ENV in env:
        return None
    listed = ", ".join(f"pid {p.pid} is rank {p.rank} on {p.host}" for p in peers)
    return (
        f"cadence: {len(peers)} ranks ({listed}); mpiexec names a rank that dies "
        "by its pid (BAD TERMINATION ... PID)."
    )
