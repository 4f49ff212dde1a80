"""The issue-23 optimizer kernels on CUDA against `reference`: weights and state updated on the device."""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
from cadence.kernels import cuda_kernels, reference as ref
from tests.helpers.tolerance import Tolerance

pytestmark = pytest.mark.cudasim
k = cuda_kernels()
TOL: dict[type, Tolerance] = {
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
    np.float64: {"rtol": 1e-9, "atol": 1e-11},
}


def arr(seed, dtype, positive=False):
    a = np.random.default_rng(seed).uniform(-2.0, 2.0, (4, 3)).astype(dtype)
    return np.abs(a) + 0.1 if positive else a


CASES = [
    ("adam_weight_decay_update", (False, True), (0.01, 0.9, 0.999, 1e-6, 0.01)),
    ("rmsprop_update", (False, True, False), (0.01, 0.9, 0.0, 1e-10, 0.0, False)),
    ("rmsprop_update", (False, True, False), (0.01, 0.9, 0.5, 1e-3, 0.01, True)),
    ("adagrad_update", (True,), (0.1, 0.01, True)),
    ("adagrad_update", (True,), (0.1, 0.0, False)),
    ("lamb_update", (False, True), (0.01, 0.9, 0.999, 1e-6, 0.01, 3)),
    (
        "adam_amsgrad_update",
        (False, True, True),
        (0.01, 0.9, 0.999, 1e-8, 0.9**2, 0.999**2, 0.01),
    ),
    ("adadelta_update", (True, True), (0.5, 0.9, 1e-6, 0.01)),
    ("proximal_adagrad_update", (True,), (0.1, 0.05, 0.1, 0.01)),
    ("proximal_adagrad_update", (True,), (0.1, 0.0, 0.1, 0.0)),
    ("rprop_update", (False, True), (0.5, 1.2, 1e-3, 5.0, 0.0, 0.1, 0.01)),
    ("rprop_update", (False, True), (0.5, 1.2, 1e-3, 5.0, 1.0, 0.1, 0.0)),
    ("asgd_update", (False,), (0.1, 0.01, 0.5, 0.01)),
    ("asgd_update", (False,), (0.1, 0.01, 1.0, 0.0)),
    ("ftrl_update", (True, False), (0.1, 0.5, 0.1, -0.5, 0.01)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("name", "positive", "args"), CASES)
def test_update_matches_reference(name, positive, args, dtype):
    param, grad = arr(1, dtype), arr(2, dtype)
    states = [arr(3 + i, dtype, pos) for i, pos in enumerate(positive)]
    if name == "rmsprop_update":
        states[0] *= 0.1
    dev = [k.to_device(a) for a in (param, *states)]
    getattr(k, name)(dev[0], grad, *dev[1:], *args)
    want = [a.copy() for a in (param, *states)]
    getattr(ref, name)(want[0], grad, *want[1:], *args)
    for d, w in zip(dev, want, strict=True):
        np.testing.assert_allclose(k.to_host(d), w, **TOL[dtype])


def test_state_must_live_on_the_device():
    p = k.to_device(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="`accum` is updated in place"):
        k.adagrad_update(
            p, np.ones(3, np.float32), np.ones(3, np.float32), 0.1, 0.0, True
        )


# --- through the optimizers and the composed losses, on the GPU target --------------------

RUNS = {
    "AdamWeightDecay + BCEWithLogitsLoss": (
        lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1),
        lambda: nn.BCEWithLogitsLoss(),
        "binary",
    ),
    "RMSProp centered + SmoothL1Loss": (
        lambda p: nn.RMSProp(p, 0.01, momentum=0.5, centered=True),
        lambda: nn.SmoothL1Loss(reduction="mean"),
        "binary",
    ),
    "Adagrad + CrossEntropyLoss smoothing": (
        lambda p: nn.Adagrad(p, learning_rate=0.1),
        lambda: nn.CrossEntropyLoss(label_smoothing=0.1),
        "index",
    ),
    "Lamb + KLDivLoss": (
        lambda p: nn.Lamb(p, 0.05, weight_decay=0.01),
        lambda: nn.KLDivLoss("batchmean"),
        "probability",
    ),
}


def _train(target, make_opt, make_loss, kind):
    ms.set_context(device_target=target)
    try:
        ms.set_seed(0)
        net = nn.Dense(4, 3)
        rng = np.random.default_rng(5)
        x = ms.Tensor(rng.normal(size=(6, 4)).astype(np.float32))
        y = {
            "binary": (rng.uniform(size=(6, 3)) > 0.5).astype(np.float32),
            "index": rng.integers(0, 3, 6).astype(np.int32),
            "probability": rng.dirichlet(np.ones(3), 6).astype(np.float32),
        }[kind]
        body = nn.SequentialCell(net, nn.LogSoftmax()) if kind == "probability" else net
        step = nn.TrainOneStepCell(
            nn.WithLossCell(body, make_loss()), make_opt(net.trainable_params())
        )
        losses = [float(step(x, ms.Tensor(y)).asnumpy()) for _ in range(2)]
        return losses, [p.asnumpy() for p in net.trainable_params()]
    finally:
        ms.set_context(device_target="CPU")


@pytest.mark.parametrize("run", sorted(RUNS))
def test_gpu_training_matches_cpu(run):
    cpu_losses, cpu_weights = _train("CPU", *RUNS[run])
    gpu_losses, gpu_weights = _train("GPU", *RUNS[run])
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4, atol=1e-5)
    for g, c in zip(gpu_weights, cpu_weights, strict=True):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)


def _loss_scaled(target):
    ms.set_context(device_target=target)
    try:
        ms.set_seed(0)
        net = nn.Dense(4, 3)
        step = nn.TrainOneStepWithLossScaleCell(
            nn.WithLossCell(net, nn.MSELoss()),
            nn.Momentum(net.trainable_params(), 0.1, 0.9),
            nn.DynamicLossScaleUpdateCell(64.0, 2.0, 1),
        )
        rng = np.random.default_rng(2)
        out = []
        for i in range(3):
            x = rng.normal(size=(5, 4)).astype(np.float32)
            x[0, 0] = np.inf if i == 1 else x[0, 0]
            _, overflow, scale = step(
                ms.Tensor(x), ms.Tensor(np.zeros((5, 3), np.float32))
            )
            out.append((bool(overflow.asnumpy()), float(scale.asnumpy())))
        return out, [p.asnumpy() for p in net.trainable_params()]
    finally:
        ms.set_context(device_target="CPU")


# The simulator runs each CUDA thread as a Python thread, which does not see the step's
# np.errstate: the inf arithmetic it expects warns there (a GPU has no such warnings).
@pytest.mark.filterwarnings(
    "ignore:.*(invalid value|overflow) encountered:RuntimeWarning"
)
def test_loss_scaled_step_on_gpu_matches_cpu():
    cpu_flags, cpu_weights = _loss_scaled("CPU")
    gpu_flags, gpu_weights = _loss_scaled("GPU")
    assert gpu_flags == cpu_flags == [(False, 128.0), (True, 64.0), (False, 128.0)]
    for g, c in zip(gpu_weights, cpu_weights, strict=True):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)
