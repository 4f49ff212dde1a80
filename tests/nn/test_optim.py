import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn


def make(shape=(3, 2), seed=0):
    return ms.Parameter(
        np.random.default_rng(seed).standard_normal(shape).astype(np.float32), name="w"
    )


GRADS = [
    np.random.default_rng(i + 10).standard_normal((3, 2)).astype(np.float32)
    for i in range(3)
]


@pytest.mark.parametrize(
    ("momentum", "dampening", "wd", "nesterov"),
    [(0.0, 0.0, 0.0, False), (0.9, 0.1, 0.01, False), (0.9, 0.0, 0.0, True)],
)
def test_sgd_matches_mindspore_rule(momentum, dampening, wd, nesterov):
    p = make()
    w = p.asnumpy().astype(np.float64).copy()
    opt = nn.SGD(
        [p],
        learning_rate=0.1,
        momentum=momentum,
        dampening=dampening,
        weight_decay=wd,
        nesterov=nesterov,
    )
    accum = None
    for g in GRADS:
        opt([ms.Tensor(g)])
        gg = g + wd * w
        if momentum > 0:
            accum = gg if accum is None else momentum * accum + (1 - dampening) * gg
            gg = gg + momentum * accum if nesterov else accum
        w = w - 0.1 * gg
    np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    assert int(opt.global_step.asnumpy()[0]) == 3


def test_sgd_without_momentum_keeps_state_like_mindspore():
    p = make()
    opt = nn.SGD([p], learning_rate=0.01)
    opt([GRADS[0]])
    assert (opt.accum[0].asnumpy() == 0).all()
    assert (opt.stat[0].asnumpy() == 1).all()
    assert [q.name for q in opt.get_parameters()] == [
        "global_step",
        "learning_rate",
        "momentum",
        "accum.w",
        "stat.w",
    ]


def test_learning_rate_parameter_can_be_changed():
    p = make()
    before = p.asnumpy().copy()
    opt = nn.SGD([p], learning_rate=0.1)
    opt.learning_rate.set_data(ms.Tensor(0.0, ms.float32))
    assert float(opt.get_lr()) == 0.0
    opt([GRADS[0]])
    np.testing.assert_array_equal(p.asnumpy(), before)


def test_dynamic_learning_rate_list_and_schedule():
    opt = nn.SGD([make()], learning_rate=[0.3, 0.2, 0.1])
    seen = []
    for _ in range(4):
        seen.append(float(opt.get_lr()))
        opt([GRADS[0]])
    assert seen == pytest.approx([0.3, 0.2, 0.1, 0.1])
    sched = nn.SGD([make()], learning_rate=nn.ExponentialDecayLR(0.1, 0.5, 1))
    sched([GRADS[0]])
    assert float(sched.get_lr()) == pytest.approx(0.05)


class _ScheduleOfShape(nn.LearningRateSchedule):
    """Returns `rate` in an array of `shape`, as the model zoo's BERT schedules return shape (1,)."""

    def __init__(self, rate, shape):
        super().__init__()
        self.rate, self.shape = rate, shape

    def construct(self, global_step):
        return ms.Tensor(np.full(self.shape, self.rate, np.float32))


@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_schedule_returning_one_element_array_sets_the_rate(shape):
    p = make()
    before = p.asnumpy().copy()
    opt = nn.SGD([p], learning_rate=_ScheduleOfShape(0.5, shape))
    opt([GRADS[0]])
    np.testing.assert_allclose(p.asnumpy(), before - 0.5 * GRADS[0], rtol=1e-6)


def test_schedule_returning_several_values_is_refused_by_name():
    opt = nn.SGD([make()], learning_rate=_ScheduleOfShape(0.5, (2,)))
    with pytest.raises(ValueError, match=r"'SGD'.*one value.*shape \(2,\)"):
        opt([GRADS[0]])


def test_momentum_and_adam_match_formulas():
    p = make()
    w = p.asnumpy().astype(np.float64).copy()
    opt = nn.Momentum([p], learning_rate=0.1, momentum=0.9)
    m = np.zeros_like(w)
    for g in GRADS:
        opt([g])
        m = 0.9 * m + g
        w = w - 0.1 * m
    np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)
    assert [q.name for q in opt.get_parameters()][-1] == "moments.w"

    p = make()
    w = p.asnumpy().astype(np.float64).copy()
    adam = nn.Adam([p], learning_rate=0.01)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t, g in enumerate(GRADS, start=1):
        adam([g])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - 0.01 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t) * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-4, atol=1e-6)
    assert {"beta1_power", "beta2_power", "moment1.w", "moment2.w"} <= {
        q.name for q in adam.get_parameters()
    }


def test_weight_decay_skips_batch_norm_parameters():
    gamma = ms.Parameter(np.ones(2, np.float32), name="bn.gamma")
    opt = nn.SGD([gamma], learning_rate=1.0, weight_decay=0.5)
    opt([np.zeros(2, np.float32)])
    np.testing.assert_array_equal(gamma.asnumpy(), [1.0, 1.0])


def test_validation():
    with pytest.raises(ValueError, match="parameters"):
        nn.SGD([], 0.1)
    with pytest.raises(TypeError, match="parameters"):
        nn.SGD([1], 0.1)
    with pytest.raises(ValueError, match="momentum"):
        nn.SGD([make()], 0.1, momentum=-1.0)
    with pytest.raises(ValueError, match="nesterov"):
        nn.SGD([make()], 0.1, nesterov=True)
    with pytest.raises(ValueError, match="learning_rate"):
        nn.SGD([make()], -0.1)
    with pytest.raises(TypeError, match="learning_rate"):
        nn.SGD([make()], "fast")
    with pytest.raises(ValueError, match="beta1"):
        nn.Adam([make()], beta1=1.5)
    with pytest.raises(ValueError, match="gradients"):
        nn.SGD([make()], 0.1)([])


def test_lr_lists():
    assert nn.piecewise_constant_lr([2, 5], [0.1, 0.05]) == [0.1, 0.1, 0.05, 0.05, 0.05]
    assert nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1) == pytest.approx(
        [0.1, 0.1, 0.09, 0.09, 0.081, 0.081]
    )
    assert nn.exponential_decay_lr(0.1, 0.9, 4, 1, 2, is_stair=True) == pytest.approx(
        [0.1, 0.1, 0.09, 0.09]
    )
    cos = nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2)
    assert cos == pytest.approx([0.1, 0.1, 0.055, 0.055, 0.01, 0.01])
    assert nn.warmup_lr(0.1, 4, 1, 2) == pytest.approx([0.0, 0.05, 0.1, 0.1])
    assert float(
        nn.CosineDecayLR(0.0, 1.0, 4)(ms.Tensor(2, ms.int32))
    ) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="milestone"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="max_lr"):
        nn.cosine_decay_lr(0.2, 0.1, 4, 1, 2)
