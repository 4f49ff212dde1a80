"""Plain SGD folded into the backward pass: the same training as the separate update, and only where legal."""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
from cadence.compute import _folded_steps
from cadence.kernels import _blas


class Tied(nn.Cell):
    """One Dense used twice: its weight has two consumers, so its step must not be folded."""

    def __init__(self):
        super().__init__()
        self.shared = nn.Dense(6, 6, activation="relu")
        self.head = nn.Dense(6, 3)

    def construct(self, x):
        return self.head(self.shared(self.shared(x)))


def mlp():
    return nn.SequentialCell(
        [nn.Dense(6, 8, activation="relu"), nn.Dense(8, 8), nn.Tanh(), nn.Dense(8, 3, has_bias=False)]
    )  # fmt: skip


def batch(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((5, 6)).astype(np.float32)
    return ms.Tensor(x), ms.Tensor(rng.integers(0, 3, 5).astype(np.int32))


def sgd(params, **kw):
    return nn.SGD(params, learning_rate=0.1, **kw)


def grouped(params):
    # Different rate and decay per group; biases have their own rate.
    weights = [p for p in params if "weight" in p.name]
    biases = [p for p in params if "weight" not in p.name]
    return nn.SGD(
        [{"params": weights, "weight_decay": 0.01}, {"params": biases, "lr": 0.05}],
        learning_rate=[0.1, 0.08, 0.06, 0.04],
    )


def run(build, make_opt, fold, steps=4, cell=nn.TrainOneStepCell):
    """Train from seed 0; return (losses, final weights, parameters folded at the last step)."""
    ms.set_seed(0)
    net = build()
    step = cell(
        nn.WithLossCell(
            net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        ),
        make_opt(net.trainable_params()),
    )
    step.fold_optimizer_step = fold
    folded: list[str] = []
    original = _folded_steps.backward_folding_sgd

    def spy(*args):
        grads = original(*args)
        folded[:] = [
            p.name for p, g in zip(step.weights, grads, strict=True) if g is None
        ]
        return grads

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("cadence.nn._wrap.backward_folding_sgd", spy)
        losses = [float(step(*batch(i))) for i in range(steps)]
    return (
        losses,
        {p.name: p.asnumpy().copy() for p in net.get_parameters()},
        folded,
        step,
    )


def same_training(a, b):
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5, atol=1e-6)
    assert a[1].keys() == b[1].keys()
    for name in a[1]:
        np.testing.assert_allclose(
            a[1][name], b[1][name], rtol=1e-5, atol=1e-6, err_msg=name
        )


@pytest.mark.parametrize(
    ("make_opt", "expect_folded"),
    [
        (sgd, 5),  # every parameter: 3 weights, 2 biases
        (lambda p: sgd(p, weight_decay=0.01), 5),
        (
            grouped,
            1,
        ),  # only the bias-less last layer: weight and bias rates differ elsewhere
        (lambda p: sgd(p, momentum=0.9), 0),
        (lambda p: sgd(p, loss_scale=2.0), 0),
        (lambda p: nn.Momentum(p, 0.1, 0.0), 0),
    ],
)
def test_folded_and_separate_updates_train_the_same(make_opt, expect_folded):
    folded = run(mlp, make_opt, fold=True)
    separate = run(mlp, make_opt, fold=False)
    same_training(folded, separate)
    assert len(folded[2]) == expect_folded
    assert separate[2] == []
    assert int(folded[3].optimizer.global_step.asnumpy()[0]) == 4


def test_a_shared_weight_is_not_folded_but_trains_the_same():
    folded = run(Tied, sgd, fold=True)
    same_training(folded, run(Tied, sgd, fold=False))
    assert sorted(folded[2]) == ["head.bias", "head.weight"]


def test_a_subclass_of_the_step_cell_keeps_the_separate_update():
    class Mine(nn.TrainOneStepCell):
        pass

    assert run(mlp, sgd, fold=True, cell=Mine)[2] == []


def test_momentum_changed_by_a_callback_stops_folding_at_once():
    ms.set_seed(0)
    net = mlp()
    opt = sgd(net.trainable_params())
    assert opt.folded_steps() is not None
    opt.momentum.set_data(ms.Tensor(np.asarray(0.9, np.float32)))
    assert opt.folded_steps() is None


def test_the_learning_rate_of_each_step_is_folded():
    ms.set_seed(0)
    net = mlp()
    opt = nn.SGD(net.trainable_params(), learning_rate=[0.3, 0.2])

    def rates():
        steps = opt.folded_steps()
        assert steps is not None
        return {round(lr, 6) for lr, _ in steps.values()}

    assert rates() == {0.3}
    opt.global_step.asnumpy()[0] = 5  # past the list: its last rate
    assert rates() == {0.2}


class CountingDecay(nn.LearningRateSchedule):
    """0.1 halved every step; counts how often the schedule is evaluated."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def _rate(self, step):
        self.calls += 1
        return 0.1 * 0.5**step


@pytest.mark.parametrize("fold", [True, False], ids=["folded", "separate"])
def test_a_dynamic_learning_rate_is_evaluated_once_per_step(fold):
    schedules = []

    def make_opt(params):
        schedules.append(CountingDecay())
        return nn.SGD(params, learning_rate=schedules[-1])

    trained = run(mlp, make_opt, fold=fold, steps=3)
    assert schedules[0].calls == 3
    assert len(trained[2]) == (5 if fold else 0)
    # The rates the schedule gave are the ones applied: the same as plain per-step rates.
    same_training(
        trained, run(mlp, lambda p: nn.SGD(p, [0.1, 0.05, 0.025]), fold=False, steps=3)
    )


@pytest.mark.parametrize(("alpha", "beta"), [(-0.1, 1.0), (-0.5, 0.99), (2.0, 0.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("contiguous", [True, False])
def test_accumulate_product(alpha, beta, dtype, contiguous):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((4, 7)).astype(dtype)
    x = (
        rng.standard_normal((7, 3)).astype(dtype).T
        if not contiguous
        else rng.standard_normal((3, 7)).astype(dtype)
    )
    dz = rng.standard_normal((3, 4)).astype(dtype)
    want = beta * w + alpha * dz.T @ x
    _blas.accumulate_product(w, x, dz, alpha, beta)
    np.testing.assert_allclose(w, want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_numpy_blas_is_found_here():
    # The CI wheels of numpy bundle OpenBLAS: without it the fold would silently be two passes.
    assert _blas.has_accumulating_gemm()
