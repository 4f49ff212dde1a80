"""Every CUDA kernel against its `reference` twin (float32 and float64), on small shapes."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cadence.kernels import KERNEL_NAMES, cuda_kernels, reference as ref
from tests.helpers.tolerance import Tolerance

pytestmark = pytest.mark.cudasim
k = cuda_kernels()
# Stated tolerance of the CUDA kernels against the reference. float32 sums run in a
# different order (and partly in float64) on the device; float64 differs only by rounding.
TOL: dict[type, Tolerance] = {
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
    np.float64: {"rtol": 1e-9, "atol": 1e-11},
}
DTYPES = [np.float32, np.float64]


def arr(shape, dtype, seed, lo=-2.0, hi=2.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def host(x):
    if isinstance(x, tuple):
        return tuple(host(i) for i in x)
    return None if x is None else k.to_host(x)


def close(got, want, dtype):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            close(g, w, dtype)
    elif want is None:
        assert got is None
    else:
        got = host(got)
        assert got.shape == want.shape
        assert got.dtype == want.dtype or got.dtype.kind == want.dtype.kind == "i"
        np.testing.assert_allclose(got, want, **TOL[dtype])


def both(name, *args, dtype):
    got = getattr(k, name)(
        *[a.copy() if isinstance(a, np.ndarray) else a for a in args]
    )
    close(got, getattr(ref, name)(*args), dtype)


def test_every_kernel_exists():
    missing = [n for n in KERNEL_NAMES if not callable(getattr(k, n, None))]
    assert missing == []


@pytest.mark.parametrize("dtype", DTYPES)
def test_activations_and_softmax(dtype):
    x, dy = arr((5, 7), dtype, 1), arr((5, 7), dtype, 2)
    for name in ("relu", "sigmoid", "tanh", "softmax", "log_softmax"):
        both(f"{name}_forward", x, dtype=dtype)
        both(f"{name}_backward", dy, getattr(ref, f"{name}_forward")(x), dtype=dtype)


@given(
    n=st.integers(1, 9),
    kk=st.integers(1, 9),
    m=st.integers(1, 9),
    act=st.integers(0, 3),
    bias=st.booleans(),
    need_dx=st.booleans(),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 999),
)
def test_dense(n, kk, m, act, bias, need_dx, dtype, seed):
    x, w = arr((n, kk), dtype, seed), arr((m, kk), dtype, seed + 1)
    b = arr((m,), dtype, seed + 2) if bias else None
    both("dense_forward", x, w, b, act, dtype=dtype)
    y = ref.dense_forward(x, w, b, act)
    dy = arr(y.shape, dtype, seed + 3)
    both("dense_backward", dy, x, w, y, act, need_dx, dtype=dtype)
    # The folded SGD step: w and b live on the device and are compared after it.
    w_dev = k.to_device(w)
    b_dev = None if b is None else k.to_device(b)
    got = k.dense_backward_sgd(dy, x, w_dev, b_dev, y, act, need_dx, 0.1, 0.05)
    b_want = None if b is None else b.copy()
    w_want = w.copy()
    want = ref.dense_backward_sgd(dy, x, w_want, b_want, y, act, need_dx, 0.1, 0.05)
    close((got, w_dev, b_dev), (want, w_want, b_want), dtype)
    both("bias_act_backward", dy, y, act, dtype=dtype)
    both(
        "bias_act_forward",
        x.copy(),
        None if b is None else arr((kk,), dtype, seed),
        act,
        dtype=dtype,
    )


@pytest.mark.parametrize("tiled", [True, False])
@pytest.mark.parametrize(
    ("ta", "tb"), [(False, False), (True, False), (False, True), (True, True)]
)
@pytest.mark.parametrize("host_views", [False, True])
def test_matmul_kernels(tiled, ta, tb, host_views):
    # 9 x 6 @ 6 x 7: several tiles per axis, none of them full.
    a, b = arr((9, 6), np.float64, 1), arr((6, 7), np.float64, 2)
    if host_views:  # transposed views go over as the arrays they view, flags flipped;
        # a strided one (every other column) as a contiguous copy
        strided = np.repeat(b, 2, axis=1)[:, ::2]
        a_in, b_in = (a.T if ta else np.asfortranarray(a)), (b.T if tb else strided)
    else:
        a_in, b_in = (a.T.copy() if ta else a), (b.T.copy() if tb else b)
    got = k.matmul(a_in, b_in, ta=ta, tb=tb, tiled=tiled)
    close(got, a @ b, np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_cross_entropy(dtype):
    x = arr((6, 4), dtype, 3)
    labels = np.array([0, 3, 1, 2, 3, 0], np.int32)
    both("softmax_cross_entropy_sparse", x, labels, dtype=dtype)
    both(
        "softmax_cross_entropy_dense",
        x,
        ref.softmax_forward(arr((6, 4), dtype, 4)),
        dtype=dtype,
    )


def test_sparse_labels_out_of_range():
    x = arr((2, 3), np.float32, 0)
    with pytest.raises(IndexError, match="outside"):
        k.softmax_cross_entropy_sparse(x, np.array([0, 3]))
    loss, grad = k.softmax_cross_entropy_sparse(x, k.to_device(np.array([0, 3])))
    assert np.isnan(host(loss)[1]) and np.isnan(host(grad)[1]).all()
    assert np.isfinite(host(loss)[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("stride", "padding", "dilation"),
    [((1, 1), (0, 0, 0, 0), (1, 1)), ((2, 1), (1, 0, 2, 1), (1, 2))],
)
def test_conv2d(dtype, stride, padding, dilation):
    x, w = arr((2, 3, 6, 5), dtype, 5), arr((4, 3, 3, 2), dtype, 6)
    both("conv2d_forward", x, w, stride, padding, dilation, dtype=dtype)
    dy = arr(ref.conv2d_forward(x, w, stride, padding, dilation).shape, dtype, 7)
    for need_dx in (True, False):
        both(
            "conv2d_backward", dy, x, w, stride, padding, dilation, need_dx, dtype=dtype
        )
    both(
        "conv2d_backward_input", dy, w, x.shape, stride, padding, dilation, dtype=dtype
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_pooling(dtype):
    x = arr((2, 2, 5, 6), dtype, 8)
    both("max_pool2d_forward", x, 2, 2, 2, 1, dtype=dtype)
    y, idx = ref.max_pool2d_forward(x, 2, 2, 2, 1)
    both("max_pool2d_backward", arr(y.shape, dtype, 9), idx, x.shape, dtype=dtype)
    both("avg_pool2d_forward", x, 2, 3, 1, 2, dtype=dtype)
    dy = arr(ref.avg_pool2d_forward(x, 2, 3, 1, 2).shape, dtype, 10)
    both("avg_pool2d_backward", dy, x.shape, 2, 3, 1, 2, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("clip", [(-np.inf, np.inf), (0.0, 6.0), (-0.25, 0.25)])
def test_batch_norm(dtype, clip):
    x, gamma, beta = (
        arr((4, 3, 5), dtype, 11),
        arr((3,), dtype, 12),
        arr((3,), dtype, 13),
    )
    both("batch_norm_forward", x, gamma, beta, 1e-5, *clip, dtype=dtype)
    _, mean, var = ref.batch_norm_forward(x, gamma, beta, 1e-5)
    dy = arr(x.shape, dtype, 14)
    both("batch_norm_backward", dy, x, gamma, mean, var, 1e-5, beta, *clip, dtype=dtype)


def test_batch_norm_with_a_residual():
    # A residual block's relu(bn(x) + shortcut): the same bodies with the residual switched on.
    dtype = np.float32
    x, res, gamma, beta, dy = (
        arr(shape, dtype, seed)
        for shape, seed in (
            ((2, 3, 4), 15),
            ((2, 3, 4), 16),
            ((3,), 17),
            ((3,), 18),
            ((2, 3, 4), 19),
        )
    )
    both("batch_norm_forward", x, gamma, beta, 1e-5, 0.0, np.inf, res, dtype=dtype)
    y, mean, var = ref.batch_norm_forward(x, gamma, beta, 1e-5, 0.0, np.inf, res)
    assert (y == 0).any() and (y > 0).any()  # the clip's mask both passes and stops
    both(
        "batch_norm_residual_backward",
        dy,
        x,
        y,
        gamma,
        mean,
        var,
        1e-5,
        0.0,
        np.inf,
        dtype=dtype,
    )


def _update(name, dtype, *state, args):
    p, g = arr((4, 3), dtype, 20), arr((4, 3), dtype, 21)
    dev = [k.to_device(a) for a in (p, *state)]
    getattr(k, name)(dev[0], g, *dev[1:], *args)
    want = [a.copy() for a in (p, *state)]
    getattr(ref, name)(want[0], g, *want[1:], *args)
    for d, w in zip(dev, want, strict=True):
        close(d, w, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("momentum", "nesterov", "wd"),
    [(0.0, False, 0.0), (0.9, False, 0.01), (0.9, True, 0.0)],
)
def test_optimizer_updates(dtype, momentum, nesterov, wd):
    accum, stat = arr((4, 3), dtype, 22), np.ones((4, 3), dtype)
    _update("sgd_update", dtype, accum, stat, args=(0.1, momentum, 0.0, wd, nesterov))
    _update(
        "momentum_update", dtype, arr((4, 3), dtype, 23), args=(0.1, 0.9, wd, nesterov)
    )
    m, v = arr((4, 3), dtype, 24), np.abs(arr((4, 3), dtype, 25))
    _update(
        "adam_update",
        dtype,
        m,
        v,
        args=(0.01, 0.9, 0.999, 1e-8, 0.9**3, 0.999**3, wd, nesterov),
    )


def test_state_must_live_on_the_device():
    p = k.to_device(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="`accum` is updated in place"):
        k.sgd_update(
            p,
            np.ones(3, np.float32),
            np.zeros(3, np.float32),
            p,
            0.1,
            0.0,
            0.0,
            0.0,
            False,
        )


def test_argument_checks_name_the_argument():
    with pytest.raises(TypeError, match="`x` must be float32 or float64"):
        k.relu_forward(np.arange(3))
    with pytest.raises(ValueError, match="`x` must have 2 dimensions"):
        k.softmax_forward(np.zeros(3, np.float32))
