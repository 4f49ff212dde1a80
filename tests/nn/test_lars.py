"""LARS against its rule (MindSpore 2.10 has no CPU kernel for LARSUpdate, so nothing to record).

g ← c (g + wd w) for the parameters the filter selects, c = coefficient ‖w‖ / (‖g‖ + wd ‖w‖ + eps),
clipped to [0, 1] after dividing by the learning rate with `use_clip`; the others pass
unchanged and undecayed; the wrapped optimizer then steps without decay or loss scale.
"""

from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, nn

NOT_AN_OPTIMIZER: Any = object()
NOT_A_FLOAT: Any = 1


def _ratio(w, g, coefficient, wd, eps=1e-5):
    return (
        coefficient
        * np.linalg.norm(w)
        / (np.linalg.norm(g) + wd * np.linalg.norm(w) + eps)
    )


@pytest.mark.parametrize("use_clip", [False, True], ids=["plain", "use_clip"])
def test_two_momentum_steps_follow_the_rule(use_clip):
    rng = np.random.default_rng(7)
    w0, b0 = rng.normal(size=(3, 4)), rng.normal(size=3)
    dense = nn.Dense(4, 3)
    bias = dense.bias
    assert bias is not None
    dense.weight.set_data(Tensor(w0.astype(np.float32)))
    bias.set_data(Tensor(b0.astype(np.float32)))
    lr, momentum, wd, coefficient, scale = 0.1, 0.9, 0.01, 0.02, 2.0
    inner = nn.Momentum(
        dense.trainable_params(), lr, momentum, weight_decay=wd, loss_scale=scale
    )
    opt = nn.LARS(inner, coefficient=coefficient, use_clip=use_clip)
    w, b = w0.copy(), b0.copy()
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    for _ in range(2):
        gw, gb = rng.normal(size=w.shape), rng.normal(size=b.shape)
        opt(
            [
                Tensor((gw * scale).astype(np.float32)),
                Tensor((gb * scale).astype(np.float32)),
            ]
        )
        c = _ratio(w, gw, coefficient, wd / scale)
        if use_clip:
            c = min(max(c / lr, 0.0), 1.0)
        vw = momentum * vw + c * (gw + wd / scale * w)
        vb = momentum * vb + gb  # the bias: unscaled, undecayed
        w, b = w - lr * vw, b - lr * vb
    np.testing.assert_allclose(dense.weight.asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bias.asnumpy(), b, rtol=1e-5, atol=1e-6)
    assert int(
        opt.global_step.asnumpy()[0]
    ) == 2 and opt.get_lr().asnumpy() == pytest.approx(lr)


def test_trains_a_network_with_unique_checkpoint_names():
    ms.set_seed(1)
    net = nn.Dense(4, 2)
    opt = nn.LARS(nn.Momentum(net.trainable_params(), 0.1, 0.9), coefficient=0.05)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    rng = np.random.default_rng(0)
    x = Tensor(rng.normal(size=(8, 4)).astype(np.float32))
    y = Tensor(rng.normal(size=(8, 2)).astype(np.float32))
    losses = [float(step(x, y).asnumpy()) for _ in range(20)]
    assert losses[-1] < losses[0]
    names = [p.name for p in step.get_parameters()]
    assert len(names) == len(set(names)) and "fake_lr" in names


@pytest.mark.parametrize(
    ("make", "error", "words"),
    [
        (
            lambda p: nn.LARS(NOT_AN_OPTIMIZER),
            TypeError,
            "'optimizer' must be of type 'Optimizer'",
        ),
        (
            lambda p: nn.LARS(nn.Momentum(p, 0.1, 0.9), epsilon=NOT_A_FLOAT),
            TypeError,
            "'epsilon' must be of type 'float'",
        ),
        (
            lambda p: nn.LARS(nn.Momentum(p, 0.1, 0.9), use_clip=NOT_A_FLOAT),
            TypeError,
            "'use_clip' must be a bool",
        ),
        (
            lambda p: nn.LARS(nn.Momentum(p, 0.1, 0.9), lars_filter=NOT_A_FLOAT),
            TypeError,
            "'lars_filter' must be callable",
        ),
    ],
    ids=["optimizer", "epsilon", "use_clip", "lars_filter"],
)
def test_bad_arguments_are_named(make, error, words):
    with pytest.raises(error, match=words):
        make(nn.Dense(2, 2).trainable_params())
