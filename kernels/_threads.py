"""Running a compiled loop over independent items on the kernel threads of the CPU table.

Most CPU kernels run on the calling thread. The ones whose items are
independent and whose work dominates a step outside BLAS (depthwise
convolution, batch normalization) split their range into one contiguous chunk
per kernel thread: the caller runs the first chunk, a small pool the others,
and the call returns when every chunk is done. The loops are numba `nogil`
functions, so the chunks really run at once. BLAS and these loops never
overlap (each call returns before the next starts), so the process still
computes on at most `kernel_threads()` threads, the limit
`set_context(runtime_num_threads=...)` sets for BLAS as well.

This is a plain thread pool rather than numba's `parallel=True`: numba's only
threading layer available everywhere (workqueue) must not be entered from two
Python threads at once, and cadence runs training steps from worker threads.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba

__all__ = ["kernel_threads", "run_split", "set_kernel_threads", "split_loop"]

# Below this many items a split costs more (a hand-off to the pool) than it saves.
MIN_ITEMS_PER_THREAD = 2

_lock = threading.Lock()
_threads = max(1, os.cpu_count() or 1)
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0


def set_kernel_threads(count: int) -> None:
    """Let the splitting kernels use `count` threads (the caller's included)."""
    global _threads, _pool
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:  # type: ignore[redundant-expr]
        raise ValueError(
            f"For 'set_kernel_threads', `count` must be an int >= 1, but got {count!r}."
        )
    with _lock:
        if count != _threads and _pool is not None:
            _pool.shutdown(wait=True)
            _pool = None
        _threads = count


def kernel_threads() -> int:
    """The threads the splitting kernels use (the caller's included)."""
    return _threads


def _worker_pool(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_pid
    with _lock:
        # A forked child inherits the pool object but not its threads: work submitted
        # to it would never run, so the child starts a pool of its own.
        if _pool is None or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(workers, thread_name_prefix="cadence-kernel")
            _pool_pid = os.getpid()
        return _pool


def run_split(loop: Any, count: int, *args: Any) -> None:
    """Run `loop(start, stop, *args)` over contiguous chunks covering range(count), one per thread."""
    chunks = min(_threads, count // MIN_ITEMS_PER_THREAD)
    if chunks <= 1:
        loop(0, count, *args)
        return
    bounds = [count * i // chunks for i in range(chunks + 1)]
    pool = _worker_pool(_threads - 1)
    futures = [
        pool.submit(loop, bounds[i], bounds[i + 1], *args) for i in range(1, chunks)
    ]
    try:
        loop(bounds[0], bounds[1], *args)
    finally:
        # Compute only: each chunk ends after a bounded amount of work, so no timeout.
        for future in futures:
            future.result()


# Reassociation lets the loops' sums vectorize; each compiled loop still adds in one
# fixed order, and NaN and infinity keep their IEEE meaning (no other `fast` flags).
_REASSOCIATE = {"reassoc", "contract"}


def split_loop(body: Any) -> Any:
    """A launcher `(*args, count)` running `body(*args, p)` for p in range(count), split by `run_split`."""
    compiled = numba.jit(error_model="numpy", fastmath=_REASSOCIATE)(body)

    def run(start: int, stop: int, *args: Any) -> None:
        for p in range(start, stop):
            compiled(*args, p)

    jitted = numba.jit(nogil=True, error_model="numpy", fastmath=_REASSOCIATE)(run)
    return lambda *args: run_split(jitted, args[-1], *args[:-1])
