"""Run the independent parts of one CPU kernel call side by side, one thread per core BLAS may use.

The one place the CPU kernels use more than the calling thread. The numba loops
run between BLAS calls, which own the cores (`CPUTarget.configure_threads` sets
BLAS's thread count from `runtime_num_threads`). A kernel whose work splits
into independent parts (blocks of images in the convolutions, rows of the im2col
products (`_split_gemm`), rows of softmax and normalization, batch rows of a
recurrent layer through time, channels of batch normalization) runs them on that
many threads instead: the first part on
the calling thread, the others on one small pool, and the threads meet once per
kernel call. The numba loops (`nogil`) and BLAS release the GIL, so the parts
really run at once.

Meanwhile BLAS runs on one thread and gets its count back afterwards, so the
process never computes on more threads than it was allowed, and idle BLAS
workers do not spin-wait against the parts. Both were measured on 2 cores: a
recurrent loop calling BLAS every step ran 13x slower against two spinning BLAS
threads, and the Winograd convolution 3 to 8 times slower with its products
split over 2 BLAS threads than with its blocks split over 2 threads (load 4-6).
BLAS's thread count is one setting for the process: a product another Python
thread runs meanwhile uses one thread too (its result is the same).

Not numba's `parallel=True`: its only threading layer available everywhere
(workqueue) must not be entered from two Python threads at once, and cadence
runs training steps from worker threads.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any, TypeVar

# Loads the BLAS library numba's np.dot calls (scipy's), so that the controller below
# sees it next to numpy's: recurrent loops call it inside their parts.
import numba
import numpy as np
import scipy.linalg.cython_blas  # noqa: F401
from numba.extending import register_jitable
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from . import _numba_cache

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "MIN_ADD_ELEMENTS",
    "WAIT_SECONDS",
    "add_into",
    "blas_threads",
    "contiguous",
    "in_spans",
    "run_parts",
    "spans",
    "split_loop",
    "thread_count",
]

T = TypeVar("T")
WAIT_SECONDS = 3600.0
"""The longest the calling thread waits for another part (a bound, far above any real call)."""

# The BLAS libraries loaded, read and set directly: a `threadpoolctl` limit re-reads
# every library each time (milliseconds a step).
_BLAS_LIBS = ThreadpoolController().select(user_api="blas").lib_controllers
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_inside = threading.local()


def _forget_pool() -> None:
    # A forked child (multiprocessing's fork start, a launcher) has none of the parent's
    # pool threads, but the executor would count them as running and start no new one:
    # a part submitted there would never run. The child starts its own pool.
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)


def blas_threads() -> int:
    """How many threads BLAS runs a product on now (the most over the loaded libraries; 1 if none)."""
    return max((int(lib.get_num_threads()) for lib in _BLAS_LIBS), default=1)


def thread_count() -> int:
    """How many parts run at once: BLAS's thread count (1 inside a part: no nested split)."""
    if getattr(_inside, "active", False):
        return 1
    return max(1, blas_threads())


def spans(count: int, parts: int, min_items: int = 1) -> list[tuple[int, int]]:
    """[(start, stop)] cutting range(count) into at most `parts` contiguous spans of `min_items` or more."""
    n = max(1, min(parts, count // max(min_items, 1)))
    return list(itertools.pairwise(count * i // n for i in range(n + 1)))


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


def run_parts(tasks: list[Callable[[], T]], *, blas_inside: bool = False) -> list[T]:
    """Return the results of `tasks`, run at once (the first on the calling thread), BLAS single-threaded meanwhile.

    At most `thread_count()` tasks should be given; a task's exception is raised
    here. A single task runs as it is, unless its work calls BLAS (`blas_inside`):
    then BLAS is held at one thread for it too.
    """
    if len(tasks) < 2 and not blas_inside:
        return [task() for task in tasks]
    before = [lib.get_num_threads() for lib in _BLAS_LIBS]
    for lib in _BLAS_LIBS:
        lib.set_num_threads(1)
    try:
        pool = _executor(len(tasks) - 1) if len(tasks) > 1 else None
        futures = [pool.submit(_marked(t)) for t in tasks[1:]] if pool else []
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
        for lib, n in zip(_BLAS_LIBS, before, strict=True):
            lib.set_num_threads(n)


def in_spans(
    loop: Callable[..., Any],
    count: int,
    min_items: int,
    *args: Any,
    blas_inside: bool = False,
) -> None:
    """Run `loop(*args, start, stop)` over spans of range(count), one per thread (`spans`).

    `min_items`: the fewest items worth a thread (below, handing a span over
    costs more than it saves). `blas_inside`: the loop calls BLAS, which then
    runs on one thread even when the items make a single span.
    """
    if not blas_inside and count < 2 * min_items:
        loop(*args, 0, count)
        return
    run_parts(
        [
            functools.partial(loop, *args, start, stop)
            for start, stop in spans(count, thread_count(), min_items)
        ],
        blas_inside=blas_inside,
    )


MIN_ADD_ELEMENTS = 1 << 17
"""The fewest elements an `add_into` part takes (0.5 MiB of float32: about 0.1 ms, twice a hand-off)."""


def _add_rows(acc: Any, part: Any, out: Any, start: int, stop: int) -> None:
    np.add(acc[start:stop], part[start:stop], out=out[start:stop])


def add_into(acc: Any, part: Any, out: Any = None) -> Any:
    """Write acc + part (same shapes) into `out` (default: acc itself), the rows (first axis) split over the threads; return it.

    Sums the per-thread partial results of a split product, and the gradients the
    tape accumulates. A serial add of the 512-channel Winograd weight gradient's
    partials (16 MiB each) left the other core idle while it ran; numpy's add
    releases the GIL, so the rows add at once.
    """
    out = acc if out is None else out
    if acc.ndim == 0 or acc.size < 2 * MIN_ADD_ELEMENTS:
        np.add(acc, part, out=out)
        return out
    rows = acc.shape[0]
    in_spans(
        _add_rows, rows, max(1, MIN_ADD_ELEMENTS * rows // acc.size), acc, part, out
    )
    return out


def _copy_rows(a: Any, out: Any, start: int, stop: int) -> None:
    out[start:stop] = a[start:stop]


def contiguous(a: Any) -> Any:
    """`a` if C-contiguous, else a C-contiguous copy, the rows (first axis) copied over the threads.

    The im2col convolution's NHWC <-> NCHW transposes (np.ascontiguousarray) ran on
    the calling thread alone; numpy's copy releases the GIL.
    """
    if a.flags.c_contiguous:
        return a
    out = np.empty(a.shape, a.dtype)
    if a.ndim == 0 or a.size < 2 * MIN_ADD_ELEMENTS:
        out[...] = a
        return out
    rows = a.shape[0]
    in_spans(_copy_rows, rows, max(1, MIN_ADD_ELEMENTS * rows // a.size), a, out)
    return out


# Reassociation lets the split loops' sums vectorize; each compiled loop still adds in
# one fixed order, and NaN and infinity keep their IEEE meaning (no other `fast` flags).
_REASSOCIATE = {"reassoc", "contract"}
MIN_ITEMS_PER_THREAD = 2
"""The fewest items a `split_loop` span takes (below, a hand-off costs more than it saves)."""


# The files of the bodies `split_loop` compiled so far: the compiled loops live in this
# file's cache entries, so their stamp covers these files too (see `_numba_cache`).
_BODY_FILES: set[str] = set()


def split_loop(body: Callable[..., None]) -> Callable[..., None]:
    """A launcher `(*args, count)` running `body(*args, p)` for p in range(count), split over the threads.

    The compiled loop is kept in numba's disk cache, so a new process loads it
    instead of compiling it again. `body` is called as a plain function: numba keys
    a cached closure on the pickled values it closes over, and a plain function
    pickles by its name, where a dispatcher carries a new id in every process.
    """
    _BODY_FILES.add(inspect.getfile(body))
    element = register_jitable(error_model="numpy", fastmath=_REASSOCIATE)(body)

    def run(start: int, stop: int, *args: Any) -> None:
        for p in range(start, stop):
            element(*args, p)

    jitted: list[Any] = []

    def launch(*args: Any) -> None:
        if not jitted:
            jitted.append(_cached_jit(run))
        count = args[-1]
        run_parts(
            [
                functools.partial(jitted[0], start, stop, *args[:-1])
                for start, stop in spans(count, thread_count(), MIN_ITEMS_PER_THREAD)
            ]
        )

    return launch


def _cached_jit(run: Callable[..., None]) -> Any:
    # Decorated on the first launch, not in `split_loop`: numba reads the cache stamp when a
    # function is decorated, and every split loop shares one cache index (one function
    # here); a stamp taken after the modules built all their loops is the same for each.
    cache = _numba_cache.install(__file__, *sorted(_BODY_FILES))
    return numba.jit(
        nogil=True, cache=cache, error_model="numpy", fastmath=_REASSOCIATE
    )(run)
