"""`_parallel.split_loop` and `in_spans`: a loop's range split over the kernel threads, and their count."""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING

import numpy as np
import pytest
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

import cadence as ms
from cadence.kernels import _parallel

if TYPE_CHECKING:
    from collections.abc import Callable


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("count", [0, 1, 3, 4, 7, 64])
def test_in_spans_covers_the_range_once_in_contiguous_spans(threads, count):
    calls: list[tuple[int, int, str, str]] = []

    def loop(tag: str, start: int, stop: int) -> None:
        calls.append((start, stop, tag, threading.current_thread().name))

    with threadpool_limits(limits=threads, user_api="blas"):
        _parallel.in_spans(loop, count, 2, "arg")
    covered = sorted(i for start, stop, _, _ in calls for i in range(start, stop))
    assert covered == list(range(count))
    assert all(tag == "arg" for _, _, tag, _ in calls)
    parts = max(1, min(threads, count // 2))
    assert len(calls) == parts
    # The caller runs one span itself, the pool's threads the others.
    assert sum(name.startswith("cadence-kernel") for *_, name in calls) == parts - 1


def _double(src, dst, p):
    dst[p] = 2.0 * src[p]


@pytest.mark.parametrize("threads", [1, 2])
def test_split_loop_runs_the_compiled_body_for_every_item(threads):
    launch = _parallel.split_loop(_double)
    src = np.arange(101, dtype=np.float64)
    dst = np.zeros_like(src)
    with threadpool_limits(limits=threads, user_api="blas"):
        launch(src, dst, src.size)
    np.testing.assert_array_equal(dst, 2.0 * src)


def test_an_error_in_a_span_reaches_the_caller():
    def loop(start: int, stop: int) -> None:
        if start > 0:
            raise RuntimeError("second span failed")

    with (
        threadpool_limits(limits=2, user_api="blas"),
        pytest.raises(RuntimeError, match="second span failed"),
    ):
        _parallel.in_spans(loop, 10, 2)


def test_callers_on_two_threads_each_get_their_own_parts_results():
    # The pool is shared: each call gets back its own parts' results, in order.
    results: dict[int, list[tuple[int, int]]] = {}

    def call(caller: int) -> None:
        def part(i: int) -> tuple[int, int]:
            return caller, i

        tasks: list[Callable[[], tuple[int, int]]] = [
            functools.partial(part, i) for i in range(3)
        ]
        for _ in range(20):
            results[caller] = _parallel.run_parts(tasks)
            assert results[caller] == [(caller, 0), (caller, 1), (caller, 2)]

    threads = [threading.Thread(target=call, args=(c,)) for c in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert results == {c: [(c, 0), (c, 1), (c, 2)] for c in range(2)}


def test_runtime_num_threads_sets_the_kernel_threads():
    before = _parallel.thread_count()
    try:
        ms.set_context(runtime_num_threads=1)
        assert _parallel.thread_count() == 1
        ms.set_context(runtime_num_threads=2)
        assert _parallel.thread_count() == 2
    finally:
        ms.set_context(runtime_num_threads=before)


def test_a_forked_child_splits_on_a_pool_of_its_own():
    import multiprocessing

    with threadpool_limits(limits=2, user_api="blas"):
        _parallel.in_spans(lambda start, stop: None, 8, 2)  # the parent's pool exists
        context = multiprocessing.get_context("fork")
        with context.Pool(1) as pool:
            covered = pool.apply_async(_split_in_child).get(timeout=60)
    assert covered == list(range(8))


def _split_in_child() -> list[int]:
    seen: list[int] = []
    with threadpool_limits(limits=2, user_api="blas"):
        _parallel.in_spans(lambda start, stop: seen.extend(range(start, stop)), 8, 2)
    return sorted(seen)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    ("shape", "parts"),
    [
        ((6, 5), "threads"),  # enough rows and elements: one span per thread
        ((3,), 0),  # under two parts' worth of elements: one plain add, no span
        ((1, 40), 1),  # a single row cannot split
    ],
)
def test_add_into_adds_over_spans_of_rows(monkeypatch, threads, shape, parts):
    monkeypatch.setattr(_parallel, "MIN_ADD_ELEMENTS", 4)
    spans_run: list[int] = []
    real = _parallel._add_rows

    def spy(acc: np.ndarray, part: np.ndarray, out: np.ndarray, a: int, b: int) -> None:
        spans_run.append(b - a)
        real(acc, part, out, a, b)

    monkeypatch.setattr(_parallel, "_add_rows", spy)
    rng = np.random.default_rng(0)
    acc, part = rng.standard_normal((2, *shape)).astype(np.float32)
    want = acc + part
    out = np.empty_like(acc)
    with threadpool_limits(limits=threads, user_api="blas"):
        got = _parallel.add_into(acc, part, out)
        assert got is out
        np.testing.assert_array_equal(out, want)
        got = _parallel.add_into(acc, part)  # into acc itself
    assert got is acc
    np.testing.assert_array_equal(acc, want)
    assert len(spans_run) == 2 * (threads if parts == "threads" else parts)


@pytest.mark.parametrize("threads", [1, 2])
def test_contiguous_copies_rows_over_the_threads(monkeypatch, threads):
    monkeypatch.setattr(_parallel, "MIN_ADD_ELEMENTS", 4)
    rows: list[int] = []
    real = _parallel._copy_rows

    def spy(a: np.ndarray, out: np.ndarray, start: int, stop: int) -> None:
        rows.append(stop - start)
        real(a, out, start, stop)

    monkeypatch.setattr(_parallel, "_copy_rows", spy)
    nhwc = np.arange(4 * 3 * 2 * 5, dtype=np.float32).reshape(4, 3, 2, 5)
    with threadpool_limits(limits=threads, user_api="blas"):
        got = _parallel.contiguous(nhwc.transpose(0, 3, 1, 2))
        assert _parallel.contiguous(got) is got  # already contiguous: no copy
    assert got.flags.c_contiguous
    np.testing.assert_array_equal(got, nhwc.transpose(0, 3, 1, 2))
    assert rows == ([2, 2] if threads == 2 else [4])
