"""`_threads`: the split of a loop's range over the kernel threads, and its configuration."""

from __future__ import annotations

import threading

import pytest

import cadence as ms
from cadence.kernels import _threads


@pytest.fixture
def restore_threads():
    before = _threads.kernel_threads()
    yield
    _threads.set_kernel_threads(before)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("count", [0, 1, 3, 4, 7, 64])
def test_run_split_covers_the_range_once_in_contiguous_chunks(
    restore_threads, threads, count
):
    _threads.set_kernel_threads(threads)
    calls: list[tuple[int, int, str, str]] = []

    def loop(start: int, stop: int, tag: str) -> None:
        calls.append((start, stop, tag, threading.current_thread().name))

    _threads.run_split(loop, count, "arg")
    covered = sorted(i for start, stop, _, _ in calls for i in range(start, stop))
    assert covered == list(range(count))
    assert all(tag == "arg" for _, _, tag, _ in calls)
    chunks = max(1, min(threads, count // _threads.MIN_ITEMS_PER_THREAD))
    assert len(calls) == chunks
    # The caller runs one chunk itself, the pool's threads the others.
    assert sum(name.startswith("cadence-kernel") for *_, name in calls) == chunks - 1


def test_an_error_in_a_chunk_reaches_the_caller(restore_threads):
    _threads.set_kernel_threads(2)

    def loop(start: int, stop: int) -> None:
        if start > 0:
            raise RuntimeError("second chunk failed")

    with pytest.raises(RuntimeError, match="second chunk failed"):
        _threads.run_split(loop, 10)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_set_kernel_threads_refuses_a_bad_count(bad):
    with pytest.raises(ValueError, match=r"`count` must be an int >= 1, but got"):
        _threads.set_kernel_threads(bad)


def test_runtime_num_threads_sets_the_kernel_threads(restore_threads):
    ms.set_context(runtime_num_threads=1)
    assert _threads.kernel_threads() == 1
    ms.set_context(runtime_num_threads=2)
    assert _threads.kernel_threads() == 2


def test_a_forked_child_splits_on_a_pool_of_its_own(restore_threads):
    import multiprocessing

    _threads.set_kernel_threads(2)
    _threads.run_split(lambda start, stop: None, 8)  # the parent's pool exists
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as pool:
        covered = pool.apply_async(_split_in_child).get(timeout=60)
    assert covered == list(range(8))


def _split_in_child() -> list[int]:
    seen: list[int] = []
    _threads.run_split(lambda start, stop: seen.extend(range(start, stop)), 8)
    return sorted(seen)
