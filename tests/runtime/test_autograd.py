"""Gradients of every op against central finite differences (float64, Hypothesis over shapes and values)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

import cadence as ms
from cadence import ops
from cadence.compute._autograd import backward, enable_grad, is_recording, no_grad
from cadence.ops import _nn as nn_ops
from tests.helpers.profiles import slow_examples
from tests.helpers.strategies import conv2d_cases, pool2d_cases

SETTINGS = slow_examples(12)


def numeric_grad(f, arrays, i, eps=1e-6):
    base = arrays[i]
    g = np.zeros_like(base)
    it = np.nditer(base, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = base[idx]
        base[idx] = old + eps
        up = f(*arrays)
        base[idx] = old - eps
        down = f(*arrays)
        base[idx] = old
        g[idx] = (up - down) / (2 * eps)
    return g


def check(op, *arrays, seed=0, rtol=1e-4, atol=1e-6):
    """Compare the tape's gradient of sum(op(*x) * w) with finite differences, for every input."""
    arrs = [np.array(a, dtype=np.float64) for a in arrays]
    out_shape = np.shape(op(*[ms.Tensor(a) for a in arrs]).asnumpy())
    w = np.random.default_rng(seed).standard_normal(out_shape)

    def scalar(*xs):
        return float((op(*[ms.Tensor(x) for x in xs]).asnumpy() * w).sum())

    positions = tuple(range(len(arrs)))
    _, grads = ms.value_and_grad(
        lambda *xs: ops.sum(op(*xs) * ms.Tensor(w)), positions
    )(*[ms.Tensor(a) for a in arrs])
    for i, g in enumerate(grads):
        np.testing.assert_allclose(
            g.asnumpy(),
            numeric_grad(scalar, arrs, i),
            rtol=rtol,
            atol=atol,
            err_msg=f"input {i}",
        )


small = st.integers(1, 4)
shapes = st.lists(small, min_size=1, max_size=3).map(tuple)


def values(shape, lo=-2.0, hi=2.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000))
def test_elementwise_binary(shape, seed):
    a, b = values(shape, seed=seed), values(shape, 0.5, 2.0, seed=seed + 1)
    check(ops.add, a, b)
    check(ops.sub, a, b)
    check(ops.mul, a, b)
    check(ops.div, a, b)
    check(ops.pow, b, a)
    check(lambda x, y: x * y + x / y - y, a, b)


@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000))
def test_broadcasting_binary(shape, seed):
    a = values(shape, seed=seed)
    b = values(shape[-1:], 0.5, 2.0, seed=seed + 1)
    check(ops.add, a, b)
    check(ops.mul, a, b)
    check(ops.div, a, b)
    check(lambda x: x * 3.0 - 1.0, a)


@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000))
def test_unary(shape, seed):
    x = values(shape, seed=seed)
    pos = values(shape, 0.5, 3.0, seed=seed)
    away = np.where(np.abs(x) < 0.1, 0.5, x)
    check(ops.exp, x)
    check(ops.log, pos)
    check(ops.sqrt, pos)
    check(ops.square, x)
    check(ops.neg, x)
    check(ops.abs, away)
    check(nn_ops.relu, away)
    check(nn_ops.sigmoid, x)
    check(nn_ops.tanh, x)
    check(
        lambda t: ops.clip(t, -1.0, 1.0), np.where(np.abs(np.abs(x) - 1) < 0.1, 0.5, x)
    )


@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000), keep=st.booleans())
def test_reductions(shape, seed, keep):
    x = values(shape, seed=seed)
    check(ops.sum, x)
    check(ops.mean, x)
    check(lambda t: ops.sum(t, axis=-1, keepdims=keep), x)
    check(lambda t: ops.mean(t, axis=0, keep_dims=keep), x)
    check(
        lambda t: ops.amax(t, axis=-1, keepdims=keep),
        x + np.arange(x.size).reshape(shape) * 1e-2,
    )


@SETTINGS
@given(n=small, k=small, m=small, b=st.integers(1, 3), seed=st.integers(0, 1000))
def test_matmul(n, k, m, b, seed):
    check(ops.matmul, values((n, k), seed=seed), values((k, m), seed=seed + 1))
    check(ops.matmul, values((b, n, k), seed=seed), values((k, m), seed=seed + 2))
    check(ops.matmul, values((k,), seed=seed), values((k, m), seed=seed + 3))
    check(ops.matmul, values((n, k), seed=seed), values((k,), seed=seed + 4))


@SETTINGS
@given(
    shape=st.lists(small, min_size=2, max_size=3).map(tuple), seed=st.integers(0, 1000)
)
def test_shapes(shape, seed):
    x = values(shape, seed=seed)
    check(lambda t: ops.reshape(t, (-1,)), x)
    check(ops.transpose, x)
    check(lambda t: ops.flatten(t), x)
    check(lambda t: ops.expand_dims(t, 1), x)
    check(lambda t: ops.squeeze(ops.expand_dims(t, 0)), x)
    check(lambda t, u: ops.concat([t, u], axis=0), x, values(shape, seed=seed + 1))
    check(lambda t, u: ops.stack([t, u], axis=1), x, values(shape, seed=seed + 2))
    check(lambda t: t[0], x)
    check(lambda t: t[np.array([0, 0, shape[0] - 1])], x)
    check(lambda t: ops.pad(t, [(1, 0)] * len(shape), value=0.0), x)
    check(lambda t: t.T, x)


@SETTINGS
@given(n=small, c=st.integers(2, 5), seed=st.integers(0, 1000))
def test_softmax_family_and_losses(n, c, seed):
    x = values((n, c), seed=seed)
    labels = np.random.default_rng(seed).integers(0, c, n)
    probs = np.random.default_rng(seed).dirichlet(np.ones(c), n)
    check(nn_ops.softmax, x)
    check(nn_ops.log_softmax, x)
    check(lambda t: nn_ops.softmax(t, axis=0), x)
    check(
        lambda t: nn_ops.softmax_cross_entropy(
            t, ms.Tensor(labels.astype(np.int32)), True
        ),
        x,
    )
    check(lambda t: nn_ops.softmax_cross_entropy(t, ms.Tensor(probs), False), x)


@SETTINGS
@given(
    n=small,
    k=small,
    m=small,
    act=st.sampled_from([None, "relu", "sigmoid", "tanh"]),
    seed=st.integers(0, 1000),
)
def test_dense(n, k, m, act, seed):
    x, w, b = (
        values((n, k), seed=seed),
        values((m, k), seed=seed + 1),
        values((m,), seed=seed + 2),
    )
    if act == "relu":  # keep pre-activations away from the kink
        z = x @ w.T + b
        b = b + np.where(np.abs(z).min(axis=0) < 0.1, 0.5, 0.0)
    check(lambda a, ww, bb: nn_ops.dense(a, ww, bb, act), x, w, b)


@SETTINGS
@given(
    case=conv2d_cases(channels=2, sizes=(4, 6), max_pad=2),
    planar=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_conv2d(case, planar, seed):
    x, w = values(case.input_shape, seed=seed), values(case.weight_shape, seed=seed + 1)
    # Both CPU layouts: the planar one (few output channels) and the general one.
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nn_ops, "PLANAR_MAX_CHANNELS", 16 if planar else 0)
        check(
            lambda a, ww: nn_ops.conv2d(a, ww, case.strides, case.pad, case.dilations),
            x,
            w,
        )


@SETTINGS
@given(
    n=st.integers(1, 3),
    c=st.integers(1, 3),
    o=st.integers(1, 3),
    hw=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    seed=st.integers(0, 1000),
)
def test_pointwise_conv2d(n, c, o, hw, seed):
    # 1x1, stride 1, unpadded: the CPU's per-sample GEMMs on NCHW (`_pointwise_conv`).
    x, w = values((n, c, *hw), seed=seed), values((o, c, 1, 1), seed=seed + 1)
    geometry = ((1, 1), (0, 0, 0, 0), (1, 1))
    assert nn_ops._conv_layout(nn_ops._k(), x.shape, w.shape, *geometry) == (
        "conv2d_pointwise"
    )
    check(lambda a, ww: nn_ops.conv2d(a, ww, *geometry), x, w)


@SETTINGS
@given(
    case=pool2d_cases(channels=2, sizes=(2, 6), max_stride=2), seed=st.integers(0, 1000)
)
def test_pooling(case, seed):
    k, s = case.k, case.stride
    # distinct values: a max with ties has no derivative
    x = np.random.default_rng(seed).permutation(np.prod(case.input_shape)) * 0.1
    x = x.reshape(case.input_shape)
    check(lambda a: nn_ops.max_pool2d(a, (k, k), (s, s)), x)
    check(lambda a: nn_ops.avg_pool2d(a, (k, k), (s, s)), x)


@SETTINGS
@given(
    n=st.integers(2, 4),
    c=st.integers(1, 3),
    m=st.integers(1, 3),
    activation=st.sampled_from([None, "relu", "relu6"]),
    residual=st.booleans(),  # a residual block's shortcut, added before the activation
    seed=st.integers(0, 1000),
)
def test_batch_norm(n, c, m, activation, residual, seed):
    x, g, b = (
        values((n, c, m), seed=seed),
        values((c,), 0.5, 2, seed=seed + 1),
        values((c,), seed=seed + 2),
    )
    shortcut = [values((n, c, m), seed=seed + 3)] if residual else []
    check(
        lambda a, gg, bb, *r: nn_ops.batch_norm(a, gg, bb, 1e-5, activation, *r)[0],
        x,
        g,
        b,
        *shortcut,
        rtol=1e-3,
        atol=1e-5,
    )


def test_dropout_gradient_uses_the_same_mask():
    ms.set_seed(3)
    x = ms.Tensor(np.ones((50, 4)))
    y, (g,) = ms.value_and_grad(lambda t: ops.sum(nn_ops.dropout(t, 0.5)), (0,))(x)
    assert float(y) == pytest.approx(float(g.asnumpy().sum()))


def test_cast_passes_gradient_back():
    x = ms.Tensor(np.ones(3, np.float32))
    g = ms.grad(lambda t: ops.sum(ops.cast(t, ms.float64) * 2.0))(x)
    assert g.dtype == ms.float32
    assert g.asnumpy().tolist() == [2.0, 2.0, 2.0]


def test_recording_is_scoped_and_off_by_default():
    assert not is_recording()
    w = ms.Parameter(np.ones(2, np.float32))
    assert (w * 2)._node is None
    with enable_grad():
        assert is_recording()
        with no_grad():
            assert (w * 2)._node is None
        assert (w * 2)._node is not None


def test_backward_accumulates_shared_use_and_zero_for_unused():
    w = ms.Parameter(np.array([1.0, 2.0]), name="w")
    unused = ms.Parameter(np.array([5.0]), name="u")
    with enable_grad():
        loss = ops.sum(w * w + w)
    gw, gu = backward(loss, [w, unused])
    assert gw.tolist() == [3.0, 5.0]
    assert gu.tolist() == [0.0]


@pytest.mark.parametrize("threads", [1, 2])
def test_gradients_summed_over_many_uses_stay_exact(monkeypatch, threads):
    # Five uses of w and of the intermediate a, some through an add whose backward hands
    # the same array to both of its inputs: the tape sums into arrays it made itself
    # only, split over the threads (rows of at least 4 elements here), never into one
    # a closure handed out (which would change the other input's gradient too).
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    from cadence.kernels import _parallel

    monkeypatch.setattr(_parallel, "MIN_ADD_ELEMENTS", 4)
    x = np.random.default_rng(3).standard_normal((6, 4))
    w = ms.Parameter(x, name="w")
    with threadpool_limits(limits=threads, user_api="blas"), enable_grad():
        a = w + w
        loss = ops.sum(a * w + a + w + a * a)
        (gw,) = backward(loss, [w])
    # d/dw of 2w^2 + 2w + w + 4w^2
    np.testing.assert_allclose(gw, 12.0 * x + 3.0, rtol=1e-12)


def test_the_cpu_target_sums_mixed_dtypes_as_numpy_does():
    from cadence.compute._targets import CPUTarget

    acc, grad = np.ones((2, 3), np.float32), np.full((2, 3), 0.5)
    got = CPUTarget().sum_gradients(acc, grad, True)
    assert got.dtype == np.float64 and got.tolist() == [[1.5] * 3] * 2
    assert acc.tolist() == [[1.0] * 3] * 2  # not written into: the sum needs float64


def test_value_and_grad_forms():
    w = ms.Parameter(np.array([2.0]), name="w")

    def f(x):
        return ops.sum(x * w), x

    x = ms.Tensor(np.array([3.0]))
    (value, _aux), (gx, gw) = ms.value_and_grad(f, 0, [w], has_aux=True)(x)
    assert float(value) == 6.0
    assert (float(gx.asnumpy()[0]), float(gw[0].asnumpy()[0])) == (2.0, 3.0)
    grads, _aux2 = ms.grad(f, None, w, has_aux=True)(x)
    assert float(grads[0].asnumpy()[0]) == 3.0
    with pytest.raises(ValueError, match="both be None"):
        ms.value_and_grad(f, None, None)
    with pytest.raises(TypeError, match="grad_position"):
        ms.value_and_grad(f, "0")


# --- the losses of issue 23 (composed ops: their gradients come from the ops') -----------------
_CLASSES = ms.Tensor(np.array([2, 0, -100, 1], np.int32))
_WEIGHT = ms.Tensor(np.array([0.5, 2.0, 1.0]))
LOSS_CASES = {
    "binary_cross_entropy_with_logits pos_weight (input, target)": (
        lambda x, t: ops.binary_cross_entropy_with_logits(
            x, t, _WEIGHT, _WEIGHT * 2, "none"
        ),
        2,
    ),
    "cross_entropy weight ignore_index smoothing": (
        lambda x: ops.cross_entropy(x, _CLASSES, _WEIGHT, label_smoothing=0.2),
        1,
    ),
    "cross_entropy probabilities (input, target)": (
        lambda x, t: ops.cross_entropy(x, ops.softmax(t, 1), reduction="sum"),
        2,
    ),
    "nll_loss none": (lambda x: ops.nll_loss(x, _CLASSES, reduction="none"), 1),
    "smooth_l1_loss (input, target)": (lambda x, t: ops.smooth_l1_loss(x, t, 0.7), 2),
    "kl_div batchmean (logits, labels)": (
        lambda x, t: ops.kl_div(x, ops.softmax(t, 1), "batchmean"),
        2,
    ),
}


@pytest.mark.parametrize("name", sorted(LOSS_CASES))
def test_loss_gradients(name):
    op, arity = LOSS_CASES[name]
    # Values kept away from SmoothL1's kink at |d| = beta, where finite differences straddle it.
    arrays = [values((4, 3), seed=s) for s in range(arity)]
    check(op, *arrays)
