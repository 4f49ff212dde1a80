"""`amp.build_train_network`, `amp.auto_mixed_precision` and `amp.all_finite`.

cadence computes in float32 at every amp level: the builders must give the
network `Model` trains, and the levels must change no value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, amp, nn
from tests.helpers.bad_calls import BadCalls, bad_calls_test

X = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
Y = Tensor(np.ones((2, 3), np.float32))


def _net_and_optimizer():
    ms.set_seed(5)
    net = nn.Dense(4, 3)
    return net, nn.Momentum(net.trainable_params(), 0.1, 0.9)


def _trained_weight(build):
    net, opt = _net_and_optimizer()
    step = build(net, opt)
    for _ in range(2):
        step(X, Y)
    return net.weight.asnumpy().copy(), type(step).__name__


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3", "auto"])
def test_build_train_network_trains_as_models_network(level):
    built, built_kind = _trained_weight(
        lambda net, opt: amp.build_train_network(net, opt, nn.MSELoss(), level=level)
    )
    model, model_kind = _trained_weight(
        lambda net, opt: (
            ms.Model(net, nn.MSELoss(), opt, amp_level=level)._train_network
        )
    )
    assert built_kind == model_kind == "TrainOneStepCell"
    assert np.array_equal(built, model)


@pytest.mark.parametrize(
    ("manager", "kind"),
    [
        (
            amp.FixedLossScaleManager(128.0, drop_overflow_update=False),
            "TrainOneStepCell",
        ),
        (amp.FixedLossScaleManager(128.0), "TrainOneStepWithLossScaleCell"),
        (amp.DynamicLossScaleManager(), "TrainOneStepWithLossScaleCell"),
    ],
    ids=["fixed", "fixed-dropping", "dynamic"],
)
def test_build_train_network_builds_the_step_the_manager_asks_for(manager, kind):
    net, opt = _net_and_optimizer()
    step = amp.build_train_network(
        net, opt, nn.MSELoss(), level="O2", loss_scale_manager=manager
    )
    assert type(step).__name__ == kind


def test_build_train_network_without_a_loss_steps_the_network_itself():
    net, opt = _net_and_optimizer()
    step = amp.build_train_network(
        nn.WithLossCell(net, nn.MSELoss()), opt, keep_batchnorm_fp32=True
    )
    before = net.weight.asnumpy().copy()
    step(X, Y)
    assert not np.array_equal(before, net.weight.asnumpy())
    assert ms.build_train_network is amp.build_train_network


@pytest.mark.parametrize("level", ["O0", "O1", "O2", "O3", "auto"])
def test_auto_mixed_precision_returns_the_network_computing_float32(level):
    net, _ = _net_and_optimizer()
    expected = net(X).asnumpy()
    assert amp.auto_mixed_precision(net, level, ms.float16) is net
    out = net(X)
    assert out.dtype == ms.float32
    assert np.array_equal(out.asnumpy(), expected)


@pytest.mark.parametrize(
    ("inputs", "expected"),
    [
        ([Tensor([1.0, 2.0]), Tensor([3.0])], True),
        ((Tensor([1.0, np.inf]),), False),
        ([Tensor([1.0]), Tensor([np.nan])], False),
        ([Tensor([1, 2])], True),
    ],
    ids=["finite", "inf", "nan", "ints"],
)
def test_all_finite(inputs, expected):
    result = amp.all_finite(inputs)
    assert result.dtype == ms.bool_
    assert result.shape == ()
    assert bool(result) is expected


def _dense() -> nn.Dense:
    return nn.Dense(4, 3)


def _sgd() -> nn.SGD:
    return nn.SGD(_dense().trainable_params(), 0.1)


# `unchecked` (Any): the arguments are wrong on purpose.
unchecked: Any = amp
BAD_CALLS: BadCalls = {
    "build-network": (lambda: unchecked.build_train_network(len, _sgd()), TypeError, "'network' must be a Cell"),
    "build-optimizer": (
        lambda: amp.build_train_network(_dense(), "sgd"), TypeError, "'optimizer' must be an optimizer",
    ),
    "build-loss": (lambda: amp.build_train_network(_dense(), _sgd(), 3), TypeError, "'loss_fn' must be a loss Cell"),
    "build-level": (lambda: amp.build_train_network(_dense(), _sgd(), level="O7"), ValueError, "'level' must be one of"),
    "build-boost": (
        lambda: amp.build_train_network(_dense(), _sgd(), boost_level="O9"), ValueError, "'boost_level' must be one",
    ),
    "build-kwarg": (lambda: amp.build_train_network(_dense(), _sgd(), foo=1), ValueError, "keyword argument 'foo'"),
    "build-manager": (
        lambda: amp.build_train_network(_dense(), _sgd(), loss_scale_manager=1), TypeError, "a LossScaleManager",
    ),
    "auto-network": (lambda: unchecked.auto_mixed_precision(len, "O1"), TypeError, "'network' must be a Cell"),
    "auto-level": (lambda: amp.auto_mixed_precision(_dense(), "O5"), ValueError, "got 'O5'"),
    "auto-dtype": (lambda: amp.auto_mixed_precision(_dense(), "O1", ms.int32), ValueError, "'dtype' must be"),
    "finite-tensor": (lambda: amp.all_finite(Tensor([1.0])), TypeError, "tuple or list of Tensors"),
    "finite-empty": (lambda: amp.all_finite([]), ValueError, "at least one Tensor"),
}  # fmt: skip

test_bad_arguments_get_clear_errors = bad_calls_test(BAD_CALLS)
