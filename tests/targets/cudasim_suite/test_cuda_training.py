"""Training on the GPU target: the same results as on the CPU.

Weights stay on the device, events carry host snapshots, checkpoints read
device parameters.
"""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
from cadence.common.initializer import Normal
from cadence.kernels import cuda_kernels

pytestmark = pytest.mark.cudasim
k = cuda_kernels()


class TinyLeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 2, 3, pad_mode="valid", has_bias=True)
        self.conv2 = nn.Conv2d(2, 3, 3, pad_mode="valid")
        self.fc1 = nn.Dense(12, 5, weight_init=Normal(0.2))
        self.fc2 = nn.Dense(5, 3)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.relu(self.conv2(x))
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


def mlp():
    return nn.SequentialCell(
        nn.Flatten(), nn.Dense(12, 8), nn.ReLU(), nn.Dense(8, 3)
    ), (1, 3, 4)


def lenet():
    return TinyLeNet(), (1, 10, 10)


@pytest.fixture
def on_target():
    def use(name):
        ms.set_context(device_target=name)

    yield use
    ms.set_context(device_target="CPU")


def batch(shape, n=4, seed=1):
    rng = np.random.default_rng(seed)
    return ms.Tensor(rng.random((n, *shape), dtype=np.float32)), ms.Tensor(
        rng.integers(0, 3, n).astype(np.int32)
    )


def train_steps(make, optimizer, steps):
    ms.set_seed(0)
    net, shape = make()
    opt = optimizer(net.trainable_params())
    step = nn.TrainOneStepCell(
        nn.WithLossCell(
            net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        ),
        opt,
    )
    step.set_train()
    x, y = batch(shape)
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return net, opt, step, (x, y), losses


OPTIMIZERS = {
    "momentum": lambda p: nn.Momentum(p, 0.1, 0.9),
    "sgd": lambda p: nn.SGD(p, 0.1, momentum=0.5, weight_decay=0.01),
    "adam": lambda p: nn.Adam(p, 0.01),
}


@pytest.mark.parametrize("make", [mlp, lenet], ids=["mlp", "lenet"])
@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_gpu_steps_match_cpu(on_target, make, opt):
    on_target("CPU")
    cpu_net, *_, cpu_losses = train_steps(make, OPTIMIZERS[opt], 2)
    on_target("GPU")
    gpu_net, *_, gpu_losses = train_steps(make, OPTIMIZERS[opt], 2)
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4, atol=1e-5)
    for c, g in zip(
        cpu_net.trainable_params(), gpu_net.trainable_params(), strict=True
    ):
        np.testing.assert_allclose(
            g.asnumpy(), c.asnumpy(), rtol=1e-4, atol=1e-5, err_msg=g.name
        )


@pytest.mark.parametrize("make", [mlp, lenet], ids=["mlp", "lenet"])
def test_a_step_moves_only_the_batch_and_nothing_comes_back(on_target, make):
    on_target("GPU")
    net, opt, step, (x, y), _ = train_steps(make, OPTIMIZERS["sgd"], 1)
    for p in (*net.trainable_params(), *opt.accum, *opt.stat):
        assert isinstance(p._data, k.DeviceArray), p.name
    k.reset_statistics()
    loss = step(x, y)
    assert k.statistics() == {"to_device": 2}  # the inputs and the labels; no fallback
    assert isinstance(loss._data, k.DeviceArray) and loss.shape == ()
    float(loss.asnumpy())
    assert k.statistics() == {"to_device": 2, "to_host": 1}


def test_model_train_on_gpu_reports_host_scalars(on_target, tmp_path):
    on_target("GPU")
    ms.set_seed(0)
    net, shape = mlp()
    model = ms.Model(
        net,
        nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
        nn.Momentum(net.trainable_params(), 0.1, 0.9),
        metrics={"accuracy", "loss"},
    )
    rng = np.random.default_rng(3)
    data = [
        (
            rng.random((4, *shape), dtype=np.float32),
            rng.integers(0, 3, 4).astype(np.int32),
        )
        for _ in range(3)
    ]
    seen: list[ms.TrainStepEnd] = []
    model.bus.subscribe(ms.TrainStepEnd, seen.append)
    k.reset_statistics()
    model.train(2, data, callbacks=[ms.LossMonitor(1)])
    assert [e.step for e in seen] == [1, 2, 3, 4, 5, 6]
    assert all(type(e.loss) is float and np.isfinite(e.loss) for e in seen)
    stats = k.statistics()
    assert not any(key.startswith("fallback") for key in stats), stats
    assert all(isinstance(p._data, k.DeviceArray) for p in net.trainable_params())
    result = model.eval(data)
    assert set(result) == {"accuracy", "loss"} and 0 <= result["accuracy"] <= 1
    path = tmp_path / "net.ckpt"
    ms.save_checkpoint(net, str(path))
    loaded = ms.load_checkpoint(str(path))
    w = net.trainable_params()[0]
    saved = loaded[w.name]
    assert isinstance(saved, ms.Parameter)
    np.testing.assert_array_equal(saved.asnumpy(), w.asnumpy())
    w.set_data(ms.Tensor(np.zeros(w.shape, np.float32)))
    assert isinstance(w._data, k.DeviceArray) and not w.asnumpy().any()


def test_batch_norm_and_dropout_run_on_the_device(on_target):
    on_target("GPU")
    ms.set_seed(0)
    net = nn.SequentialCell(
        nn.Dense(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Dropout(p=0.25), nn.Dense(6, 2)
    )
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.05)
    )
    step.set_train()
    x, y = (
        ms.Tensor(np.ones((5, 4), np.float32)),
        ms.Tensor(np.zeros((5, 2), np.float32)),
    )
    first = float(step(x, y).asnumpy())
    for _ in range(3):
        last = float(step(x, y).asnumpy())
    assert np.isfinite(first) and last < first
    bn = net[1]
    assert isinstance(bn.moving_mean._data, k.DeviceArray)
