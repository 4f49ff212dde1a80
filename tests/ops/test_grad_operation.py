"""`GradOperation` with its three flags, `stop_gradient`, `depend`, and a MindSpore-style custom train cell."""

from __future__ import annotations

import numpy as np
import pytest

import cadence as ms
from cadence import nn, ops
from cadence.ops import composite as C, functional as F  # noqa: N812

rng = np.random.default_rng(1)
XS = rng.normal(size=(5, 3)).astype(np.float32)
YS = rng.normal(size=(5, 2)).astype(np.float32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)

    def construct(self, x, y):
        return ops.ReduceSum()(ops.Square()(self.dense(x) - y))


def reference(net, x, y):
    """Hand-derived gradients of sum((x W^T + b - y)^2)."""
    w, b = (p.asnumpy() for p in net.trainable_params())
    r = 2 * (x @ w.T + b - y)
    return r @ w, -r, r.T @ x, r.sum(0)


def test_the_three_flags_select_what_is_returned():
    net = Net()
    x, y = ms.Tensor(XS), ms.Tensor(YS)
    gx, gy, gw, gb = reference(net, XS, YS)
    weights = ms.ParameterTuple(net.trainable_params())

    first = ops.GradOperation()(net)(x, y)
    np.testing.assert_allclose(first.asnumpy(), gx, rtol=1e-5)

    both = ops.GradOperation(get_all=True)(net)(x, y)
    assert isinstance(both, tuple) and len(both) == 2
    np.testing.assert_allclose(both[1].asnumpy(), gy, rtol=1e-5)

    by_list = ops.GradOperation(get_by_list=True)(net, weights)(x, y)
    np.testing.assert_allclose(by_list[0].asnumpy(), gw, rtol=1e-5)
    np.testing.assert_allclose(by_list[1].asnumpy(), gb, rtol=1e-5)

    inputs, params = ops.GradOperation(get_all=True, get_by_list=True)(net, weights)(
        x, y
    )
    np.testing.assert_allclose(inputs[0].asnumpy(), gx, rtol=1e-5)
    np.testing.assert_allclose(params[0].asnumpy(), gw, rtol=1e-5)
    # The caller's tensors are not put on the tape.
    assert not x._tracked


def test_sens_param_seeds_the_output_gradient():
    dense = nn.Dense(3, 2)
    w = dense.weight.asnumpy()
    sens = rng.normal(size=(5, 2)).astype(np.float32)
    g = ops.GradOperation(sens_param=True)(dense)(ms.Tensor(XS), ms.Tensor(sens))
    np.testing.assert_allclose(g.asnumpy(), sens @ w, rtol=1e-5)
    # A tuple output takes one seed per output; outputs off the tape add nothing.
    pair = ops.GradOperation(sens_param=True)(lambda a: (dense(a), ms.Tensor([1])))
    g2 = pair(ms.Tensor(XS), (ms.Tensor(sens), ms.Tensor([0])))
    np.testing.assert_allclose(g2.asnumpy(), sens @ w, rtol=1e-5)
    with pytest.raises(ValueError, match="one entry per output \\(2\\), but got 1"):
        pair(ms.Tensor(XS), (ms.Tensor(sens),))


def test_grad_operation_agrees_with_value_and_grad():
    net = Net()
    x, y = ms.Tensor(XS), ms.Tensor(YS)
    _, expected = ops.value_and_grad(net, None, net.trainable_params())(x, y)
    got = C.GradOperation(get_by_list=True)(net, net.trainable_params())(x, y)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def test_grad_operation_errors_name_the_argument():
    with pytest.raises(TypeError, match="'get_all' must be a bool, but got 1"):
        ops.GradOperation(get_all=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'fn' must be a Cell or function, but got 3"):
        ops.GradOperation()(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'weights' must be a ParameterTuple"):
        ops.GradOperation(get_by_list=True)(Net(), None)
    with pytest.raises(TypeError, match="no argument was given"):
        ops.GradOperation(sens_param=True)(Net())()
    with pytest.raises(TypeError, match="first input must be a Tensor"):
        ops.GradOperation()(lambda a: a)(2.0)


def test_stop_gradient_and_depend():
    x = ms.Tensor(XS)

    def fn(a):
        return ops.sum(a * ops.stop_gradient(a))

    np.testing.assert_allclose(ops.GradOperation()(fn)(x).asnumpy(), XS, rtol=1e-6)
    assert F.stop_gradient((x, 1))[1] == 1
    marker = []

    def update():
        marker.append(1)
        return True

    assert ops.depend(x, update()) is x
    assert marker == [1]


def test_hyper_map_applies_a_multitype_function_to_every_gradient():
    clip = C.MultitypeFuncGraph("clip_grad")

    @clip.register("Number", "Number", "Tensor")
    def _(lo, hi, grad):
        return C.clip_by_value(grad, lo, hi)

    grads = (ms.Tensor([-3.0, 0.5]), (ms.Tensor([9.0]),))
    out = C.HyperMap()(F.partial(clip, -1.0, 1.0), grads)
    assert out[0].asnumpy().tolist() == [-1.0, 0.5]
    assert out[1][0].asnumpy().tolist() == [1.0]
    assert C.Map()(lambda a, b: a + b, (1, 2), (10, 20)) == (11, 22)
    with pytest.raises(
        TypeError,
        match=r"For 'clip_grad', no registered overload takes arguments of types \('str',\)",
    ):
        clip("x")
    with pytest.raises(ValueError, match="type names must be among"):
        clip.register("Tensr")


def test_clip_by_global_norm():
    a, b = ms.Tensor([3.0, 0.0]), ms.Tensor([4.0])
    out = C.clip_by_global_norm((a, b), 1.0)
    np.testing.assert_allclose(
        np.concatenate([o.asnumpy() for o in out]), [0.6, 0.0, 0.8], rtol=1e-6
    )
    same = C.clip_by_global_norm((a, b), 10.0)
    assert same[0].asnumpy().tolist() == [3.0, 0.0]
    with pytest.raises(ValueError, match="'clip_norm' must be a number > 0, but got 0"):
        C.clip_by_global_norm((a,), 0)


class CustomTrainOneStepCell(nn.Cell):
    """A training step in MindSpore 1.x's operator spelling: the sensitivity from a primitive.

    tests/porting/scripts/custom_train_one_step_cell.py runs the 2.x spelling (`ops.fill`).
    """

    def __init__(self, network, optimizer):
        super().__init__(auto_prefix=False)
        self.network = network
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.grad = C.GradOperation(get_by_list=True, sens_param=True)
        self.ones_like = ops.OnesLike()

    def construct(self, data, label):
        loss = self.network(data, label)
        grads = self.grad(self.network, self.weights)(data, label, self.ones_like(loss))
        return F.depend(loss, self.optimizer(grads))


def _losses(step_cls):
    ms.set_seed(5)
    net = nn.SequentialCell(nn.Dense(3, 8), nn.ReLU(), nn.Dense(8, 4))
    optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = step_cls(nn.WithLossCell(net, loss), optimizer)
    x = ms.Tensor(XS)
    labels = ms.Tensor(np.array([0, 1, 2, 3, 0], np.int32))
    return [float(step(x, labels).asnumpy()) for _ in range(6)]


def test_custom_train_cell_trains_like_the_built_in_one():
    built_in = _losses(nn.TrainOneStepCell)
    custom = _losses(CustomTrainOneStepCell)
    assert custom == built_in
    assert custom[-1] < custom[0]
