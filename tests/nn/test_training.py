"""The tutorial MLP and LeNet-5 learn a small synthetic problem."""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
from cadence.testing import lenet5, mnist_mlp


def synthetic(n, shape, classes=10, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, n).astype(np.int32)
    protos = rng.standard_normal((classes, *shape)).astype(np.float32)
    x = protos[labels] + 0.5 * rng.standard_normal((n, *shape)).astype(np.float32)
    return ms.Tensor(x), ms.Tensor(labels)


def train(net, x, y, steps, lr):
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss_fn),
        nn.SGD(net.trainable_params(), learning_rate=lr, momentum=0.9),
    )
    step.set_train()
    losses = [float(step(x, y)) for _ in range(steps)]
    return losses


def test_mlp_loss_falls():
    ms.set_seed(0)
    net = mnist_mlp()
    x, y = synthetic(64, (1, 28, 28))
    losses = train(net, x, y, 15, 0.01)
    assert losses[0] > 1.5
    assert losses[-1] < 0.3 * losses[0]
    acc = nn.Accuracy()
    net.set_train(False)
    acc.update(net(x), y)
    assert acc.eval() > 0.9


def test_lenet_loss_falls_and_names_match_mindspore():
    ms.set_seed(0)
    net = lenet5()
    assert [n for n, _ in net.parameters_and_names()] == [
        "conv1.weight", "conv2.weight", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias",
    ]  # fmt: skip
    x, y = synthetic(32, (1, 32, 32), seed=1)
    losses = train(net, x, y, 60, 0.05)
    assert losses[-1] < 0.6 * losses[0]


def test_dropout_and_batchnorm_network_trains():
    ms.set_seed(2)
    net = nn.SequentialCell(
        nn.Dense(20, 32),
        nn.BatchNorm1d(32),
        nn.ReLU(),
        nn.Dropout(p=0.1),
        nn.Dense(32, 3),
    )
    rng = np.random.default_rng(0)
    x = rng.standard_normal((48, 20)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32) + (x[:, 1] > 0).astype(np.int32)
    loss_fn = nn.CrossEntropyLoss()
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, loss_fn),
        nn.Adam(net.trainable_params(), learning_rate=0.01),
    )
    step.set_train()
    losses = [float(step(ms.Tensor(x), ms.Tensor(y))) for _ in range(40)]
    assert losses[-1] < 0.5 * losses[0]
    assert step(ms.Tensor(x), ms.Tensor(y)).shape == ()


def test_lenet5_checks_its_arguments():
    with pytest.raises(ValueError, match="'num_classes' must be an int > 0, but got 0"):
        lenet5(num_classes=0)
    with pytest.raises(TypeError, match="'channels' must be an int > 0, but got '3'"):
        lenet5(channels="3")  # type: ignore[arg-type]
    three = lenet5(num_classes=3, channels=3)
    assert three(ms.Tensor(np.zeros((2, 3, 32, 32), np.float32))).shape == (2, 3)
