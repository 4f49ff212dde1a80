"""Loss scaling: `TrainOneStepWithLossScaleCell`, its update cells, and `Model` with a loss-scale manager.

MindSpore 2.10 cannot run the cell on a CPU (its overflow check is an Ascend
operator), so the expected scales follow the rule of its
`DynamicLossScaleUpdateCell` worked by hand in each test.
"""

from __future__ import annotations

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, amp, nn
from cadence.train import loss_scale_manager


def _net():
    ms.set_seed(3)
    return nn.Dense(4, 3)


def _batches(count, poisoned=()):
    rng = np.random.default_rng(0)
    out = []
    for i in range(count):
        x = rng.normal(size=(5, 4)).astype(np.float32)
        if i in poisoned:
            x[0, 0] = np.inf  # inf input: inf / nan gradients
        out.append((Tensor(x), Tensor(rng.normal(size=(5, 3)).astype(np.float32))))
    return out


def _scaled_step(net, scale_sense):
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return nn.TrainOneStepWithLossScaleCell(
        nn.WithLossCell(net, nn.MSELoss()), opt, scale_sense
    )


def test_clean_steps_train_as_the_unscaled_step():
    plain, scaled = _net(), _net()
    step = nn.TrainOneStepCell(
        nn.WithLossCell(plain, nn.MSELoss()),
        nn.Momentum(plain.trainable_params(), 0.1, 0.9),
    )
    scaled_step = _scaled_step(scaled, nn.FixedLossScaleUpdateCell(1024.0))
    for x, y in _batches(3):
        want = step(x, y)
        loss, overflow, scale = scaled_step(x, y)
        np.testing.assert_allclose(loss.asnumpy(), want.asnumpy(), rtol=1e-6)
        assert overflow.dtype == ms.bool_ and not overflow.asnumpy()
        assert float(scale.asnumpy()) == 1024.0
    for a, b in zip(plain.trainable_params(), scaled.trainable_params(), strict=True):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-7)


def test_an_overflowing_step_leaves_weights_and_optimizer_state_alone():
    net = _net()
    step = _scaled_step(net, nn.FixedLossScaleUpdateCell(8.0))
    (x0, y0), (x1, y1) = _batches(2, poisoned={1})
    step(x0, y0)
    before = [p.asnumpy().copy() for p in step.get_parameters()]
    _, overflow, scale = step(x1, y1)
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 8.0
    for p, b in zip(step.get_parameters(), before, strict=True):
        np.testing.assert_array_equal(p.asnumpy(), b, err_msg=p.name)


def test_dynamic_scale_follows_mindsporess_rule():
    # window 2 from 1024: step 2 overflows (halve, restart the window), step 4 is the
    # second clean step after it (double); the counters are MindSpore's.
    update = nn.DynamicLossScaleUpdateCell(1024.0, 2.0, 2)
    step = _scaled_step(_net(), update)
    scales = [float(step(x, y)[2].asnumpy()) for x, y in _batches(5, poisoned={1})]
    assert scales == [1024.0, 512.0, 512.0, 1024.0, 1024.0]
    assert int(update.cur_iter.asnumpy()) == 6
    assert int(update.last_overflow_iter.asnumpy()) == 4
    names = {p.name for p in step.get_parameters()}
    assert {
        "scale_sense",
        "current_iterator_step",
        "last_overflow_iterator_step",
    } <= names


def test_dynamic_scale_never_drops_below_one():
    step = _scaled_step(_net(), nn.DynamicLossScaleUpdateCell(2.0, 4.0, 100))
    scales = [float(step(x, y)[2].asnumpy()) for x, y in _batches(2, poisoned={0, 1})]
    assert scales == [1.0, 1.0]


def test_a_tensor_scale_changes_only_through_set_sense_scale():
    step = _scaled_step(_net(), Tensor(np.float32(16.0)))
    (x, y), (bad_x, bad_y) = _batches(2, poisoned={1})
    assert float(step(bad_x, bad_y)[2].asnumpy()) == 16.0
    step.set_sense_scale(Tensor(np.float32(4.0)))
    assert float(step(x, y)[2].asnumpy()) == 4.0


@pytest.mark.parametrize(
    ("scale_sense", "error", "match"),
    [
        (
            Tensor(np.ones(2, np.float32)),
            ValueError,
            r"shape of 'scale_sense' must be \(1,\) or \(\)",
        ),
        (2.0, TypeError, "'scale_sense' must be Cell or Tensor"),
        (nn.ReLU(), TypeError, "loss-scale update cell"),
    ],
)
def test_scale_sense_is_checked(scale_sense, error, match):
    with pytest.raises(error, match=match):
        _scaled_step(_net(), scale_sense)


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (
            lambda: nn.DynamicLossScaleUpdateCell(0.0, 2.0, 10),
            "'loss_scale_value' must be in",
        ),
        (
            lambda: nn.DynamicLossScaleUpdateCell(8.0, 2.0, 0),
            "'scale_window' must be an int > 0",
        ),
        (lambda: amp.FixedLossScaleManager(0.5), "'loss_scale' must be in"),
        (lambda: amp.DynamicLossScaleManager(2.0, -1.0), "'scale_factor' must be in"),
        (
            lambda: ms.Model(
                _net(), nn.MSELoss(), loss_scale_manager=amp.FixedLossScaleManager()
            ),
            "'optimizer' can not be None",
        ),
    ],
)
def test_arguments_are_checked(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_the_managers_are_mindsporess_paths():
    assert (
        loss_scale_manager.DynamicLossScaleManager
        is amp.DynamicLossScaleManager
        is ms.DynamicLossScaleManager
    )
    assert loss_scale_manager.FixedLossScaleManager is ms.FixedLossScaleManager
    assert issubclass(amp.FixedLossScaleManager, loss_scale_manager.LossScaleManager)


def _model(manager, loss_scale=1.0):
    net = _net()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9, loss_scale=loss_scale)
    return net, ms.Model(net, nn.MSELoss(), opt, loss_scale_manager=manager)


def test_model_with_a_dynamic_manager_trains_and_the_manager_follows():
    manager = amp.DynamicLossScaleManager(
        init_loss_scale=64, scale_factor=2, scale_window=3
    )
    net, model = _model(manager)
    assert isinstance(model.train_network, nn.TrainOneStepWithLossScaleCell)
    data = [(x.asnumpy(), y.asnumpy()) for x, y in _batches(6, poisoned={1})]
    history = ms.History()
    model.train(2, data, callbacks=[history])
    # 12 steps, overflows at steps 2 and 8 (the poisoned batch of each epoch).
    assert manager.get_loss_scale() == float(model.train_network.scale_sense.asnumpy())
    assert manager.cur_iter == 13 and manager.last_overflow_iter == 8
    assert np.all(np.isfinite(net.weight.asnumpy()))


def test_model_with_a_fixed_manager_not_dropping_overflows_seeds_the_plain_step():
    manager = amp.FixedLossScaleManager(256.0, drop_overflow_update=False)
    plain_net, plain = _model(None)
    net, model = _model(manager, loss_scale=256.0)
    assert type(model.train_network) is nn.TrainOneStepCell
    data = [(x.asnumpy(), y.asnumpy()) for x, y in _batches(4)]
    plain.train(1, data)
    model.train(1, data)
    np.testing.assert_allclose(
        net.weight.asnumpy(), plain_net.weight.asnumpy(), rtol=1e-5
    )
