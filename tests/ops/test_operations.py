"""Operator classes (`ops.Abs()`, `ops.ReduceMean(keep_dims=True)`, ...): table, results, gradients, errors."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import cadence as ms
from cadence import ops
from cadence.ops import operations as P  # noqa: N812 (MindSpore code spells it so)
from tests.helpers.gradients import numeric_gradient

rng = np.random.default_rng(0)
X = rng.normal(size=(3, 4)).astype(np.float32)
Y = rng.normal(size=(3, 4)).astype(np.float32) + 3.0  # positive: safe for div, log, pow


def t(a):
    return ms.Tensor(a)


# (operator, call arguments, numpy oracle)
CASES = [
    (P.Abs(), (X,), np.abs(X)),
    (P.Neg(), (X,), -X),
    (P.Exp(), (X,), np.exp(X)),
    (P.Log(), (Y,), np.log(Y)),
    (P.Sqrt(), (Y,), np.sqrt(Y)),
    (P.Rsqrt(), (Y,), 1 / np.sqrt(Y)),
    (P.Reciprocal(), (Y,), 1 / Y),
    (P.Square(), (X,), X * X),
    (P.Sign(), (X,), np.sign(X)),
    (P.Add(), (X, Y), X + Y),
    (P.TensorAdd(), (X, Y), X + Y),
    (P.Sub(), (X, Y), X - Y),
    (P.Mul(), (X, Y), X * Y),
    (P.Div(), (X, Y), X / Y),
    (P.RealDiv(), (X, Y), X / Y),
    (P.Pow(), (Y, X), Y**X),
    (P.Maximum(), (X, Y - 3), np.maximum(X, Y - 3)),
    (P.Minimum(), (X, Y - 3), np.minimum(X, Y - 3)),
    (P.SquaredDifference(), (X, Y), (X - Y) ** 2),
    (P.FloorMod(), (X, Y), np.mod(X, Y)),  # the divisor's sign
    (P.Mod(), (X, Y), np.fmod(X, Y)),  # the dividend's sign
    (P.Less(), (X, Y - 3), X < Y - 3),
    (P.GreaterEqual(), (X, Y - 3), X >= Y - 3),
    (P.ReLU(), (X,), np.maximum(X, 0)),
    (P.Sigmoid(), (X,), 1 / (1 + np.exp(-X))),
    (P.Tanh(), (X,), np.tanh(X)),
    (P.Softmax(axis=0), (X,), np.exp(X) / np.exp(X).sum(0)),
    (P.LogSoftmax(), (X,), X - np.log(np.exp(X).sum(1, keepdims=True))),
    (P.MatMul(), (X, Y.T), X @ Y.T),
    (P.MatMul(transpose_b=True), (X, Y), X @ Y.T),
    (P.MatMul(True, False), (X, Y), X.T @ Y),
    (P.BatchMatMul(transpose_a=True), (X[None], Y[None]), (X.T @ Y)[None]),
    (P.BiasAdd(), (X, Y[0, :4]), X + Y[0, :4]),
    (P.ReduceSum(), (X,), X.sum()),
    (P.ReduceSum(keep_dims=True), (X, 1), X.sum(1, keepdims=True)),
    (P.ReduceMean(), (X, (0, 1)), X.mean()),
    (P.ReduceMean(True), (X, 0), X.mean(0, keepdims=True)),
    (P.ReduceMax(), (X, 1), X.max(1)),
    (P.ReduceMin(keep_dims=True), (X,), X.min(keepdims=True)),
    (P.Argmax(), (X,), X.argmax(-1)),
    (P.Argmin(axis=0), (X,), X.argmin(0)),
    (P.Reshape(), (X, (4, -1)), X.reshape(4, 3)),
    (P.Transpose(), (X, (1, 0)), X.T),
    (P.ExpandDims(), (X, 1), X[:, None]),
    (P.Squeeze(), (X[None, :, None],), X),
    (P.Squeeze(axis=0), (X[None],), X),
    (P.Flatten(), (X.reshape(3, 2, 2),), X),
    (P.Concat(1), ((X, Y),), np.concatenate([X, Y], 1)),
    (P.Stack(), ((X, Y),), np.stack([X, Y])),
    (P.Pack(axis=1), ((X, Y),), np.stack([X, Y], 1)),
    (P.Gather(), (X, np.array([2, 0, 2]), 0), X[[2, 0, 2]]),
    (P.Gather(), (X, np.array([1, 3]), 1), X[:, [1, 3]]),
    (P.Pad(((1, 0), (0, 2))), (X,), np.pad(X, ((1, 0), (0, 2)))),
    (P.Sin(), (X,), np.sin(X)),
    (P.Cos(), (X,), np.cos(X)),
    (P.Log1p(), (Y,), np.log1p(Y)),
    (P.Expm1(), (X,), np.expm1(X)),
    (P.Floor(), (X,), np.floor(X)),
    (P.Ceil(), (X,), np.ceil(X)),
    (P.LogicalAnd(), (X > 0, Y > 3.5), (X > 0) & (Y > 3.5)),
    (P.LogicalOr(), (X > 0, Y > 3.5), (X > 0) | (Y > 3.5)),
    (P.LogicalNot(), (X > 0,), X <= 0),
    (P.ReduceAll(), (X > -5,), True),
    (P.ReduceAny(keep_dims=True), (X > 1, 1), (X > 1).any(1, keepdims=True)),
    (P.Select(), (X > 0, X, Y), np.where(X > 0, X, Y)),
    (P.Tile(), (X, (2, 1, 3)), np.tile(X, (2, 1, 3))),
    (P.StridedSlice(), (X, (0, 1), (3, 4), (2, 2)), X[0:3:2, 1:4:2]),
    (P.CumSum(), (X, 1), np.cumsum(X, 1)),
    (
        P.CumSum(exclusive=True, reverse=True),
        (X, 0),
        np.flip(np.cumsum(np.flip(X, 0), 0), 0) - X,
    ),
    (P.ZerosLike(), (X,), np.zeros_like(X)),
    (P.OnesLike(), (X,), np.ones_like(X)),
    (P.Identity(), (X,), X),
]


@pytest.mark.parametrize(
    ("op", "args", "expected"), CASES, ids=[repr(c[0]) for c in CASES]
)
def test_operator_matches_numpy(op, args, expected):
    call = [t(a) if isinstance(a, np.ndarray) else a for a in args]
    if isinstance(args[0], tuple):
        call[0] = tuple(t(a) for a in args[0])
    out = op(*call)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)


class _Bound:
    """An operator with its other arguments fixed; `...` marks where the differentiated input goes."""

    def __init__(self, op, *args):
        has_slot = any(a is ... for a in args)
        self.op, self.args = op, args if has_slot else (..., *args)

    def __call__(self, x):
        return self.op(*(x if a is ... else a for a in self.args))

    def __repr__(self):
        # The function's name, not its repr (an address): test ids must be the same in
        # every process, or pytest-xdist's workers disagree on what they collected.
        return f"{getattr(self.op, '__name__', type(self.op).__name__)}{self.args}"


# Differentiable operators: the gradient through the class equals a finite difference.
GRADIENT_CASES = [
    (P.Abs(), X), (P.Exp(), X), (P.Log(), Y), (P.Sqrt(), Y), (P.Rsqrt(), Y), (P.Reciprocal(), Y),
    (P.Square(), X), (P.Sigmoid(), X), (P.Tanh(), X), (P.Softmax(), X), (P.LogSoftmax(0), X),
    (P.ReduceMean(keep_dims=True), X), (P.ReduceSum(), X), (P.ReduceMax(), X),
    (P.Flatten(), X), (P.Identity(), X), (P.Sin(), X), (P.Cos(), X), (P.Erf(), X),
    (P.Log1p(), Y), (P.Expm1(), X), (_Bound(P.Tile(), (2, 3)), X),
    (_Bound(P.StridedSlice(), (0, 1), (3, 4), (2, 2)), X), (_Bound(P.CumSum(), 1), X),
    (_Bound(P.CumSum(exclusive=True, reverse=True), 0), X),
    (_Bound(P.Select(), t(X > 0), ..., t(Y)), X), (_Bound(P.Select(), t(X > 0), t(Y), ...), X),
    (P.GeLU(), X), (P.Elu(), X), (P.Softplus(), X), (P.HSwish(), X), (P.HSigmoid(), X),
    (P.Softsign(), X), (P.ReLU6(), X * 4), (_Bound(P.SigmoidCrossEntropyWithLogits(), ..., t(Y / 5)), X),
    (_Bound(ops.gelu), X), (_Bound(ops.elu, ..., 0.3), X), (_Bound(ops.softplus, ..., 2.0, 1.0), X),
]  # fmt: skip


@pytest.mark.parametrize(
    ("op", "x"), GRADIENT_CASES, ids=[repr(c[0]) for c in GRADIENT_CASES]
)
def test_operator_gradient_matches_finite_differences(op, x):
    x64 = x.astype(np.float64)
    weights = rng.normal(size=np.shape(op(t(x64)).asnumpy())).astype(np.float64)

    def loss(a):
        return ops.sum(ops.mul(op(a), t(weights)))

    analytic = ops.GradOperation()(loss)(t(x64)).asnumpy()
    np.testing.assert_allclose(
        analytic, numeric_gradient(loss, x64), rtol=1e-4, atol=1e-6
    )


def test_matmul_concat_transpose_gather_pass_gradients():
    a, b = t(X), t(Y)
    grads = ops.GradOperation(get_all=True)(
        lambda p, q: ops.sum(
            P.Gather()(
                P.Concat(0)(
                    (P.MatMul(transpose_b=True)(p, q), P.Transpose()(p @ q.T, (1, 0)))
                ),
                t(np.array([0, 0, 4])),
                0,
            )
        )
    )(a, b)
    # Rows 0 (twice) and row 1 of the transposed product are picked: d/dp of sum of those rows.
    pick = np.zeros((3, 3), np.float32)
    pick[0] += 2
    pick[:, 1] += 1
    np.testing.assert_allclose(grads[0].asnumpy(), pick @ Y, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), pick.T @ X, rtol=1e-5)


def test_non_tensor_results_and_creation():
    x = t(X)
    assert P.Shape()(x) == (3, 4)
    assert P.Rank()(x) == 2
    assert P.Size()(x) == 12
    assert P.DType()(x) == ms.float32
    assert P.Cast()(x, ms.int32).dtype == ms.int32
    assert P.Argmax(output_type=ms.int64)(x).dtype == ms.int64
    np.testing.assert_array_equal(
        P.Fill()(ms.float16, (2, 3), 7).asnumpy(), np.full((2, 3), 7, np.float16)
    )
    assert P.Zeros()((2, 2), ms.int32).dtype == ms.int32
    assert P.Ones()(3, ms.float32).asnumpy().tolist() == [1, 1, 1]
    hot = P.OneHot()(
        t(np.array([0, 2], np.int32)), 3, t(np.float32(1)), t(np.float32(0))
    )
    assert hot.asnumpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    index, value = P.ArgMaxWithValue(axis=1)(x)
    assert index.asnumpy().tolist() == X.argmax(1).tolist()
    assert index.dtype == ms.int64  # as MindSpore 2.x
    np.testing.assert_allclose(value.asnumpy(), X.max(1))


def test_dropout_returns_output_and_mask():
    ms.set_seed(3)
    x = t(np.ones((200, 50), np.float32))
    out, mask = P.Dropout(keep_prob=0.8)(x)
    kept = mask.asnumpy()
    assert mask.dtype == ms.float32  # 0/1 in the input's dtype, as MindSpore's mask
    np.testing.assert_allclose(out.asnumpy(), kept / 0.8, rtol=1e-6)
    assert 0.75 < kept.mean() < 0.85


def test_softmax_cross_entropy_operators():
    logits = t(X)
    labels = np.array([0, 3, 1], np.int32)
    dense = np.eye(4, dtype=np.float32)[labels]
    loss, backprop = P.SoftmaxCrossEntropyWithLogits()(logits, t(dense))
    soft = np.exp(X) / np.exp(X).sum(1, keepdims=True)
    np.testing.assert_allclose(
        loss.asnumpy(), -np.log(soft[range(3), labels]), rtol=1e-5
    )
    np.testing.assert_allclose(backprop.asnumpy(), soft - dense, rtol=1e-5, atol=1e-7)
    mean = P.SparseSoftmaxCrossEntropyWithLogits()(logits, t(labels))
    np.testing.assert_allclose(mean.asnumpy(), loss.asnumpy().mean(), rtol=1e-5)
    grad = P.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(logits, t(labels))
    np.testing.assert_allclose(grad.asnumpy(), (soft - dense) / 3, rtol=1e-5, atol=1e-7)


def test_assign_family_updates_the_parameter_in_place():
    p = ms.Parameter(t(np.zeros(3, np.float32)), name="p")
    assert P.Assign()(p, t(np.array([1, 2, 3], np.float32))) is p
    P.AssignAdd()(p, t(np.ones(3, np.float32)))
    P.AssignSub()(p, 0.5)
    assert p.asnumpy().tolist() == [1.5, 2.5, 3.5]
    with pytest.raises(TypeError, match=r"'Assign'.*'variable' must be a Parameter"):
        P.Assign()(t(X), t(X))


def test_constructors_take_mindspore_arguments_and_check_them():
    op = P.ReduceMean(keep_dims=True)
    assert op.keep_dims is True
    assert op.attrs == {"keep_dims": True}
    assert op.name == "ReduceMean"
    assert repr(op) == "Prim[ReduceMean]<keep_dims=True>"
    assert op.add_prim_attr("fusion", 1) is op
    assert str(inspect.signature(P.MatMul)) == "(transpose_a=False, transpose_b=False)"
    assert P.Concat(1).axis == 1
    assert P.Squeeze([0, 2]).axis == (0, 2)
    with pytest.raises(
        TypeError,
        match=r"For 'ReduceMean', the argument 'keep_dims' must be bool, but got 1 of type 'int'",
    ):
        P.ReduceMean(keep_dims=1)
    with pytest.raises(
        TypeError, match=r"For 'Concat', the argument 'axis' must be int, but got 1.0"
    ):
        P.Concat(1.0)
    with pytest.raises(
        TypeError, match=r"For 'Argmax', the argument 'output_type' must be Type"
    ):
        P.Argmax(output_type="int32")
    with pytest.raises(
        TypeError,
        match=r"For 'Abs', the arguments do not match `Abs\(\)`: too many positional",
    ):
        P.Abs(1)
    with pytest.raises(
        TypeError, match=r"`Pad\(paddings\)`: missing a required argument: 'paddings'"
    ):
        P.Pad()
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'keepdims'"):
        P.ReduceSum(keepdims=True)


def test_every_class_is_an_operator_reachable_from_ops():
    classes = [n for n in P.__all__ if n != "Primitive"]
    assert len(classes) >= 60
    for name in classes:
        cls = getattr(P, name)
        assert issubclass(cls, P.Primitive) and cls.__name__ == name
        assert getattr(ops, name) is cls
        assert inspect.getdoc(cls)


def _conv_reference(x, w, stride, pads, dilation):
    """Direct NCHW cross-correlation in numpy (the test's oracle)."""
    top, bottom, left, right = pads
    x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh = (h - (kh - 1) * dilation[0] - 1) // stride[0] + 1
    ow = (wd - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = i * stride[0] + dilation[0] * np.arange(kh)
            cols = j * stride[1] + dilation[1] * np.arange(kw)
            patch = x[:, :, rows][:, :, :, cols]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


def _pool_reference(x, kernel, stride, reduce):
    n, c, h, w = x.shape
    oh, ow = (h - kernel[0]) // stride[0] + 1, (w - kernel[1]) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            window = x[
                :,
                :,
                i * stride[0] : i * stride[0] + kernel[0],
                j * stride[1] : j * stride[1] + kernel[1],
            ]
            out[:, :, i, j] = reduce(window, axis=(2, 3))
    return out


IMAGES = rng.normal(size=(2, 3, 7, 6)).astype(np.float32)
KERNEL = rng.normal(size=(4, 3, 3, 2)).astype(np.float32)


@pytest.mark.parametrize(
    ("kwargs", "stride", "pads", "dilation"),
    [
        ({}, (1, 1), (0, 0, 0, 0), (1, 1)),
        ({"pad_mode": "same", "stride": 2}, (2, 2), (1, 1, 0, 0), (1, 1)),
        ({"pad_mode": "pad", "pad": (1, 0, 2, 1)}, (1, 1), (1, 0, 2, 1), (1, 1)),
        ({"pad_mode": "pad", "pad": 1, "stride": (1, 2)}, (1, 2), (1, 1, 1, 1), (1, 1)),
        ({"dilation": 2}, (1, 1), (0, 0, 0, 0), (2, 2)),
    ],
)
def test_conv2d_operator_matches_a_direct_convolution(kwargs, stride, pads, dilation):
    out = P.Conv2D(4, (3, 2), **kwargs)(t(IMAGES), t(KERNEL))
    expected = _conv_reference(IMAGES, KERNEL, stride, pads, dilation)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-5)


def test_pooling_operators_match_numpy():
    x = t(IMAGES)
    np.testing.assert_allclose(
        P.MaxPool(2, 2)(x).asnumpy(), _pool_reference(IMAGES, (2, 2), (2, 2), np.max)
    )
    np.testing.assert_allclose(
        P.AvgPool(kernel_size=(2, 3), strides=(1, 2))(x).asnumpy(),
        _pool_reference(IMAGES, (2, 3), (1, 2), np.mean),
        rtol=1e-5,
    )
    # 'same' keeps ceil(size / stride): 7 x 6 -> 4 x 3 (padding never wins a max).
    same = P.MaxPool(kernel_size=3, strides=2, pad_mode="SAME")(x)
    padded = np.pad(IMAGES, ((0, 0), (0, 0), (1, 1), (0, 1)), constant_values=-np.inf)
    np.testing.assert_allclose(
        same.asnumpy(), _pool_reference(padded, (3, 3), (2, 2), np.max)
    )
    with pytest.raises(
        ValueError,
        match=r"'AvgPool'.*'pad_mode' must be one of \['valid'\], but got 'same'",
    ):
        P.AvgPool(2, 2, "same")(x)
    with pytest.raises(
        ValueError, match=r"'Conv2D'.*'weight' must have shape \(5, 3, kh, kw\)"
    ):
        P.Conv2D(5, (3, 2))(x, t(KERNEL))
    with pytest.raises(ValueError, match=r"'Conv2D'.*'group'.*dividing.*but got 2"):
        P.Conv2D(4, (3, 2), group=2)(x, t(KERNEL))
    with pytest.raises(
        ValueError, match="'kernel_size' must be a positive int or a tuple of 2 or 4"
    ):
        P.MaxPool(kernel_size=0)(x)


def test_conv2d_operator_passes_gradients_to_input_and_weight():
    x, w = t(IMAGES.astype(np.float64)), t(KERNEL.astype(np.float64))
    dx, dw = ops.GradOperation(get_all=True)(
        lambda a, b: ops.sum(P.Conv2D(4, (3, 2), pad_mode="same")(a, b))
    )(x, w)
    expected_dw = np.zeros_like(KERNEL, dtype=np.float64)
    padded = np.pad(IMAGES.astype(np.float64), ((0, 0), (0, 0), (1, 1), (0, 1)))
    for i in range(3):
        for j in range(2):
            expected_dw[:, :, i, j] = padded[:, :, i : i + 7, j : j + 6].sum(
                axis=(0, 2, 3)
            )
    np.testing.assert_allclose(dw.asnumpy(), expected_dw, rtol=1e-6)
    assert dx.shape == IMAGES.shape and np.abs(dx.asnumpy()).sum() > 0


def test_split_returns_equal_parts_and_joins_their_gradients():
    x = t(X.astype(np.float64))
    left, right = P.Split(axis=1, output_num=2)(x)
    np.testing.assert_array_equal(left.asnumpy(), X[:, :2])
    np.testing.assert_array_equal(right.asnumpy(), X[:, 2:])
    weights = t(np.arange(6, dtype=np.float64).reshape(3, 2))
    grad = ops.GradOperation()(lambda a: ops.sum(P.Split(1, 2)(a)[1] * weights))(x)
    assert grad.asnumpy()[:, :2].tolist() == [[0, 0]] * 3
    np.testing.assert_array_equal(grad.asnumpy()[:, 2:], weights.asnumpy())
    with pytest.raises(
        ValueError, match=r"'Split'.*divisible by 'output_num', but got 3"
    ):
        P.Split(1, 3)(x)
    with pytest.raises(ValueError, match="masks must be 0"):
        P.StridedSlice(begin_mask=1)(x, (0,), (1,), (1,))


def test_print_writes_each_argument_on_its_own_line(capsys):
    P.Print()("loss:", t(np.array([1.5, 2.0], np.float32)), 3)
    assert capsys.readouterr().out.splitlines() == [
        "loss:",
        "Tensor(shape=[2], dtype=Float32, value= [ 1.50000000e+00,  2.00000000e+00])",
        "3",
    ]
    assert ops.scalar_to_tensor(3).dtype == ms.float32
    assert ops.scalar_to_tensor(3, ms.int32).asnumpy().item() == 3
