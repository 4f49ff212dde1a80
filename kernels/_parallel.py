"""Run the independent parts of one CPU kernel call side by side, one thread per core BLAS may use.

A kernel made of many small steps (a transform, a product of a few hundred
columns, another transform, per block of images) keeps two cores busy
better as two threads that each run whole blocks, with BLAS single-threaded
inside them, than as one thread whose products alone are split: that split
synchronizes BLAS's threads at every product, and on a loaded machine one of
them is often descheduled (measured on the Winograd convolution: 3 to 8 times
slower at 2 BLAS threads than the same work split by blocks, load 4 to 6 on 2 cores).
Here the threads meet once per kernel call.

The thread count is BLAS's own (`runtime_num_threads` sets it), so the
process never computes on more threads than it was allowed; while the parts
run, BLAS is set to one thread and restored after. The numba loops and BLAS
release the GIL, so the threads run in parallel. BLAS's thread count is one
setting for the process: a product another Python thread runs meanwhile uses one
thread too (its result is the same).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, TypeVar

from ._blas import blas_threads, set_blas_threads

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["WAIT_SECONDS", "run_parts", "thread_count"]

T = TypeVar("T")
WAIT_SECONDS = 3600.0
"""The longest the calling thread waits for another part (a bound, far above any real call)."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_inside = threading.local()


def thread_count() -> int:
    """How many parts run at once: BLAS's thread count (1 when BLAS is unknown or inside a part)."""
    if getattr(_inside, "active", False):
        return 1
    return max(1, blas_threads() or 1)


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < workers:  # grows with the thread count
            _pool = ThreadPoolExecutor(workers, thread_name_prefix="cadence-kernel")
        return _pool


def _marked(task: Callable[[], T]) -> Callable[[], T]:
    def run() -> T:
        _inside.active = True
        try:
            return task()
        finally:
            _inside.active = False

    return run


def run_parts(tasks: list[Callable[[], T]]) -> list[T]:
    """Return the results of `tasks`, run at once (the first on the calling thread), BLAS single-threaded meanwhile.

    At most `thread_count()` tasks should be given; a task's exception is raised here.
    """
    if len(tasks) < 2:
        return [task() for task in tasks]
    threads = blas_threads() or 1
    set_blas_threads(1)
    try:
        futures = [_executor(len(tasks) - 1).submit(_marked(t)) for t in tasks[1:]]
        try:
            first = _marked(tasks[0])()
        finally:  # the other parts finish (or fail) before BLAS gets its threads back
            try:
                rest = [f.result(timeout=WAIT_SECONDS) for f in futures]
            except FutureTimeout as exc:
                raise TimeoutError(
                    f"A kernel part did not finish within {WAIT_SECONDS:.0f} s; the worker thread is stuck."
                ) from exc
        return [first, *rest]
    finally:
        set_blas_threads(threads)
