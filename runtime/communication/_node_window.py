"""The ranks of one machine sharing one block of memory: an MPI-3 shared-memory window.

A gradient allreduce between ranks of one machine moves data that every rank
could simply read. MPICH's `MPI_Allreduce` of 2.7 MB between 2 local ranks
took 0.3-1.2 ms here (it pipes the data through small shared-memory cells),
while copying 2.7 MB takes 0.06 ms and summing it 0.09 ms. The window gives
each rank a row the others can read: each rank copies its gradients into its
row as backward reports them; a barrier; then the rows are summed (see
`NodeWindow` for who sums what), the mean's division in the same pass. The
synchronisation is MPI's own: the window stays in a `lock_all` epoch, and
`Win.Sync` + `Barrier` + `Win.Sync` orders the stores of one phase before the
loads of the next (the unified memory model's pattern).

Across machines the window is one level of a hierarchical reduction: the
machine's sum, then an `MPI_Allreduce` of the result rows between one leader
rank per machine, then a barrier on the machine.

Every column is summed in rank order, and by one rank or by every rank alike,
so every rank reads the very same bits: ranks cannot drift apart by rounding.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Final

import numba
import numpy as np

if TYPE_CHECKING:
    from ._world import World

__all__ = [
    "ONE_RANK_PER_HOST_ENV",
    "SHARED_MEMORY_ENV",
    "SHARED_WEIGHTS_ENV",
    "NodeWindow",
    "env_flag",
    "sum_columns",
    "window_wanted",
]

Array = np.ndarray[Any, Any]

SHARED_MEMORY_ENV: Final = "CADENCE_SHARED_MEMORY"
"""Set to 0 to reduce with `MPI_Allreduce` only (for example where /dev/shm is too small)."""
SHARED_WEIGHTS_ENV: Final = "CADENCE_SHARED_WEIGHTS"
"""Set to 0 to keep each rank's own copy of the weights (see `nn/_shared_weights.py`)."""
ONE_RANK_PER_HOST_ENV: Final = "CADENCE_ONE_RANK_PER_HOST"
"""Set to 1 to treat every rank as a machine of its own: tests the cross-machine path on one host."""


def env_flag(name: str, default: bool) -> bool:
    """Return the 0/1 environment variable `name` (`default` when unset); ValueError for another value."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw not in ("0", "1"):
        raise ValueError(
            f"The environment variable {name} must be 0 or 1, but got {raw!r}."
        )
    return raw == "1"


def _shm_has_room(nbytes: int) -> bool:
    # MPICH maps the window from a file in /dev/shm: a container's small /dev/shm (Docker's
    # 64 MB) would end the job with SIGBUS on first touch instead of an error.
    try:
        found = os.statvfs("/dev/shm")
    except OSError:  # no /dev/shm: MPI finds its own way (or fails with an error)
        return True
    return found.f_bavail * found.f_frsize >= nbytes


def window_wanted(world: World, elements: int, itemsize: int) -> bool:
    """Return whether gradients of `elements` items go through a shared window: a collective.

    Wanted where ranks share a machine, unless `$CADENCE_SHARED_MEMORY` is 0 or
    /dev/shm has no room for the window; every rank must agree (an allreduce of
    the answers), or one would wait in a barrier the others never reach.
    """
    wanted, alone = (
        env_flag(SHARED_MEMORY_ENV, True),
        env_flag(ONE_RANK_PER_HOST_ENV, False),
    )
    if world.size == 1:
        return False
    here = wanted and (world.local_size > 1 or alone)
    if here:
        # At most two sets of rows and one more: the weights or the result (see NodeWindow).
        here = _shm_has_room((2 * world.local_size + 1) * elements * itemsize)
    with world.watchdog.guard("shared-memory window vote"):
        return bool(world.comm.allreduce(int(here), op=world.mpi.MIN))


# The loops below index from 0 over 1-d slices: numba then knows no index is negative and
# vectorizes them (with `range(lo, hi)` on the 2-d rows it checks for wrap-around on every
# element and does not: 750 us instead of 44 us for 1.3 MB measured here).
_CHUNK: Final = (
    4096  # columns summed at a time over many rows: the partial sums stay in L1
)


@numba.njit(cache=True, nogil=True)
def _sum_two_rows(slots: Array, lo: int, n: int, out: Array, divisor: Any) -> None:
    x, y, dst = slots[0, lo : lo + n], slots[1, lo : lo + n], out[lo : lo + n]
    for j in range(n):
        dst[j] = (x[j] + y[j]) / divisor


@numba.njit(cache=True, nogil=True)
def _sum_rows(slots: Array, lo: int, n: int, out: Array, divisor: Any) -> None:
    for start in range(0, n, _CHUNK):
        at, m = lo + start, min(_CHUNK, n - start)
        dst, first = out[at : at + m], slots[0, at : at + m]
        for j in range(m):
            dst[j] = first[j]
        for r in range(1, slots.shape[0]):
            row = slots[r, at : at + m]
            for j in range(m):
                dst[j] += row[j]
        for j in range(m):
            dst[j] = dst[j] / divisor


def sum_columns(slots: Array, lo: int, hi: int, out: Array, divisor: Any) -> None:
    """`out[lo:hi] = slots[:, lo:hi].sum(0) / divisor`, adding the rows in order, in one pass.

    `divisor` is a scalar of the rows' dtype, so the division rounds as the
    allreduce path's `buffer /= divisor` does.
    """
    kernel = _sum_two_rows if slots.shape[0] == 2 else _sum_rows
    kernel(slots, lo, hi - lo, out, divisor)


_LINE_BYTES: Final = 64
ALL_READ_MAX_RANKS: Final = 4
"""Up to this many ranks on one machine, each rank reads every row whole (one barrier per step)."""


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


class NodeWindow:
    """A shared window of one row of `elements` per local rank, and its reduction.

    Two layouts (chosen alike on every rank):

    - on one machine with at most `ALL_READ_MAX_RANKS` ranks, two sets of rows
      used in turn, and each rank sums every column itself into its own private
      result: one barrier per step. The turn-taking makes the second barrier
      unneeded: a rank writes a set again only two steps later, after a barrier
      every rank passed once done reading it. One more row, `weights`, can hold
      the machine's one copy of the parameters (`nn/_shared_weights.py`);
    - otherwise one set of rows plus a shared result row, each rank summing its
      share of the columns (reading L rows whole would cost each rank L times the
      gradient's bytes), then a barrier before anyone reads the result, and the
      leaders' allreduce between machines.

    Both have `flags`: a few bytes per rank that each writes before a barrier
    and every rank reads after it (votes that need no message of their own).

    Collective: every rank of the world builds it at the same point.
    """

    def __init__(
        self, world: World, elements: int, dtype: np.dtype[Any], flags: int = 0
    ) -> None:
        mpi, comm = world.mpi, world.comm
        self._world = world
        with world.watchdog.guard("shared-memory window setup"):
            if env_flag(ONE_RANK_PER_HOST_ENV, False):
                node = comm.Split(color=world.rank, key=0)
            else:
                node = comm.Split_type(mpi.COMM_TYPE_SHARED, key=world.rank)
            self._node = node
            me, ranks = node.Get_rank(), node.Get_size()
            # One leader per machine reduces between machines (none needed on one machine).
            leaders = comm.Split(color=0 if me == 0 else mpi.UNDEFINED, key=world.rank)
            self._leaders = leaders if leaders != mpi.COMM_NULL else None
            # World rank 0 leads its machine: it tells every rank how many machines there are.
            machines = leaders.Get_size() if self._leaders is not None else 0
            self.machines: int = comm.bcast(machines, root=0)
            """How many machines the job spans (1: the window alone reduces)."""
            self.all_read: bool = self.machines == 1 and ranks <= ALL_READ_MAX_RANKS
            sets = 2 if self.all_read else 1
            # One more row: the shared result (shares layout) or the shared weights (all-read).
            shared_rows = sets * ranks + 1
            itemsize = dtype.itemsize
            # Rows, shares and each rank's flags start on a cache line: no line is written by two ranks.
            line = max(1, _LINE_BYTES // itemsize)
            row = _round_up(max(elements, 1), line)
            rows_bytes = shared_rows * row * itemsize
            flag_stride = _round_up(max(flags, 1), _LINE_BYTES)
            total = rows_bytes + ranks * flag_stride
            # Rank 0 of the machine allocates the whole block: one contiguous array.
            self._win = mpi.Win.Allocate_shared(total if me == 0 else 0, 1, comm=node)
            buffer, _ = self._win.Shared_query(0)
            self._win.Lock_all()
        raw: Array = np.ndarray(buffer=buffer, dtype=np.uint8, shape=(total,))
        block = raw[:rows_bytes].view(dtype).reshape(shared_rows, row)
        self._sets = [block[s * ranks : (s + 1) * ranks] for s in range(sets)]
        self.rank = me
        """This rank's index on its machine."""
        self.rows: list[Array] = [rows[me] for rows in self._sets]
        """This rank's row in each set: the step's gradients go to `rows[current]`."""
        self.current = 0
        """The set of rows this step writes."""
        self.result: Array = np.empty(row, dtype) if self.all_read else block[-1]
        """The reduced row, the same on every rank after `reduce`."""
        self.weights: Array | None = block[-1] if self.all_read else None
        """All-read layout: a row every rank may keep its parameters in (see `nn/_shared_weights.py`)."""
        self.flags: Array = raw[rows_bytes:].reshape(ranks, flag_stride)[:, :flags]
        """`flags` bytes per rank: each rank writes its own before a barrier, all read them after."""
        share = _round_up(
            -(-elements // ranks), line
        )  # the last rank takes what is left
        self.share: tuple[int, int] = (
            min(me * share, elements),
            min((me + 1) * share, elements),
        )
        """This rank's 1/L of the columns (cache-line aligned)."""
        self._columns = (0, elements) if self.all_read else self.share
        self.elements = elements

    def fence(self) -> None:
        """Order this rank's stores to the window before a synchronisation, or the others' after it."""
        self._win.Sync()

    def sync(self) -> None:
        """Wait until every rank of the machine has finished the last phase (its stores visible to loads after)."""
        self._win.Sync()
        self._node.Barrier()
        self._win.Sync()

    def arrived(self) -> Array:
        """All-read layout: wait until every rank's row holds this step's gradients; return the rows.

        The rows stay readable until this rank's next `arrived` or `reduce`.
        """
        assert self.all_read, "only the all-read layout hands out its rows"
        with self._world.watchdog.guard("gradient reduction (shared memory)"):
            self.sync()
        slots = self._sets[self.current]
        self.current = 1 - self.current
        return slots

    def reduce(self, divisor: float | None) -> Array:
        """Sum every rank's row (divided by `divisor` when given) into `result`; return `result`.

        The rows are free for the next step's gradients when this returns;
        `result` stays valid until the next `reduce` begins its sum.
        """
        lo, hi = self._columns
        world = self._world
        last_level = self.machines <= 1
        scale = self.result.dtype.type(
            divisor if (divisor is not None and last_level) else 1.0
        )
        if self.all_read:
            sum_columns(self.arrived(), lo, hi, self.result, scale)
            return self.result
        with world.watchdog.guard("gradient reduction (shared memory)"):
            self.sync()  # every rank's gradients are in its row
            sum_columns(self._sets[0], lo, hi, self.result, scale)
            self.sync()  # every column is summed
            if not last_level:
                if self._leaders is not None:
                    self._leaders.Allreduce(
                        world.mpi.IN_PLACE, self.result, op=world.mpi.SUM
                    )
                    if divisor is not None:
                        self.result /= self.result.dtype.type(divisor)
                self.sync()  # the leader has the job's sum
        return self.result
