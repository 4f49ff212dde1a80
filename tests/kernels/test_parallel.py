"""The CPU row loops split over threads (`_parallel`): the same results as `reference`, BLAS left as found."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits  # type: ignore[import-untyped]

from cadence.kernels import cpu_kernels, reference
from cadence.kernels._parallel import spans

cpu = cpu_kernels()


@pytest.mark.parametrize(
    ("rows", "threads", "min_rows", "want"),
    [
        (16, 2, 8, [(0, 8), (8, 16)]),
        (15, 2, 8, [(0, 15)]),
        (23, 3, 7, [(0, 7), (7, 15), (15, 23)]),
        (100, 1, 8, [(0, 100)]),
        (0, 2, 8, [(0, 0)]),
    ],
)
def test_row_blocks_cut_rows_into_at_most_threads_blocks_of_min_rows(
    rows, threads, min_rows, want
):
    assert spans(rows, threads, min_rows) == want


def _blas_threads():
    return {
        lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"
    }


def _softmax(rng):
    x = rng.normal(size=(2100, 9))
    dy = rng.normal(size=x.shape)
    y = cpu.softmax_forward(x)
    return (y, cpu.softmax_backward(dy, y)), (
        reference.softmax_forward(x),
        reference.softmax_backward(dy, reference.softmax_forward(x)),
    )


def _layer_norm(rng):
    x, dy = rng.normal(size=(2, 2500, 40))
    gamma, beta = rng.normal(size=(2, 40))
    y, stats = cpu.layer_norm_forward(x, gamma, beta, 1e-5)
    want = reference.layer_norm_forward(x, gamma, beta, 1e-5)
    return (
        (y, stats, *cpu.layer_norm_backward(dy, x, gamma, stats)),
        (*want, *reference.layer_norm_backward(dy, x, gamma, want[1])),
    )


def _group_norm(rng):
    x, dy = rng.normal(size=(2, 40, 6, 500))
    gamma, beta = rng.normal(size=(2, 6))
    y, stats = cpu.group_norm_forward(x, gamma, beta, 3, 1e-5)
    want = reference.group_norm_forward(x, gamma, beta, 3, 1e-5)
    return (
        (y, stats, *cpu.group_norm_backward(dy, x, gamma, stats, 3)),
        (*want, *reference.group_norm_backward(dy, x, gamma, want[1], 3)),
    )


def _conv(layout, x_shape, w_shape, stride):
    # One convolution forward and backward through a CPU kernel pair, beside the reference.
    def case(rng):
        x, w = rng.normal(size=x_shape), rng.normal(size=w_shape)
        geometry = ((stride, stride), (1, 1, 1, 1), (1, 1))
        y = getattr(cpu, f"{layout}_forward")(x, w, *geometry)
        dy = rng.normal(size=y.shape)
        back = getattr(cpu, f"{layout}_backward")(dy, x, w, *geometry, True)
        want = reference.conv2d_forward(x, w, *geometry)
        return (y, *back), (want, *reference.conv2d_backward(dy, x, w, *geometry, True))

    case.__name__ = layout
    return case


# im2col: 4 * 9 * 9 output rows, two blocks of the split product; planar: two blocks of images.
_IM2COL = _conv("conv2d", (4, 3, 18, 18), (5, 3, 3, 3), 2)
_PLANAR = _conv("conv2d_planar", (3, 2, 7, 7), (4, 2, 3, 3), 1)
_PHASE = _conv("conv2d_phase", (3, 2, 7, 7), (4, 2, 3, 3), 2)


@pytest.mark.parametrize(
    "case", [_softmax, _layer_norm, _group_norm, _IM2COL, _PLANAR, _PHASE]
)
@pytest.mark.parametrize("threads", [2, 3])
def test_split_rows_match_reference_repeat_exactly_and_restore_blas(case, threads):
    # float64 and enough rows for several blocks; two runs must agree to the bit
    # (the gamma/beta partial sums are added in row order, not in finishing order).
    with threadpool_limits(limits=threads, user_api="blas"):
        got = case(np.random.default_rng(threads))[0]
        again = case(np.random.default_rng(threads))[0]
        after = _blas_threads()
    want = case(np.random.default_rng(threads))[1]
    for g, a, w in zip(got, again, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11)
        np.testing.assert_array_equal(g, a)
    assert after == {threads}


def _softmax_in_child(x):
    return cpu.softmax_forward(x)


def test_a_forked_child_splits_rows_on_its_own_pool():
    # The parent's pool threads do not exist in a forked child: blocks submitted to the
    # parent's executor there would wait forever. The child must get a pool of its own.
    import multiprocessing

    x = np.random.default_rng(0).normal(size=(2100, 9))
    with threadpool_limits(limits=2, user_api="blas"):
        cpu.softmax_forward(x)  # the parent's pool exists from here
        context = multiprocessing.get_context("fork")
        with context.Pool(1) as pool:
            got = pool.apply_async(_softmax_in_child, (x,)).get(timeout=120)
    np.testing.assert_allclose(got, reference.softmax_forward(x), rtol=1e-9)
