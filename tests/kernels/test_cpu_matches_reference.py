"""Every CPU kernel against its `reference` twin, over Hypothesis-generated shapes and values."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cadence.kernels import KERNEL_NAMES, cpu_kernels, reference
from tests.helpers.strategies import conv2d_cases, pool2d_cases
from tests.helpers.tolerance import Tolerance

cpu = cpu_kernels()


# Per-dtype tolerance: float32 kernels accumulate in a different order than numpy.
TOL: dict[type, Tolerance] = {
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
    np.float64: {"rtol": 1e-10, "atol": 1e-12},
}
dtypes = st.sampled_from([np.float32, np.float64])
dim = st.integers(1, 6)
seeds = st.integers(0, 2**16)


def arr(shape, dtype, seed, lo=-3.0, hi=3.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def close(a, b, dtype):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            close(x, y, dtype)
    elif a is None:
        assert b is None
    else:
        assert a.shape == b.shape
        assert a.dtype == b.dtype or a.dtype.kind == b.dtype.kind == "i"
        np.testing.assert_allclose(a, b, **TOL[dtype])


def both(name, *args, dtype, in_place=False):
    """Compare the results and, `in_place`, the array arguments afterwards.

    (Only for kernels whose spec updates arguments: `bias_act_forward` may use z as
    scratch on one table and not on the other.)
    """
    args_cpu = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    args_ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    close(getattr(cpu, name)(*args_cpu), getattr(reference, name)(*args_ref), dtype)
    for a, b in zip(args_cpu, args_ref, strict=True):
        if in_place and isinstance(a, np.ndarray):
            close(a, b, dtype)


def test_every_kernel_exists_in_both_tables():
    for name in KERNEL_NAMES:
        assert callable(getattr(cpu, name)), name
        assert callable(getattr(reference, name)), name
    # The list and the spec agree: every public function reference.py defines is a kernel.
    defined = [
        n
        for n, v in vars(reference).items()
        if callable(v) and not n.startswith("_") and v.__module__ == reference.__name__
    ]
    assert sorted(KERNEL_NAMES) == sorted(defined)


@given(n=dim, m=dim, dtype=dtypes, seed=seeds)
def test_activations(n, m, dtype, seed):
    x = arr((n, m), dtype, seed)
    dy = arr((n, m), dtype, seed + 1)
    for act in ("relu", "sigmoid", "tanh"):
        both(f"{act}_forward", x, dtype=dtype)
        y = getattr(reference, f"{act}_forward")(x)
        both(f"{act}_backward", dy, y, dtype=dtype)


@given(
    n=dim,
    k=dim,
    m=dim,
    act=st.integers(0, 3),
    bias=st.booleans(),
    need_dx=st.booleans(),
    dtype=dtypes,
    seed=seeds,
)
def test_dense(n, k, m, act, bias, need_dx, dtype, seed):
    x, w, b = (
        arr((n, k), dtype, seed),
        arr((m, k), dtype, seed + 1),
        arr((m,), dtype, seed + 2) if bias else None,
    )
    both("dense_forward", x, w, b, act, dtype=dtype)
    y = reference.dense_forward(x, w, b, act)
    dy = arr((n, m), dtype, seed + 3)
    both("dense_backward", dy, x, w, y, act, need_dx, dtype=dtype)
    # Into given arrays (the data-parallel window's row): those very arrays, the same bits.
    dw, db = np.full((m, k), np.nan, dtype), np.full(m, np.nan, dtype)
    written = cpu.dense_backward_into(dy, x, w, y, act, need_dx, dw, db)
    assert written[1] is dw and written[2] is db
    fresh_result = cpu.dense_backward(dy, x, w, y, act, need_dx)
    for got, fresh in zip(written, fresh_result, strict=True):
        assert (got is None and fresh is None) or np.array_equal(got, fresh)
    # With weight decay and without: w and b are compared after their in-place step.
    for decay in (0.0, 0.05):
        both(
            "dense_backward_sgd",
            *(dy, x, w, b, y, act, need_dx, 0.1, decay),
            dtype=dtype,
            in_place=True,
        )
    both("bias_act_forward", x @ w.T, b, act, dtype=dtype)
    both("bias_act_backward", dy, y, act, dtype=dtype)


@given(n=dim, c=st.integers(1, 12), dtype=dtypes, seed=seeds)
def test_softmax_and_losses(n, c, dtype, seed):
    x = arr((n, c), dtype, seed, -20, 20)
    dy = arr((n, c), dtype, seed + 1)
    both("softmax_forward", x, dtype=dtype)
    both("log_softmax_forward", x, dtype=dtype)
    both("softmax_backward", dy, reference.softmax_forward(x), dtype=dtype)
    both("log_softmax_backward", dy, reference.log_softmax_forward(x), dtype=dtype)
    labels = np.random.default_rng(seed).integers(0, c, n).astype(np.int32)
    both("softmax_cross_entropy_sparse", x, labels, dtype=dtype)
    probs = np.random.default_rng(seed).dirichlet(np.ones(c), n).astype(dtype)
    both("softmax_cross_entropy_dense", x, probs, dtype=dtype)


def test_sparse_labels_out_of_range_raise():
    with pytest.raises(IndexError):
        cpu.softmax_cross_entropy_sparse(np.zeros((2, 3), np.float32), np.array([0, 3]))


@given(
    case=conv2d_cases(channels=3, sizes=(3, 7), max_pad=2),
    need_dx=st.booleans(),
    dtype=dtypes,
    seed=seeds,
)
def test_conv2d(case, need_dx, dtype, seed):
    geometry = (case.strides, case.pad, case.dilations)
    x, wt = arr(case.input_shape, dtype, seed), arr(case.weight_shape, dtype, seed + 1)
    y = reference.conv2d_forward(x, wt, *geometry)
    dy = arr(y.shape, dtype, seed + 2)
    for kernel in ("conv2d", "conv2d_planar"):  # the general and the planar layout
        both(f"{kernel}_forward", x, wt, *geometry, dtype=dtype)
        both(f"{kernel}_backward", dy, x, wt, *geometry, need_dx, dtype=dtype)
    both("conv2d_backward_input", dy, wt, x.shape, *geometry, dtype=dtype)


@given(
    case=pool2d_cases(channels=3, sizes=(1, 7), max_stride=3), dtype=dtypes, seed=seeds
)
def test_pooling(case, dtype, seed):
    k, s = case.k, case.stride
    x = arr(case.input_shape, dtype, seed)
    both("max_pool2d_forward", x, k, k, s, s, dtype=dtype)
    y, idx = reference.max_pool2d_forward(x, k, k, s, s)
    dy = arr(y.shape, dtype, seed + 1)
    both("max_pool2d_backward", dy, idx, x.shape, dtype=dtype)
    both("avg_pool2d_forward", x, k, k, s, s, dtype=dtype)
    both("avg_pool2d_backward", dy, x.shape, k, k, s, s, dtype=dtype)


# (low, high) of the fused clip: none, ReLU's, ReLU6's, and one that clips most values.
BN_CLIPS = [(-np.inf, np.inf), (0.0, np.inf), (0.0, 6.0), (-0.25, 0.25)]


@given(
    n=st.integers(2, 5),
    c=st.integers(1, 9),
    m=st.integers(1, 6),
    clip=st.sampled_from(BN_CLIPS),
    offset=st.sampled_from(
        [0.0, 100.0]
    ),  # a large mean: the one-pass variance stays exact
    residual=st.booleans(),  # a residual block's shortcut added before the clip
    dtype=dtypes,
    seed=seeds,
)
def test_batch_norm(n, c, m, clip, offset, residual, dtype, seed):
    x, g, b = (
        arr((n, c, m), dtype, seed) + dtype(offset),
        arr((c,), dtype, seed + 1),
        arr((c,), dtype, seed + 2),
    )
    res = arr((n, c, m), dtype, seed + 4) if residual else None
    both("batch_norm_forward", x, g, b, 1e-5, *clip, res, dtype=dtype)
    low, high = clip
    y, mean, var = reference.batch_norm_forward(x, g, b, 1e-5, low, high, res)
    dy = arr((n, c, m), dtype, seed + 3)
    tol = TOL[dtype]
    got: tuple[np.ndarray, ...]
    want: tuple[np.ndarray, ...]
    if residual:
        got = cpu.batch_norm_residual_backward(dy, x, y, g, mean, var, 1e-5, *clip)
        want = reference.batch_norm_residual_backward(
            dy, x, y, g, mean, var, 1e-5, *clip
        )
    else:
        got = cpu.batch_norm_backward(dy, x, g, mean, var, 1e-5, b, *clip)
        want = reference.batch_norm_backward(dy, x, g, mean, var, 1e-5, b, *clip)
    for a, e in zip(
        got, want, strict=True
    ):  # dx cancels large terms: compare against the gradient's scale
        np.testing.assert_allclose(
            a,
            e,
            rtol=tol["rtol"] * 10,
            atol=tol["atol"] * 10 * max(1.0, float(np.abs(e).max())),
        )


def run_update(
    name,
    dtype,
    seed,
    shape,
    extra,
    state_count,
    first_state_ones=False,
    last_non_negative=False,
):
    rng = np.random.default_rng(seed)
    base = [rng.standard_normal(shape).astype(dtype) for _ in range(2 + state_count)]
    if first_state_ones:
        base[3] = np.ones(shape, dtype)
    if last_non_negative:
        base[-1] = np.abs(base[-1])
    a = [x.copy() for x in base]
    b = [x.copy() for x in base]
    for step in range(3):
        getattr(cpu, name)(*a, *extra(step))
        getattr(reference, name)(*b, *extra(step))
    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(x, y, **TOL[dtype])


@given(
    shape=st.lists(dim, min_size=1, max_size=3).map(tuple),
    mom=st.sampled_from([0.0, 0.9]),
    damp=st.sampled_from([0.0, 0.1]),
    wd=st.sampled_from([0.0, 0.01]),
    dtype=dtypes,
    seed=seeds,
)
def test_optimizer_updates(shape, mom, damp, wd, dtype, seed):
    nesterov = mom > 0 and damp == 0
    run_update(
        "sgd_update",
        dtype,
        seed,
        shape,
        lambda t: (0.1, mom, damp, wd, nesterov),
        2,
        first_state_ones=True,
    )
    run_update(
        "momentum_update", dtype, seed, shape, lambda t: (0.1, mom, wd, nesterov), 1
    )
    run_update(
        "adam_update",
        dtype,
        seed,
        shape,
        lambda t: (
            0.01,
            0.9,
            0.999,
            1e-8,
            0.9 ** (t + 1),
            0.999 ** (t + 1),
            wd,
            nesterov,
        ),
        2,
        last_non_negative=True,
    )


def test_kernel_checks_name_arguments():
    with pytest.raises(TypeError, match="`x`"):
        cpu.relu_forward(np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="`x` must have 2 dimensions"):
        cpu.softmax_forward(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="C-contiguous"):
        cpu.dense_forward(
            np.zeros((4, 3), np.float32)[::2], np.zeros((2, 3), np.float32), None, 0
        )
