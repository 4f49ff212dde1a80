"""The CPU 1x1 convolution on NCHW (`_pointwise_conv`) and its GEMM helper (`_blas.product_into`)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from cadence.kernels import _blas, cpu_kernels, reference
from tests.kernels.test_cpu_matches_reference import TOL, arr, both, dtypes, seeds

cpu = cpu_kernels()
GEOMETRY = ((1, 1), (0, 0, 0, 0), (1, 1))


@given(
    n=st.integers(1, 5),
    c=st.integers(1, 9),
    o=st.integers(1, 9),
    h=st.integers(1, 5),
    w=st.integers(1, 5),
    need_dx=st.booleans(),
    threads=st.sampled_from([1, 2, 3]),
    dtype=dtypes,
    seed=seeds,
)
def test_pointwise_matches_the_reference_convolution(
    n, c, o, h, w, need_dx, threads, dtype, seed
):
    # Up to 3 threads: more parts than samples or filters leaves some parts empty.
    x, wt = arr((n, c, h, w), dtype, seed), arr((o, c, 1, 1), dtype, seed + 1)
    dy = arr((n, o, h, w), dtype, seed + 2)
    with threadpool_limits(limits=threads, user_api="blas"):
        both("conv2d_pointwise_forward", x, wt, *GEOMETRY, dtype=dtype)
        both("conv2d_pointwise_backward", dy, x, wt, *GEOMETRY, need_dx, dtype=dtype)


# (n, c, o, side): C > O, so dW.T's rows split, one GEMM, y and dx in blocks of 8 and a rest;
# O > C at 81 pixels: blocks of 6 samples and a last one of 1, y and dx batched; 529 pixels:
# a GEMM a sample.
@pytest.mark.parametrize(
    ("n", "c", "o", "side"), [(19, 12, 10, 4), (7, 10, 12, 9), (3, 4, 5, 23)]
)
def test_split_gradients_repeat_exactly(n, c, o, side):
    # float64, two parts: each row of the GEMM sums its samples in batch order.
    rng = np.random.default_rng(3)
    x, dy = rng.normal(size=(n, c, side, side)), rng.normal(size=(n, o, side, side))
    w = rng.normal(size=(o, c, 1, 1))
    with threadpool_limits(limits=2, user_api="blas"):
        y = cpu.conv2d_pointwise_forward(x, w, *GEOMETRY)
        first = cpu.conv2d_pointwise_backward(dy, x, w, *GEOMETRY, True)
        again = cpu.conv2d_pointwise_backward(dy, x, w, *GEOMETRY, True)
    want = reference.conv2d_backward(dy, x, w, *GEOMETRY, True)
    np.testing.assert_allclose(y, reference.conv2d_forward(x, w, *GEOMETRY), rtol=1e-10)
    for got, repeat, expected in zip(first, again, want, strict=True):
        assert got is not None and expected is not None
        np.testing.assert_array_equal(got, repeat)
        np.testing.assert_allclose(got, expected, rtol=1e-10)


@pytest.mark.parametrize(
    ("w_shape", "stride", "padding"),
    [
        ((4, 3, 3, 3), (1, 1), (0, 0, 0, 0)),  # not 1x1
        ((4, 3, 1, 1), (2, 2), (0, 0, 0, 0)),  # strided
        ((4, 3, 1, 1), (1, 1), (1, 1, 1, 1)),  # padded
        ((4, 2, 1, 1), (1, 1), (0, 0, 0, 0)),  # channels disagree
    ],
)
def test_other_convolutions_are_refused_by_name(w_shape, stride, padding):
    x = np.zeros((2, 3, 4, 4), np.float32)
    w = np.zeros(w_shape, np.float32)
    with pytest.raises(ValueError, match=r"1x1 convolution.*but got x \(2, 3, 4, 4\)"):
        cpu.conv2d_pointwise_forward(x, w, stride, padding, (1, 1))


def test_an_output_gradient_of_the_wrong_shape_is_refused():
    x, w = np.zeros((2, 3, 4, 4)), np.zeros((5, 3, 1, 1))
    with pytest.raises(
        ValueError, match=r"`dy` must have shape \(2, 5, 4, 4\), but got"
    ):
        cpu.conv2d_pointwise_backward(np.zeros((2, 5, 4, 3)), x, w, *GEOMETRY, True)


def test_an_empty_batch_gives_a_zero_weight_gradient():
    x, w = np.zeros((0, 3, 2, 2)), np.ones((4, 3, 1, 1))
    dx, dw = cpu.conv2d_pointwise_backward(
        np.zeros((0, 4, 2, 2)), x, w, *GEOMETRY, True
    )
    assert dx is not None and dx.shape == x.shape
    np.testing.assert_array_equal(dw, np.zeros(w.shape))


@pytest.mark.parametrize("blas", [True, False])
@pytest.mark.parametrize("transpose_b", [True, False])
@pytest.mark.parametrize("beta", [0.0, 1.0, 0.5])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_product_into_writes_a_gemm_into_its_target(
    blas, transpose_b, beta, dtype, monkeypatch
):
    if not blas:  # numpy's fallback: the same sum in two passes
        monkeypatch.setattr(_blas, "_GEMM", {})
    elif not _blas.has_accumulating_gemm():
        pytest.skip("numpy's BLAS was not found: only the fallback runs here")
    rng = np.random.default_rng(0)
    a = rng.normal(size=(5, 7)).astype(dtype)
    b = rng.normal(size=(6, 7) if transpose_b else (7, 6)).astype(dtype)
    c = rng.normal(size=(5, 6)).astype(dtype)
    want = a @ (b.T if transpose_b else b) + beta * c
    _blas.product_into(c, a, b, transpose_b=transpose_b, beta=beta)
    np.testing.assert_allclose(
        c, want, rtol=TOL[dtype]["rtol"], atol=TOL[dtype]["atol"]
    )
