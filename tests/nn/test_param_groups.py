"""Optimizer parameter groups: `lr`, `weight_decay`, `grad_centralization`, `order_params`.

Expected parameter values are MindSpore 2.10's output for the same groups,
parameters and gradients (two steps; computed once with MindSpore itself).
"""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
from cadence import Parameter, Tensor


def make_params():
    rng = np.random.default_rng(3)
    shapes = {
        "conv.weight": (4, 16, 2, 2),
        "dense.weight": (3, 5),
        "dense.bias": (3,),
        "bn.gamma": (3,),
    }
    return [
        Parameter(Tensor(rng.normal(size=s).astype(np.float32)), name=n)
        for n, s in shapes.items()
    ]


def make_grads(params):
    rng = np.random.default_rng(4)
    return tuple(Tensor(rng.normal(size=p.shape).astype(np.float32)) for p in params)


def zoo_groups(params, **first):
    conv_w, dense_w, dense_b, gamma = params
    return [
        {"params": [conv_w, dense_w], "weight_decay": 0.05, **first},
        {"params": [dense_b, gamma], "lr": 0.01},
        {"order_params": params},
    ]


# MindSpore 2.10, first four values of each parameter after two steps.
MOMENTUM_EXPECTED = {
    "conv.weight": [
        2.2000699043273926,
        -2.4680910110473633,
        -0.06960099935531616,
        -0.7503740191459656,
    ],
    "dense.weight": [
        0.4283669888973236,
        -1.205834984779358,
        1.2295490503311157,
        -0.30746200680732727,
    ],
    "dense.bias": [-0.09753400087356567, 0.7287409901618958, 1.2606120109558105],
    "bn.gamma": [0.2621600031852722, -0.3732140064239502, 0.6731029748916626],
}
ADAM_EXPECTED = {
    "conv.weight": [
        2.240894079208374,
        -2.3557119369506836,
        0.21810699999332428,
        -0.7677479982376099,
    ],
    "dense.weight": [
        0.4212169945240021,
        -1.3764770030975342,
        1.568120002746582,
        -0.32150599360466003,
    ],
    "dense.bias": [-0.08057600259780884, 0.746071994304657, 1.2656970024108887],
    "bn.gamma": [0.25457099080085754, -0.3762049973011017, 0.6987109780311584],
}


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (
            lambda g: nn.SGD(g, learning_rate=0.1, momentum=0.9, weight_decay=0.01),
            MOMENTUM_EXPECTED,
        ),
        (
            lambda g: nn.Momentum(
                g, learning_rate=0.1, momentum=0.9, weight_decay=0.01
            ),
            MOMENTUM_EXPECTED,
        ),
        (lambda g: nn.Adam(g, learning_rate=0.1, weight_decay=0.01), ADAM_EXPECTED),
    ],
)
def test_group_lr_and_weight_decay_match_mindspore(make, expected):
    params = make_params()
    opt = make(zoo_groups(params))
    names = [p.name for p in opt.get_parameters()]
    assert names[:3] == ["global_step", "learning_rate", "learning_rate_group_1"]
    assert opt.is_group and opt.is_group_lr
    np.testing.assert_allclose(
        [float(r.asnumpy()) for r in opt.get_lr()], [0.1, 0.1, 0.01, 0.01]
    )
    grads = make_grads(params)
    for _ in range(2):
        opt(grads)
    for p in params:
        np.testing.assert_allclose(
            p.asnumpy().reshape(-1)[:4], expected[p.name], rtol=1e-5, atol=1e-5
        )


def test_order_params_sets_the_order_of_parameters_and_state():
    params = make_params()
    conv_w, dense_w, dense_b, gamma = params
    order = [gamma, conv_w, dense_b, dense_w]
    opt = nn.Momentum(
        [
            {"params": [conv_w, dense_w], "lr": 0.5},
            {"params": [dense_b, gamma]},
            {"order_params": order},
        ],
        0.1,
        0.9,
    )
    assert [p.name for p in opt.parameters] == [
        "bn.gamma",
        "conv.weight",
        "dense.bias",
        "dense.weight",
    ]
    assert [p.name for p in opt.moments] == [
        f"moments.{n}"
        for n in ("bn.gamma", "conv.weight", "dense.bias", "dense.weight")
    ]
    np.testing.assert_allclose(
        [float(r.asnumpy()) for r in opt.get_lr()], [0.1, 0.5, 0.1, 0.5]
    )


def test_group_without_weight_decay_takes_the_default_for_every_name():
    # Grouped, MindSpore decays every parameter of a group (no 'beta'/'gamma' name filter).
    params = make_params()
    opt = nn.SGD([{"params": params}], learning_rate=0.1, weight_decay=0.2)
    before = [p.asnumpy().copy() for p in params]
    opt(tuple(Tensor(np.zeros(p.shape, np.float32)) for p in params))
    for p, old in zip(params, before, strict=True):
        np.testing.assert_allclose(p.asnumpy(), old - 0.1 * 0.2 * old, rtol=1e-6)
    # Ungrouped, names with 'gamma' are not decayed (MindSpore's default filter).
    params = make_params()
    gamma_before = params[3].asnumpy().copy()
    nn.SGD(params, learning_rate=0.1, weight_decay=0.2)(
        tuple(Tensor(np.zeros(p.shape, np.float32)) for p in params)
    )
    np.testing.assert_array_equal(params[3].asnumpy(), gamma_before)


def test_grad_centralization_centralizes_eligible_gradients_after_decay():
    params = make_params()
    conv_w, dense_w, _, _ = params
    before = {p.name: p.asnumpy().copy() for p in params}
    grads = make_grads(params)
    opt = nn.SGD(
        zoo_groups(params, grad_centralization=True),
        learning_rate=0.1,
        weight_decay=0.01,
    )
    opt(grads)
    # conv.weight (axis 1 = 16 channels) is centralized: g + wd*p minus its mean over axes 1..3, per output channel.
    g = grads[0].asnumpy() + 0.05 * before["conv.weight"]
    g = g - g.mean(axis=(1, 2, 3), keepdims=True)
    np.testing.assert_allclose(
        conv_w.asnumpy(), before["conv.weight"] - 0.1 * g, rtol=1e-5, atol=1e-6
    )
    # dense.weight (axis 1 = 5) is not, as in MindSpore.
    g = grads[1].asnumpy() + 0.05 * before["dense.weight"]
    np.testing.assert_allclose(
        dense_w.asnumpy(), before["dense.weight"] - 0.1 * g, rtol=1e-5, atol=1e-6
    )


def test_bad_groups_get_clear_errors():
    params = make_params()
    with pytest.raises(
        KeyError,
        match=r"must be among \['params', 'lr'.*group 0 has \['learning_rate'\]",
    ):
        nn.SGD([{"params": params[:2], "learning_rate": 0.1}], 0.1)
    with pytest.raises(
        RuntimeError, match=r"'dense\.weight' is in more than one group"
    ):
        nn.SGD([{"params": params[:2]}, {"params": params[1:]}], 0.1)
    with pytest.raises(
        ValueError, match="'order_params' must list exactly the 2 grouped parameters"
    ):
        nn.SGD([{"params": params[:2]}, {"order_params": params}], 0.1)
    with pytest.raises(ValueError, match="must hold only that key"):
        nn.SGD([{"params": params[:2]}, {"order_params": params, "lr": 0.1}], 0.1)
    with pytest.raises(
        TypeError, match="'grad_centralization' of group 0 must be a bool, but got 1"
    ):
        nn.SGD([{"params": params[:2], "grad_centralization": 1}], 0.1)
    with pytest.raises(KeyError, match="needs a 'params' list"):
        nn.SGD([{"lr": 0.1}], 0.1)
    with pytest.raises(TypeError, match="only Parameters or only group dicts"):
        nn.SGD([params[0], {"params": params[1:]}], 0.1)
    with pytest.raises(ValueError, match=r"'learning_rate' must be at least 0\.0"):
        nn.Adam([{"params": params, "lr": -1.0}])
    with pytest.raises(
        TypeError, match=r"'weight_decay' must be a float, but got '0\.1'"
    ):
        nn.Adam([{"params": params, "weight_decay": "0.1"}])


def test_model_zoo_no_decay_groups_train_with_model():
    """The model zoo's pattern: no weight decay on biases and BatchNorm parameters, via trainable_params()."""

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense1 = nn.Dense(4, 8)
            self.bn = nn.BatchNorm1d(8)
            self.relu = nn.ReLU()
            self.dense2 = nn.Dense(8, 2)

        def construct(self, x):
            return self.dense2(self.relu(self.bn(self.dense1(x))))

    ms.set_seed(0)
    net = Net()
    decayed = [
        p for p in net.trainable_params() if "bias" not in p.name and "bn" not in p.name
    ]
    no_decay = [p for p in net.trainable_params() if "bias" in p.name or "bn" in p.name]
    groups = [
        {"params": decayed, "weight_decay": 1e-4},
        {"params": no_decay, "weight_decay": 0.0},
        {"order_params": net.trainable_params()},
    ]
    opt = nn.Momentum(groups, learning_rate=0.1, momentum=0.9)
    assert [p.name for p in opt.parameters] == [p.name for p in net.trainable_params()]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    data = [[Tensor(x[i : i + 8]), Tensor(y[i : i + 8])] for i in range(0, 32, 8)]
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss_fn, opt, metrics={"acc"})
    first = model.eval(ms.testing.ListDataset(data))["acc"]
    model.train(20, ms.testing.ListDataset(data))
    assert model.eval(ms.testing.ListDataset(data))["acc"] > max(first, 0.8)


def test_group_learning_rates_may_be_per_step_lists_or_schedules():
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    weight, bias = net.trainable_params()
    schedule = nn.ExponentialDecayLR(0.2, 0.5, 1)
    opt = nn.SGD(
        [
            {"params": [weight], "lr": [0.1, 0.05, 0.025]},
            {"params": [bias], "lr": schedule},
        ],
        0.3,
    )
    assert opt.dynamic_lr and opt.is_group_lr
    seen = []
    for _ in range(4):
        seen.append([round(float(r.asnumpy()), 4) for r in opt.get_lr()])
        opt((Tensor(np.zeros((2, 3), np.float32)), Tensor(np.zeros(2, np.float32))))
    # The list is indexed by the step (its last value kept after it); the schedule is called with it.
    assert seen == [[0.1, 0.2], [0.05, 0.1], [0.025, 0.05], [0.025, 0.025]]
    assert [p.name for p in opt.get_parameters()][:2] == [
        "global_step",
        "learning_rate_group_0",
    ]
