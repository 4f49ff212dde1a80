"""The MPI world this process belongs to after `init()`: rank, size, local rank, watchdog.

mpi4py is imported only by `init()`, so a process that never calls it never
loads MPI (and cadence needs the `mpi` extra only for distributed runs).
`MPI_Init_thread` is called with `MPI_THREAD_MULTIPLE`: the collective
watchdog aborts the job from its own thread.

A rank that fails must not leave the others waiting in a collective forever.
Two mechanisms bound the wait (see docs/distributed.md):

- `init()` chains a `sys.excepthook` that prints which rank failed and calls
  `MPI_Abort`, which makes the launcher end every rank at once;
- every collective cadence starts is guarded by a watchdog that aborts the
  job, naming the operation and step, when it has waited `timeout` seconds
  (a rank that hangs, or a launcher that does not end the job on a death);
  while it waits, it checks every `DEATH_POLL_S` whether a rank on this machine
  has died (`_peers`), and then aborts at once, naming that rank.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

from ..bus._events import set_process_rank
from ._peers import Peer, gather_peers, gone_ranks, pid_map_line

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import TracebackType

__all__ = [
    "World",
    "abort",
    "current",
    "init_world",
    "on_release",
    "release_world",
    "require",
]

DEFAULT_TIMEOUT: Final = 30.0
TIMEOUT_ENV: Final = "CADENCE_COMM_TIMEOUT"
# Exit status of a job cadence aborts: distinct from Python's 1 for a plain error.
ABORT_STATUS: Final = 17
# How often a collective that is still waiting checks for dead ranks on this machine:
# a collective that completes sooner never checks (most take microseconds).
DEATH_POLL_S: Final = 0.25
# How long an aborting rank waits between printing why and calling MPI_Abort.
LAST_WORDS_S: Final = 1.0


class World:
    """One process's view of the MPI job: its communicator, rank, size and local rank."""

    def __init__(self, comm: Any, mpi: Any, timeout: float) -> None:
        self.comm = comm
        self.mpi = mpi
        self.rank: int = comm.Get_rank()
        self.size: int = comm.Get_size()
        local = comm.Split_type(mpi.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank: int = local.Get_rank()
        self.local_size: int = local.Get_size()
        local.Free()
        self.peers: tuple[Peer, ...] = gather_peers(comm) if self.size > 1 else ()
        self.timeout = timeout
        self.watchdog = Watchdog(self)

    def describe(self) -> str:
        """Return `rank R of N` for messages."""
        return f"rank {self.rank} of {self.size}"


class Watchdog:
    """Abort the job when one guarded collective waits longer than the world's timeout.

    Arming is one attribute write: no lock, no notify. A collective takes
    microseconds, and waking a thread for each one cost more than the
    collective itself (a guarded barrier between 2 ranks took 58 us against 13
    bare here, the woken thread competing for the GIL and the core). Instead
    one daemon thread looks every `DEATH_POLL_S` (or a quarter of the timeout,
    if shorter) at the collective in progress: the abort comes at most that
    late, and a collective that ends sooner is never looked at.
    """

    def __init__(self, world: World) -> None:
        self._world = world
        self._cond = threading.Condition()
        # (started, deadline, what) of the collective in progress, or None: one atomic write.
        self._armed: tuple[float, float, str] | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    @contextmanager
    def guard(self, what: str) -> Iterator[None]:
        """Abort the job if the block takes longer than the timeout."""
        if self._thread is None:
            self._start()
        now = time.monotonic()
        self._armed = (now, now + self._world.timeout, what)
        try:
            yield
        finally:
            self._armed = None

    def _start(self) -> None:
        with self._cond:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="cadence-comm-watchdog", daemon=True
                )
                self._thread.start()

    def close(self) -> None:
        """Stop the watchdog thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    def _watch(self) -> None:
        with self._cond:
            while not self._closed:
                self._cond.wait(min(DEATH_POLL_S, self._world.timeout / 4))
                armed = self._armed
                if armed is None or self._closed:
                    continue
                started, deadline, what = armed
                now = time.monotonic()
                if now < deadline:
                    if now - started >= DEATH_POLL_S:
                        self._abort_if_a_rank_died(what)
                    continue
                world = self._world
                abort(
                    f"cadence: {world.describe()} waited {world.timeout:g} s in {what}; "
                    "another rank failed or stalled (its own message, if it could print one, names it). "
                    f"Aborting the job (the limit is init(timeout=...) or ${TIMEOUT_ENV})."
                )

    def _abort_if_a_rank_died(self, what: str) -> None:
        world = self._world
        gone = gone_ranks(world.peers, world.rank) if world.peers else []
        if gone:
            names = ", ".join(p.describe() for p in gone)
            abort(
                f"cadence: {names} died (the process ended without a word: SIGKILL, out of memory?); "
                f"{world.describe()} was waiting for it in {what}. Aborting the job."
            )


_lock = threading.Lock()
_world: World | None = None
_previous_hook: Any = None
_release_hooks: list[Callable[[], None]] = []


def on_release(hook: Callable[[], None]) -> None:
    """Call `hook` at every `release()`, first thing (memory shared with other ranks is still mapped)."""
    _release_hooks.append(hook)


def current() -> World | None:
    """Return the world after `init()`, None before (or after `release()`)."""
    return _world


def require(where: str) -> World:
    """Return the world, or raise RuntimeError naming `where` when `init()` was not called."""
    world = _world
    if world is None:
        raise RuntimeError(
            f"For '{where}', distributed communication is not initialized: call "
            "`cadence.communication.init()` first (and launch with `mpiexec -n N`)."
        )
    return world


def _timeout_from_env() -> float:
    raw = os.environ.get(TIMEOUT_ENV)
    if raw is None:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise ValueError(
            f"The environment variable {TIMEOUT_ENV} must be a positive number of seconds, but got {raw!r}."
        )
    return value


def init_world(timeout: float | None) -> World:
    """Start MPI (once) and return the world."""
    global _world, _previous_hook
    with _lock:
        if _world is not None:
            if timeout is not None:
                _world.timeout = timeout
            return _world
        try:
            import mpi4py
        except ImportError:
            raise RuntimeError(
                "cadence.communication.init() needs MPI: install the extra with "
                "`pip install 'cadence[mpi]'` (mpi4py and the mpich wheel)."
            ) from None
        # We initialize MPI ourselves, asking for full thread support (the watchdog aborts
        # from its own thread). mpi4py finalizes at exit only what it initialized unless
        # told to: a rank that exits without MPI_Finalize is a failure to MPICH's launcher,
        # which then kills every other rank (and reports success), so the rank that ends
        # first would kill rank 0 while it still saves the model.
        mpi4py.rc.initialize = False
        mpi4py.rc.finalize = True
        mpi4py.rc.thread_level = "multiple"
        from mpi4py import MPI

        if not MPI.Is_initialized():
            MPI.Init_thread(MPI.THREAD_MULTIPLE)
        world = World(
            MPI.COMM_WORLD.Dup(),
            MPI,
            timeout if timeout is not None else _timeout_from_env(),
        )
        _world = world
        set_process_rank(world.rank)
        pid_map = pid_map_line(world.peers) if world.rank == 0 else None
        if pid_map is not None:
            print(pid_map, file=sys.stderr, flush=True)  # noqa: T201 - read next to mpiexec's report
        if world.size > 1:
            _previous_hook = sys.excepthook
            sys.excepthook = _abort_on_uncaught
        return world


def release_world() -> None:
    """Forget the world: the process runs stand-alone again (MPI itself finalizes at exit)."""
    global _world, _previous_hook
    with _lock:
        world, _world = _world, None
        if world is None:
            return
        for hook in _release_hooks:
            hook()
        world.watchdog.close()
        set_process_rank(0)
        if _previous_hook is not None and sys.excepthook is _abort_on_uncaught:
            sys.excepthook = _previous_hook
        _previous_hook = None
        world.comm.Free()


def abort(message: str) -> None:
    """Print `message` and end every rank of the job (MPI_Abort); never returns."""
    print(message, file=sys.stderr, flush=True)  # noqa: T201 - the last words of a job
    # MPI_Abort makes the launcher kill every rank, and hydra's proxy then exits without
    # forwarding what is still in its pipes: give it time to pass the message on first.
    time.sleep(LAST_WORDS_S)
    world = _world
    if world is not None:
        world.mpi.COMM_WORLD.Abort(ABORT_STATUS)
    os._exit(ABORT_STATUS)


def _abort_on_uncaught(
    exc_type: type[BaseException],
    exc: BaseException,
    tb: TracebackType | None,
) -> None:
    hook = _previous_hook or sys.__excepthook__
    hook(exc_type, exc, tb)
    world = _world
    if world is None or world.size == 1:
        return
    abort(
        f"cadence: {world.describe()} failed with {exc_type.__name__}: {exc}. "
        "Aborting the job so that no other rank waits for it."
    )
