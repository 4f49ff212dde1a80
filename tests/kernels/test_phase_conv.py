"""The stride-phase 3x3 stride-2 convolution (`_phase_conv`) against the reference, over shapes, paddings and chunks."""

import functools

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cadence.kernels import _phase_conv, cpu_kernels, reference
from tests.kernels.test_cpu_matches_reference import TOL, dtypes, seeds

cpu = cpu_kernels()
STRIDE, DILATION = (2, 2), (1, 1)


def _arrays(rng, dtype, *shapes):
    return [rng.uniform(-3, 3, s).astype(dtype) for s in shapes]


@given(
    n=st.integers(1, 5),
    c=st.integers(1, 3),
    o=st.integers(1, 4),
    h=st.integers(3, 9),
    w=st.integers(3, 9),
    padding=st.tuples(*[st.integers(0, 2)] * 4),
    need_dx=st.booleans(),
    dtype=dtypes,
    seed=seeds,
)
def test_matches_reference(n, c, o, h, w, padding, need_dx, dtype, seed):
    # Odd and even sizes and uneven paddings: the phases' last row or column may lie
    # past the input (zero) or past the grid (read by no tap).
    rng = np.random.default_rng(seed)
    x, wt = _arrays(rng, dtype, (n, c, h, w), (o, c, 3, 3))
    geometry = (STRIDE, padding, DILATION)
    want = reference.conv2d_forward(x, wt, *geometry)
    dy = _arrays(rng, dtype, want.shape)[0]
    with pytest.MonkeyPatch.context() as patch:
        # Two images a product, so a batch of up to five runs through several chunks.
        patch.setattr(_phase_conv, "CHUNK_IMAGES", 2)
        got = cpu.conv2d_phase_forward(x, wt, *geometry)
        dx, dw = cpu.conv2d_phase_backward(dy, x, wt, *geometry, need_dx)
    np.testing.assert_allclose(got, want, **TOL[dtype])
    want_dx, want_dw = reference.conv2d_backward(dy, x, wt, *geometry, True)
    assert dw.dtype == dtype
    np.testing.assert_allclose(dw, want_dw, **TOL[dtype])
    if need_dx:
        assert want_dx is not None
        np.testing.assert_allclose(dx, want_dx, **TOL[dtype])
    else:
        assert dx is None


def test_backward_of_another_input_does_not_take_the_forwards_columns():
    # The forward keeps its columns for the backward of the same array only.
    rng = np.random.default_rng(0)
    x1, x2, wt = _arrays(rng, np.float64, (2, 3, 8, 8), (2, 3, 8, 8), (4, 3, 3, 3))
    geometry = (STRIDE, (1, 1, 1, 1), DILATION)
    cpu.conv2d_phase_forward(x1, wt, *geometry)
    dy = _arrays(rng, np.float64, (2, 4, 4, 4))[0]
    _, dw = cpu.conv2d_phase_backward(dy, x2, wt, *geometry, False)
    np.testing.assert_allclose(
        dw, reference.conv2d_backward(dy, x2, wt, *geometry, False)[1], rtol=1e-10
    )


@pytest.mark.parametrize(
    ("w_shape", "stride", "dilation", "dy_shape", "match"),
    [
        ((4, 3, 5, 5), STRIDE, DILATION, None, r"`w` must be 3x3 filters.*\(4, 3, 5, 5\)"),
        ((4, 3, 3, 3), (1, 1), DILATION, None, r"`w` .*stride \(1, 1\)"),
        ((4, 3, 3, 3), STRIDE, (2, 2), None, r"`w` .*dilation \(2, 2\)"),
        ((4, 3, 3, 3), STRIDE, DILATION, (2, 4, 3, 4), r"`dy` must have shape \(2, 4, 4, 4\), but got \(2, 4, 3, 4\)"),
    ],
)  # fmt: skip
def test_bad_arguments_are_named(w_shape, stride, dilation, dy_shape, match):
    x, wt = np.zeros((2, 3, 8, 8)), np.zeros(w_shape)
    geometry = (stride, (1, 1, 1, 1), dilation)
    if dy_shape is None:
        call = functools.partial(cpu.conv2d_phase_forward, x, wt, *geometry)
    else:
        call = functools.partial(
            cpu.conv2d_phase_backward, np.zeros(dy_shape), x, wt, *geometry, True
        )
    with pytest.raises(ValueError, match=match):
        call()
