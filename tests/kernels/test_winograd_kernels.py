"""The Winograd F(4x4, 3x3) and F(2x2, 3x3) convolution kernels: CPU against `reference`, the reference against the convolution, gradients, checks, blocks and threads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from cadence.kernels import (
    _parallel,
    _winograd,
    _winograd_reference,
    cpu_kernels,
    reference,
)

from .test_cpu_matches_reference import arr, dtypes, seeds

cpu = cpu_kernels()
GEOMETRY = {"stride": (1, 1), "dilation": (1, 1)}
DEFAULT_MIN_F4_TILES = (
    _winograd_reference.MIN_F4_TILES
)  # read before the fixture lowers it


@pytest.fixture(autouse=True, scope="module")
def _f4_on_small_batches():
    # The small batches here would all run F(2x2, 3x3) (too few 4x4 blocks): let F(4x4, 3x3)
    # take every output of 8 or more a side, so both sets are tested.
    saved = _winograd_reference.MIN_F4_TILES
    _winograd_reference.MIN_F4_TILES = 1
    yield
    _winograd_reference.MIN_F4_TILES = saved


def close(got, want, dtype):
    """Compare at the kernels' float tolerance, scaled by the largest expected magnitude.

    Winograd's transforms add up to 16 terms per element before the products, so a float32
    result carries the rounding of the terms' magnitude, not of the (possibly small) result.
    """
    if want is None:
        assert got is None
        return
    assert got.shape == want.shape and got.dtype == want.dtype
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    rtol, atol = (2e-4, 2e-5) if dtype == np.float32 else (1e-10, 1e-12)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale)


cases = st.fixed_dictionaries(
    {
        "n": st.integers(1, 3),
        "c": st.integers(1, 5),
        "o": st.integers(1, 5),
        "h": st.integers(1, 9),
        "w": st.integers(1, 9),
        "pad": st.tuples(*[st.integers(0, 2)] * 4),
    }
)


def _fits(case):
    assume(case["h"] + case["pad"][0] + case["pad"][1] >= 3)
    assume(case["w"] + case["pad"][2] + case["pad"][3] >= 3)


def _operands(case, dtype, seed):
    x = arr((case["n"], case["c"], case["h"], case["w"]), dtype, seed)
    w = arr((case["o"], case["c"], 3, 3), dtype, seed + 1)
    geometry = ((1, 1), case["pad"], (1, 1))
    dy = arr(reference.conv2d_forward(x, w, *geometry).shape, dtype, seed + 2)
    return x, w, dy, geometry


# (what is tested, its oracle): the spec against the convolution's spec, the CPU table against the spec.
ROUTES = [
    (reference, "conv2d_winograd", "conv2d"),
    (cpu, "conv2d_winograd", "conv2d_winograd"),
]


@pytest.mark.parametrize(("table", "kernel", "oracle"), ROUTES)
@given(case=cases, need_dx=st.booleans(), dtype=dtypes, seed=seeds)
def test_matches_its_oracle(table, kernel, oracle, case, need_dx, dtype, seed):
    _fits(case)
    x, w, dy, geometry = _operands(case, dtype, seed)
    close(
        getattr(table, f"{kernel}_forward")(x, w, *geometry),
        getattr(reference, f"{oracle}_forward")(x, w, *geometry),
        dtype,
    )
    got = getattr(table, f"{kernel}_backward")(dy, x, w, *geometry, need_dx)
    want = getattr(reference, f"{oracle}_backward")(dy, x, w, *geometry, need_dx)
    for a, b in zip(got, want, strict=True):
        close(a, b, dtype)


# (height, width, padding): F(2x2, 3x3) with a cut column; F(4x4, 3x3) with cut rows and
# columns (11 = 4 + 4 + 3, 9 = 4 + 4 + 1) and with whole tiles only (8 x 8 outputs).
SHAPES = [(6, 5, (1, 1, 1, 1)), (11, 9, (1, 1, 1, 1)), (10, 10, (0, 0, 2, 0))]


def test_the_output_size_picks_the_transform_set(monkeypatch):
    tile = _winograd_reference.output_tile
    assert tile(1, 8, 8) == 4  # under the fixture: any 8x8 output
    assert tile(1 << 20, 5, 6) == 2  # cut tiles: as many products as F(2x2)
    # Each shape below is computed by the set its comment names.
    sides = [(h + p[0] + p[1] - 2, w + p[2] + p[3] - 2) for h, w, p in SHAPES]
    assert [tile(1, oh, ow) for oh, ow in sides] == [2, 4, 4]
    monkeypatch.setattr(_winograd_reference, "MIN_F4_TILES", DEFAULT_MIN_F4_TILES)
    assert tile(16, 8, 8) == 4  # 16 x 4 blocks of 4x4
    assert tile(15, 8, 8) == 2  # too few blocks for the filter transforms to pay
    assert tile(32, 4, 4) == 2 and tile(64, 4, 4) == 4  # ResNet-18's last stage


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize(("n", "seed"), [(1, 0), (2, 1), (5, 2), (7, 3)])
@pytest.mark.parametrize("shape", SHAPES, ids=["f2", "f4-cut", "f4-whole"])
def test_blocks_and_threads_give_the_same_result(monkeypatch, threads, n, seed, shape):
    # One image per block, the blocks dealt to `threads` parts: each part's weight gradient
    # is summed, each image's output written by one part only.
    monkeypatch.setattr(_winograd, "TILE_BYTES", 1)
    monkeypatch.setattr(_winograd, "MIN_TILES", 1)
    monkeypatch.setattr(_winograd, "thread_count", lambda: threads)
    h, wd, pad = shape
    x, w, dy, geometry = _operands(
        {"n": n, "c": 3, "o": 4, "h": h, "w": wd, "pad": pad}, np.float64, seed
    )
    close(
        cpu.conv2d_winograd_forward(x, w, *geometry),
        reference.conv2d_forward(x, w, *geometry),
        np.float64,
    )
    got = cpu.conv2d_winograd_backward(dy, x, w, *geometry, True)
    want = reference.conv2d_backward(dy, x, w, (1, 1), pad, (1, 1), True)
    for a, b in zip(got, want, strict=True):
        close(a, b, np.float64)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [2, 4])
def test_the_cpu_filter_gradient_product_is_the_body(threads, dtype, m):
    # The CPU table runs each set's `*_filter_grad` (CUDA's kernel) as one product;
    # 16 x 17 filters are 272 rows, which 2 threads split.
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    ts = _winograd.TRANSFORMS[m]
    du = arr((ts.k, 16, 17), dtype, 5)
    want = np.empty((16, 17, 3, 3), dtype)
    for o in range(16):
        for c in range(17):
            ts.filter_grad(du, want, False, o, c)
    got = np.empty_like(want)
    with threadpool_limits(limits=threads, user_api="blas"):
        _winograd._cpu_filters(ts.filter_grad, du, got, False, 16, 17)
    close(got, want, dtype)


@pytest.mark.parametrize("size", [(5, 4), (9, 10)], ids=["f2", "f4"])
def test_gradients_match_finite_differences(size):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, *size))
    w = rng.standard_normal((2, 3, 3, 3))
    geometry = ((1, 1), (1, 0, 2, 1), (1, 1))
    dy = rng.standard_normal(cpu.conv2d_winograd_forward(x, w, *geometry).shape)
    dx, dw = cpu.conv2d_winograd_backward(dy, x, w, *geometry, True)

    def loss(xv, wv):
        return float((cpu.conv2d_winograd_forward(xv, wv, *geometry) * dy).sum())

    eps = 1e-6
    for analytic, array, index in ((dx, x, (1, 2, 3, 0)), (dw, w, (1, 0, 2, 2))):
        for i in (index, (0,) * 4):
            plus, minus = array.copy(), array.copy()
            plus[i] += eps
            minus[i] -= eps
            args = ((plus, w), (minus, w)) if array is x else ((x, plus), (x, minus))
            numeric = (loss(*args[0]) - loss(*args[1])) / (2 * eps)
            assert analytic[i] == pytest.approx(numeric, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize(
    ("w_shape", "stride", "padding", "dilation", "message"),
    [
        ((2, 3, 5, 5), (1, 1), (1, 1, 1, 1), (1, 1), "3x3 convolution of stride 1"),
        ((2, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), "got x .* stride \\(2, 2\\)"),
        ((2, 3, 3, 3), (1, 1), (3, 0, 0, 0), (1, 1), "padding \\(3, 0, 0, 0\\)"),
        ((2, 3, 3, 3), (1, 1), (1, 1, 1, 1), (2, 2), "dilation \\(2, 2\\)"),
        ((2, 4, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), "w's channels matching x's"),
    ],
)
def test_refuses_what_it_does_not_compute(w_shape, stride, padding, dilation, message):
    x, w = np.zeros((1, 3, 5, 5), np.float32), np.zeros(w_shape, np.float32)
    with pytest.raises(ValueError, match=message):
        cpu.conv2d_winograd_forward(x, w, stride, padding, dilation)


def test_refuses_an_empty_output():
    x, w = np.zeros((1, 3, 1, 4), np.float32), np.zeros((2, 3, 3, 3), np.float32)
    with pytest.raises(ValueError, match="empty output"):
        cpu.conv2d_winograd_forward(x, w, (1, 1), (0, 0, 1, 1), (1, 1))


def test_parts_restore_blas_threads_and_raise_a_failing_part():
    blas_threads = _parallel.blas_threads
    before = blas_threads()
    seen = []

    def part(fail: bool) -> int:
        seen.append((blas_threads(), _parallel.thread_count()))
        if fail:
            raise RuntimeError("part failed")
        return len(seen)

    with pytest.raises(RuntimeError, match="part failed"):
        _parallel.run_parts([lambda: part(False), lambda: part(True)])
    assert blas_threads() == before
    # Inside a part BLAS runs on one thread and a nested call does not split again.
    assert seen == [(1, 1), (1, 1)]
    assert sorted(_parallel.run_parts([lambda: 1, lambda: 2])) == [1, 2]
