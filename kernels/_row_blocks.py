"""Run a compiled row loop over blocks of rows on the threads BLAS was allowed.

The CPU kernels are single-threaded numba loops (`nogil`) between BLAS calls,
which own the cores (`CPUTarget.configure_threads` sets BLAS's thread count
from `runtime_num_threads`). Loops whose rows are independent (a recurrent
layer's batch rows through time, softmax and normalization rows) also use
those cores: the rows are cut into blocks, one per thread, the first block on
the calling thread and the others on a small pool, each loop releasing the GIL.
BLAS runs on one thread meanwhile, so the process never computes on more
threads than it was allowed, and idle BLAS workers do not spin-wait against
the loops (a loop calling BLAS per step ran 13x slower against two spinning
BLAS threads on 2 cores).
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

# Loads the BLAS library numba's np.dot calls, so that the controller below sees it.
import scipy.linalg.cython_blas  # noqa: F401
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

__all__ = ["in_row_blocks", "row_blocks"]

# The BLAS libraries loaded (numpy's, and scipy's that numba's np.dot calls), read and
# set directly: a `threadpoolctl` limit re-reads every library each time (ms a step).
_BLAS_LIBS = ThreadpoolController().select(user_api="blas").lib_controllers
_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(
            max_workers=os.cpu_count() or 1, thread_name_prefix="cadence-rows"
        )
    return _POOL


def _forget_pool() -> None:
    # A forked child (multiprocessing's fork start, a launcher) has none of the parent's
    # pool threads but the executor would count them as running and start no new one:
    # a block submitted there would never run. The child starts its own pool.
    global _POOL
    _POOL = None


os.register_at_fork(after_in_child=_forget_pool)


def row_blocks(rows: int, threads: int, min_rows: int) -> list[tuple[int, int]]:
    """[(start, stop)] cutting `rows` into at most `threads` blocks of `min_rows` rows or more."""
    count = max(1, min(threads, rows // max(min_rows, 1)))
    bounds = [rows * i // count for i in range(count + 1)]
    return list(itertools.pairwise(bounds))


def in_row_blocks(
    loop: Any, rows: int, min_rows: int, *args: Any, calls_blas: bool = False
) -> None:
    """Run `loop(*args, start, stop)` over blocks of the rows, one thread each, BLAS on one thread.

    `min_rows`: the fewest rows worth a thread (below, handing a block over costs
    more than it saves). A loop that `calls_blas` always runs with BLAS on one
    thread; another, when its rows make one block, runs as it is.
    """
    if not calls_blas and rows < 2 * min_rows:
        loop(*args, 0, rows)
        return
    before = [lib.get_num_threads() for lib in _BLAS_LIBS]
    blocks = row_blocks(rows, max(before, default=1), min_rows)
    for lib in _BLAS_LIBS:
        lib.set_num_threads(1)
    try:
        # Each loop is a finite compiled computation: waiting for its result is
        # bounded by it, and its exception, if any, is raised here.
        pool = _pool() if len(blocks) > 1 else None
        others = (
            [pool.submit(loop, *args, *block) for block in blocks[1:]] if pool else []
        )
        loop(*args, *blocks[0])
        for job in others:
            job.result()
    finally:
        for lib, n in zip(_BLAS_LIBS, before, strict=True):
            lib.set_num_threads(n)
