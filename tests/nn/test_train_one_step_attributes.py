"""`TrainOneStepCell` has the attributes MindSpore's subclasses use (`grad`, `sens`, `grad_reducer`, ...)."""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
import cadence.ops as ops


class ClippedStep(nn.TrainOneStepCell):
    """A model-zoo style training cell: its own construct over the inherited attributes."""

    def __init__(self, network, optimizer, clip_norm=None, sens=1.0):
        super().__init__(network, optimizer, sens)
        self.clip_norm = clip_norm

    def construct(self, data, label):
        loss = self.network(data, label)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.weights)(data, label, sens)
        grads = self.grad_reducer(grads)
        if self.clip_norm is not None:
            grads = ops.clip_by_global_norm(grads, self.clip_norm)
        return ops.depend(loss, self.optimizer(grads))


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(rng.standard_normal((8, 5)).astype(np.float32))
    y = ms.Tensor(rng.standard_normal((8, 2)).astype(np.float32))
    return x, y


def _run(cell_type, steps=4, **kwargs):
    ms.set_seed(3)
    net = nn.Dense(5, 2)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = cell_type(nn.WithLossCell(net, nn.MSELoss()), opt, **kwargs)
    step.set_train()
    x, y = _problem()
    losses = [float(step(x, y).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in net.trainable_params()]


@pytest.mark.parametrize("sens", [1.0, 4.0])
def test_a_subclass_written_with_the_inherited_attributes_steps_as_the_builtin_cell(
    sens,
):
    mine, mine_weights = _run(ClippedStep, sens=sens)
    builtin, builtin_weights = _run(nn.TrainOneStepCell, sens=sens)
    np.testing.assert_allclose(mine, builtin, rtol=1e-5)
    for a, b in zip(mine_weights, builtin_weights, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert mine[-1] < mine[0]


def test_clipping_in_the_subclass_bounds_each_update():
    # With a tiny global norm every step moves the weights by at most lr * clip (no momentum yet).
    ms.set_seed(3)
    net = nn.Dense(5, 2)
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    step = ClippedStep(
        nn.WithLossCell(net, nn.MSELoss()),
        nn.SGD(net.trainable_params(), 0.5),
        clip_norm=0.01,
    )
    step(*_problem())
    moved = np.sqrt(
        sum(
            float(((p.asnumpy() - b) ** 2).sum())
            for p, b in zip(net.trainable_params(), before, strict=True)
        )
    )
    assert 0 < moved <= 0.5 * 0.01 * (1 + 1e-5)


def test_sens_defaults_to_one_and_zero_is_refused():
    net = nn.Dense(2, 1)
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    assert (step.sens, step.sense_flag, step.reducer_flag) == (1.0, False, False)
    grads = (ms.Tensor(np.ones(2, np.float32)),)
    assert step.grad_reducer(grads) is grads
    with pytest.raises(ValueError, match="'sens' must not be 0, but got 0"):
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, sens=0)
    with pytest.raises(TypeError, match="'return_grad' must be a bool, but got 1"):
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt, return_grad=1)  # type: ignore[arg-type]


def test_return_grad_gives_the_gradients_by_parameter_name():
    ms.set_seed(0)
    net = nn.Dense(5, 2)
    opt = nn.SGD(net.trainable_params(), 0.1)
    step = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), opt, return_grad=True
    )
    before = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    loss, grads = step(*_problem())
    assert loss.shape == () and sorted(grads) == ["bias", "weight"]
    for p in net.trainable_params():
        np.testing.assert_allclose(
            p.asnumpy(), before[p.name] - 0.1 * grads[p.name].asnumpy(), rtol=1e-5
        )
