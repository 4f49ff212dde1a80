"""A rank's process is recognised as gone when it ended, became a zombie, or its PID was reused."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from cadence.communication._peers import Peer, _start_time, gone_ranks


def peer(rank: int, pid: int, start: str | None = "auto") -> Peer:
    return Peer(
        rank, socket.gethostname(), pid, _start_time(pid) if start == "auto" else start
    )


def test_a_killed_rank_is_gone_and_a_live_one_is_not():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        peers = (peer(0, os.getpid()), peer(1, child.pid))
        assert gone_ranks(peers, 0) == []
        child.kill()
        child.wait(30)  # reaped: the PID no longer exists
        assert [p.rank for p in gone_ranks(peers, 0)] == [1]
        assert gone_ranks(peers, 0)[0].describe() == (
            f"rank 1 (pid {child.pid} on {socket.gethostname()})"
        )
    finally:
        child.kill()
        child.wait(30)


def test_a_zombie_and_a_reused_pid_are_gone_and_other_hosts_are_not_judged():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        zombie = peer(1, child.pid)
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped
        me = peer(0, os.getpid())
        assert [p.rank for p in gone_ranks((me, zombie), 0)] == [1]
        reused = Peer(1, me.host, os.getpid(), "1")  # our PID, another start time
        assert [p.rank for p in gone_ranks((me, reused), 0)] == [1]
        elsewhere = Peer(1, me.host + "-other", child.pid, zombie.start)
        assert gone_ranks((me, elsewhere), 0) == []
    finally:
        child.wait(30)
