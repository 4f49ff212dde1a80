"""InstanceNorm2d against its formula (MindSpore 2.10 has no CPU kernel for it), finite differences, moving statistics."""

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import cadence as ms
from cadence import Tensor, nn
from tests.helpers.gradients import numeric_gradient

images = hnp.arrays(
    np.float64,
    st.tuples(
        st.integers(1, 2), st.integers(1, 3), st.integers(1, 3), st.integers(2, 4)
    ),
    elements=st.floats(-3, 3),
)


@given(x=images, scale=st.floats(0.5, 2.0), shift=st.floats(-1, 1))
def test_each_sample_channel_is_normalized_over_its_pixels(x, scale, shift):
    cell = nn.InstanceNorm2d(x.shape[1], eps=1e-3, gamma_init=scale, beta_init=shift)
    mean = x.mean(axis=(2, 3), keepdims=True)
    want = (x - mean) / np.sqrt(
        x.var(axis=(2, 3), keepdims=True) + 1e-3
    ) * scale + shift
    np.testing.assert_allclose(
        cell(Tensor(x.astype(np.float32))).asnumpy(), want, rtol=1e-4, atol=1e-4
    )


def test_gradients_match_finite_differences():
    x = np.random.default_rng(3).normal(size=(2, 2, 2, 3))
    weights = Tensor(np.random.default_rng(4).normal(size=x.shape))
    cell = nn.InstanceNorm2d(2, gamma_init=Tensor(np.array([1.5, -0.5], np.float32)))

    def loss(t):
        return (cell(t) * weights).sum()

    np.testing.assert_allclose(
        ms.grad(loss)(Tensor(x)).asnumpy(),
        numeric_gradient(loss, x),
        rtol=1e-5,
        atol=1e-6,
    )
    params = ms.grad(loss, grad_position=None, weights=cell.trainable_params())(
        Tensor(x)
    )
    assert [p.shape for p in params] == [(2,), (2,)]


def test_moving_statistics_follow_training_batches_only():
    x = np.random.default_rng(5).normal(2.0, 3.0, size=(4, 2, 3, 3))
    cell = nn.InstanceNorm2d(2, momentum=0.25)
    cell.set_train(False)
    cell(Tensor(x))
    np.testing.assert_array_equal(cell.moving_mean.asnumpy(), [0, 0])
    cell.set_train(True)
    cell(Tensor(x))
    batch_mean = x.mean(axis=(2, 3)).mean(axis=0)
    batch_var = x.var(axis=(2, 3), ddof=1).mean(axis=0)
    np.testing.assert_allclose(cell.moving_mean.asnumpy(), 0.25 * batch_mean, rtol=1e-5)
    np.testing.assert_allclose(
        cell.moving_variance.asnumpy(), 0.75 + 0.25 * batch_var, rtol=1e-5
    )
    assert [p.name for p in cell.get_parameters()] == [
        "gamma",
        "beta",
        "mean",
        "variance",
    ]
    assert [p.name for p in cell.trainable_params()] == ["gamma", "beta"]


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (lambda: nn.InstanceNorm2d(0), ValueError, "'num_features' must be"),
        (
            lambda: nn.InstanceNorm2d(2, momentum=1.5),
            ValueError,
            "'momentum' must be in",
        ),
        (lambda: nn.InstanceNorm2d(2, eps=0.0), ValueError, "'eps' must be in"),
        (
            lambda: nn.InstanceNorm2d(3)(Tensor(np.ones((1, 2, 2, 2)))),
            ValueError,
            r"\(N, 3, H, W\), but got shape \(1, 2, 2, 2\)",
        ),
        (
            lambda: nn.InstanceNorm2d(2)(Tensor(np.ones((2, 2, 2)))),
            ValueError,
            "but got shape",
        ),
    ],
    ids=["num_features", "momentum", "eps", "channels", "rank"],
)
def test_bad_arguments_are_named(make, error, words):
    with pytest.raises(error, match=words):
        make()
