"""Parameters kept once per machine, in the shared window's weights row: each rank updates its share.

With plain SGD stepped from the window's rows (`WindowPlan.finish_stepping`),
every rank used to sum both rows and update its own full copy of the weights:
the same pass made L times, each reading L rows and writing every weight. Here
the ranks of one machine keep their parameters in one row of the window
(`NodeWindow.weights`), as the threads of one process share theirs, and each
rank updates only its 1/L of the columns: 1/L of the bytes, no work repeated.

Ordering. Backward reads the weights (for the input gradients), so nobody
updates them before every rank's backward has ended: the rows' barrier already
says so. The updates must be complete before any rank's next forward reads
the weights: one more barrier, after the update.

Safety. A parameter is stepped in the shared row only while, on every rank,
its data IS its view of the row and plain SGD steps it; each rank votes per
parameter in its flags of the window before the rows' barrier and reads every
rank's votes after it (no extra message). Otherwise, for that parameter:

- a rank whose parameter is the view copies it out first (a private array
  again) and the step goes on as before: an optimizer's update, or SGD from
  the rows on the rank's own copy. So a parameter rebound by `set_data` with
  another shape or dtype, `assign_value`, a non-SGD step, or `return_grad`
  never has two ranks update one array. Any other write into a parameter
  (`Parameter._before_write`: `set_data`, `load_checkpoint`, `ops.Assign`, an
  optimizer's update) makes that rank's copy private before it writes;
- where every rank could share it again (plain SGD, the right dtype) but some
  rank holds a private array (the first step, or a parameter rebound to a
  new array on some rank), every rank steps its own copy, then rank 0's
  result is copied into the row and every rank takes the view: the machine
  keeps rank 0's values, as the broadcast at the first step does.

Before `release()` and at exit (before MPI frees the window) every attached
parameter gets a private copy of its value back.
"""

from __future__ import annotations

import atexit
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ..communication._world import on_release

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ..communication._node_window import NodeWindow

__all__ = [
    "ATTACHED",
    "ELIGIBLE",
    "OPTIMIZER",
    "SharedWeights",
    "detach_everywhere",
    "make_private",
]

Array = np.ndarray[Any, Any]

# A rank's vote per parameter; the machine's decision is the least vote of its ranks.
OPTIMIZER: Final = 0
"""Stepped by the optimizer (or not at all) on some rank: private arrays everywhere."""
ELIGIBLE: Final = 1
"""Plain SGD from the rows on every rank, but some rank holds a private array: attach."""
ATTACHED: Final = 2
"""Plain SGD, and the view of the row on every rank: each rank steps its share of the columns."""

# Every row some parameter is a view of (the views keep the window alive, so this keeps
# nothing alive that would otherwise go): detached at `release()` and at exit.
_attached_rows: set[SharedWeights] = set()
_hooks_registered = False


class SharedWeights:
    """The weights row of one `NodeWindow`, one view per parameter, and the ranks' votes."""

    def __init__(
        self,
        window: NodeWindow,
        offsets: Sequence[int],
        shapes: Sequence[tuple[int, ...]],
    ) -> None:
        row = window.weights
        assert row is not None, "only the all-read layout has a weights row"
        self._row = row
        self._views = [
            row[a:b].reshape(shape)
            for a, b, shape in zip(offsets, offsets[1:], shapes, strict=False)
        ]
        self._offsets = list(offsets)
        self._votes = window.flags
        self._mine = window.flags[window.rank]
        # Per rank: one vote per parameter, then whether it lets the last barrier wait.
        self._everyone_attached = (bytes([ATTACHED]) * len(shapes) + b"\x01") * len(
            window.flags
        )
        self._all_attached = bytes([ATTACHED]) * len(shapes)
        self._leader = window.rank == 0
        self._share = window.share
        self._attached: list[Any] = [None] * len(shapes)
        """The parameter holding each view on this rank (None: not attached)."""

    @property
    def attached_count(self) -> int:
        """How many parameters are views of the row on this rank now."""
        return sum(
            p is not None and p._data is v
            for p, v in zip(self._attached, self._views, strict=True)
        )

    def vote(
        self,
        params: Sequence[Any],
        steps: dict[int, tuple[float, float]] | None,
        defer: bool = False,
    ) -> None:
        """Write this rank's vote per parameter (before the rows' barrier); None: the optimizer steps all.

        `defer`: this rank lets the step's last barrier wait for the loop's stop vote.
        """
        mine, views = self._mine, self._views
        if steps is None:
            mine[:] = OPTIMIZER
            return
        mine[-1] = defer
        for i, p in enumerate(params):
            data, view = p._data, views[i]
            if id(p) not in steps:
                mine[i] = OPTIMIZER
            elif data is view:
                mine[i] = ATTACHED
            elif (
                type(data) is np.ndarray
                and data.dtype == view.dtype
                and data.shape == view.shape
                and data.flags.c_contiguous  # SGD from the rows steps it in place
                and data.flags.writeable
            ):
                mine[i] = ELIGIBLE
            else:
                mine[i] = OPTIMIZER

    def decide(self) -> tuple[Array | bytes, bool]:
        """The machine's decision per parameter, and whether every rank defers (after the rows' barrier).

        Per parameter, the least vote of the ranks.
        """
        votes = self._votes
        # The common case, checked on a few bytes: every parameter attached everywhere.
        if votes.tobytes() == self._everyone_attached:
            return self._all_attached, True
        least: Array = votes.min(axis=0)
        return least[:-1], bool(least[-1])

    def detach(self, i: int, param: Any) -> None:
        """Give `param` a private copy of its value, if it is the view `i` (nobody writes the view meanwhile)."""
        if param._data is self._views[i]:
            param._data = self._views[i].copy()
            # Only here: a parameter another row holds now keeps that row's hook.
            param._before_write = None
        if self._attached[i] is param:
            self._attached[i] = None

    def detach_all(self) -> None:
        """Give every attached parameter a private copy (the row is about to be unsafe to use)."""
        for i, p in enumerate(self._attached):
            if p is not None:
                self.detach(i, p)

    def step_share(
        self, rows: Array, i: int, divisor: Any, rate: tuple[float, float], step: Any
    ) -> None:
        """Apply `step` (SGD from the rows) to this rank's share of parameter `i`'s columns."""
        lo, hi = self._offsets[i], self._offsets[i + 1]
        a, b = max(lo, self._share[0]), min(hi, self._share[1])
        if a < b:
            step(rows, a, self._row[a:b], divisor, *rate)

    def publish_leader(self, indices: Sequence[int], params: Sequence[Any]) -> None:
        """Rank 0 copies its stepped values of `indices` into the row (between two barriers)."""
        if self._leader:
            for i in indices:
                self._views[i][...] = params[i]._data

    def attach(self, indices: Sequence[int], params: Sequence[Any]) -> None:
        """Make each parameter of `indices` the view of its columns (after rank 0 filled them)."""
        for i in indices:
            p = params[i]
            p._data = self._views[i]
            self._attached[i] = p
            # A write into the buffer (`set_data`, `load_checkpoint`, an optimizer) on one rank
            # would reach every rank, and two ranks' read-modify-writes would mix: it makes the
            # parameter private first; the next step attaches it again, with rank 0's values.
            p._before_write = partial(self.detach, i, p)
        _register(self)


def _register(shared: SharedWeights) -> None:
    global _hooks_registered
    # Forget the rows no parameter uses any more (their parameters moved to another row).
    _attached_rows.intersection_update([s for s in _attached_rows if s.attached_count])
    _attached_rows.add(shared)
    if not _hooks_registered:
        # Registered after mpi4py's finalizer (MPI is running): runs before it.
        atexit.register(detach_everywhere)
        on_release(detach_everywhere)
        _hooks_registered = True


def make_private(params: Iterable[Any]) -> None:
    """Give each of `params` kept in a shared row a private copy: before anything but that row's step writes it.

    An optimizer updating a parameter in place on every rank must not update
    the machine's one copy L times (another training cell on the same network,
    a custom loop after `Model.train`). Nothing writes the row meanwhile: only
    its own cell's steps do, and the ranks run one cell's step at a time.
    """
    if not _attached_rows:  # every step of every optimizer comes here: mostly to leave
        return
    for p in params:
        p._prepare_write()


def detach_everywhere() -> None:
    """Give every parameter attached to any shared row a private copy (at `release()` and at exit)."""
    for shared in _attached_rows:
        shared.detach_all()
    _attached_rows.clear()
