import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
from cadence.common.initializer import Normal, One, Zero, initializer


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_dense_matches_numpy_and_validates():
    d = nn.Dense(4, 3, activation="relu")
    x = rand(5, 4)
    assert d.bias is not None
    expected = np.maximum(x @ d.weight.asnumpy().T + d.bias.asnumpy(), 0)
    np.testing.assert_allclose(
        d(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-6
    )
    assert (
        repr(nn.Dense(784, 512))
        == "Dense<input_channels=784, output_channels=512, has_bias=True>"
    )
    with pytest.raises(ValueError, match="in_channels"):
        nn.Dense(0, 3)
    with pytest.raises(TypeError, match="out_channels"):
        nn.Dense(3, 2.5)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="activation"):
        nn.Dense(3, 2, activation="nope")
    assert nn.Dense(3, 2, has_bias=False).bias is None


def test_dense_default_init_is_bounded_like_mindspore():
    ms.set_seed(3)
    d = nn.Dense(100, 50)
    assert np.abs(d.weight.asnumpy()).max() <= 1 / np.sqrt(100) + 1e-6
    assert d.bias is not None
    assert np.abs(d.bias.asnumpy()).max() <= 1 / np.sqrt(100) + 1e-6
    assert d.weight.dtype == ms.float32


def test_seed_makes_init_reproducible():
    ms.set_seed(5)
    a = nn.Dense(3, 3).weight.asnumpy().copy()
    ms.set_seed(5)
    assert np.array_equal(nn.Dense(3, 3).weight.asnumpy(), a)


@pytest.mark.parametrize("act", [nn.ReLU, nn.Sigmoid, nn.Tanh])
def test_sequential_fusion_gives_same_result_and_gradients(act):
    ms.set_seed(1)
    fused = nn.SequentialCell([nn.Dense(4, 3), act(), nn.Dense(3, 2)])
    plain = nn.SequentialCell([nn.Dense(4, 3), act(), nn.Dense(3, 2)])
    for (_, a), (_, b) in zip(
        fused.parameters_and_names(), plain.parameters_and_names(), strict=True
    ):
        b.set_data(a.asnumpy().copy())
    x = ms.Tensor(rand(6, 4))

    def run(net, fuse):
        if not fuse:
            object.__setattr__(net, "_plan", list(net.cells()))
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        loss = ms.value_and_grad(loss_net, None, net.trainable_params())(
            x, ms.Tensor(np.zeros((6, 2), np.float32))
        )
        return loss

    (la, ga), (lb, gb) = run(fused, True), run(plain, False)
    assert float(la) == pytest.approx(float(lb), rel=1e-6)
    for u, v in zip(ga, gb, strict=True):
        np.testing.assert_allclose(u.asnumpy(), v.asnumpy(), rtol=1e-5, atol=1e-6)


def test_flatten_and_activations():
    x = ms.Tensor(rand(2, 3, 4))
    assert nn.Flatten()(x).shape == (2, 12)
    np.testing.assert_allclose(nn.Softmax()(x).asnumpy().sum(-1), 1, rtol=1e-6)
    np.testing.assert_allclose(
        nn.Sigmoid()(x).asnumpy(), 1 / (1 + np.exp(-x.asnumpy())), rtol=1e-5
    )
    np.testing.assert_allclose(
        nn.Tanh()(x).asnumpy(), np.tanh(x.asnumpy()), rtol=1e-5, atol=1e-7
    )
    assert (nn.ReLU()(x).asnumpy() >= 0).all()


def test_dropout_train_and_eval():
    d = nn.Dropout(p=0.5)
    x = ms.Tensor(np.ones((100, 100), np.float32))
    assert np.array_equal(d(x).asnumpy(), x.asnumpy())
    d.set_train()
    ms.set_seed(0)
    y = d(x).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.4 < (y == 0).mean() < 0.6
    ms.set_seed(0)
    assert np.array_equal(d(x).asnumpy(), y)
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)
    with pytest.raises(ValueError, match="keep_prob"):
        nn.Dropout(keep_prob=0)
    with pytest.raises(ValueError, match="'p'"):
        nn.Dropout(p=1.0)


def test_conv2d_shapes_and_values():
    conv = nn.Conv2d(2, 3, 3, has_bias=True, bias_init="ones")
    x = ms.Tensor(rand(2, 2, 7, 7))
    assert conv(x).shape == (2, 3, 7, 7)
    valid = nn.Conv2d(2, 3, 3, pad_mode="valid", weight_init="ones")
    y = valid(x).asnumpy()
    assert y.shape == (2, 3, 5, 5)
    np.testing.assert_allclose(
        y[0, 0, 0, 0], x.asnumpy()[0, :, :3, :3].sum(), rtol=1e-5
    )
    assert nn.Conv2d(1, 1, 3, stride=2, pad_mode="pad", padding=1)(
        ms.Tensor(rand(1, 1, 8, 8))
    ).shape == (1, 1, 4, 4)
    with pytest.raises(ValueError, match="pad_mode"):
        nn.Conv2d(1, 1, 3, pad_mode="full")
    with pytest.raises(ValueError, match="channels"):
        conv(ms.Tensor(rand(1, 3, 5, 5)))


def test_pooling():
    x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    assert nn.MaxPool2d(2, 2)(x).asnumpy().ravel().tolist() == [5, 7, 13, 15]
    assert nn.AvgPool2d(2, 2)(x).asnumpy().ravel().tolist() == [2.5, 4.5, 10.5, 12.5]
    assert nn.MaxPool2d(3, 2, pad_mode="same")(x).shape == (1, 1, 2, 2)
    with pytest.raises(ValueError, match="pad_mode"):
        nn.AvgPool2d(2, 2, pad_mode="same")


def test_batch_norm_training_and_inference():
    bn = nn.BatchNorm2d(3, momentum=0.9)
    x = rand(4, 3, 5, 5) * 3 + 1
    bn.set_train()
    y = bn(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(axis=(0, 2, 3)), 1, atol=1e-3)
    np.testing.assert_allclose(
        bn.moving_mean.asnumpy(), 0.1 * x.mean(axis=(0, 2, 3)), rtol=1e-4
    )
    bn.set_train(False)
    y2 = bn(ms.Tensor(x)).asnumpy()
    expected = (x - bn.moving_mean.asnumpy()[:, None, None]) / np.sqrt(
        bn.moving_variance.asnumpy()[:, None, None] + 1e-5
    )
    np.testing.assert_allclose(y2, expected, rtol=1e-4, atol=1e-5)
    assert nn.BatchNorm1d(4)(ms.Tensor(rand(8, 4))).shape == (8, 4)
    with pytest.raises(ValueError, match="channels"):
        bn(ms.Tensor(rand(2, 4, 3, 3)))


def test_initializers():
    ms.set_seed(0)
    assert initializer(Zero(), (2,), ms.float32).asnumpy().tolist() == [0, 0]
    assert initializer(One(), 2, ms.float16).dtype == ms.float16
    assert initializer(0.5, (1,)).asnumpy().tolist() == [0.5]
    assert abs(float(initializer(Normal(0.02), (1000,)).asnumpy().std()) - 0.02) < 0.005
    for name in (
        "he_uniform",
        "xavier_uniform",
        "truncatedNormal",
        "HeNormal",
        "XavierNormal",
        "uniform",
    ):
        assert initializer(name, (4, 3)).shape == (4, 3)
    with pytest.raises(ValueError, match="unknown initializer"):
        initializer("bogus", (2,))
