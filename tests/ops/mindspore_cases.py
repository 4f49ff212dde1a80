"""Operator calls recorded on MindSpore 2.10 and replayed on cadence (`test_against_mindspore.py`).

`cases(ms, ops, Tensor)` builds the calls from either framework's modules, so the
same code runs on both. `python tests/ops/mindspore_cases.py out.json` run with a
MindSpore interpreter writes `mindspore_ops.json`, the recorded results: MindSpore is
the oracle, and the file is regenerated, never edited by hand.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import numpy as np


def cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803 (the frameworks' class name)
    """Return name -> zero-argument call, for the framework whose modules are given."""
    rng = np.random.default_rng(0)
    x_np = rng.normal(size=(3, 4)).astype(np.float32)
    y_np = np.abs(rng.normal(size=(3, 4)).astype(np.float32)) + 1
    x, y = Tensor(x_np), Tensor(y_np)
    images = Tensor(rng.normal(size=(2, 3, 7, 6)).astype(np.float32))
    kernel = Tensor(rng.normal(size=(4, 3, 3, 2)).astype(np.float32))
    labels = Tensor(np.array([0, 3, 1], np.int32))
    dense_labels = Tensor(np.eye(4, dtype=np.float32)[[0, 3, 1]])
    return {
        "ReduceMean keep_dims": lambda: ops.ReduceMean(keep_dims=True)(x, 1),
        "ReduceSum all": lambda: ops.ReduceSum()(x),
        "ReduceMax axis tuple": lambda: ops.ReduceMax()(x, (0,)),
        "Argmax": lambda: ops.Argmax()(x),
        "Argmin axis 0": lambda: ops.Argmin(axis=0)(x),
        "ArgMaxWithValue": lambda: ops.ArgMaxWithValue(axis=1)(x),
        "MatMul transpose_b": lambda: ops.MatMul(transpose_b=True)(x, y),
        "BatchMatMul transpose_a": lambda: ops.BatchMatMul(transpose_a=True)(
            ops.ExpandDims()(x, 0), ops.ExpandDims()(y, 0)
        ),
        "BiasAdd NCHW": lambda: ops.BiasAdd()(ops.Reshape()(x, (3, 4, 1, 1)), y[0]),
        "Concat": lambda: ops.Concat(1)((x, y)),
        "Stack": lambda: ops.Stack(axis=1)((x, y)),
        "Squeeze": lambda: ops.Squeeze(0)(ops.ExpandDims()(x, 0)),
        "Flatten": lambda: ops.Flatten()(ops.Reshape()(x, (3, 2, 2))),
        "Transpose": lambda: ops.Transpose()(x, (1, 0)),
        "Gather axis 1": lambda: ops.Gather()(x, Tensor(np.array([3, 1], np.int32)), 1),
        "Pad": lambda: ops.Pad(((1, 0), (0, 1)))(x),
        "OneHot": lambda: ops.OneHot()(
            labels, 4, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32)
        ),
        "Fill": lambda: ops.Fill()(ms.float32, (2, 2), 3.0),
        "Shape": lambda: ops.Shape()(x),
        "Cast": lambda: ops.Cast()(x, ms.int32),
        "SoftmaxCrossEntropyWithLogits": lambda: ops.SoftmaxCrossEntropyWithLogits()(
            x, dense_labels
        ),
        "SparseSoftmaxCrossEntropyWithLogits": lambda: ops.SparseSoftmaxCrossEntropyWithLogits()(
            x, labels
        ),
        "SparseSoftmaxCrossEntropyWithLogits is_grad": lambda: ops.SparseSoftmaxCrossEntropyWithLogits(
            is_grad=True
        )(x, labels),
        "Softmax axis 0": lambda: ops.Softmax(axis=0)(x),
        "LogSoftmax": lambda: ops.LogSoftmax()(x),
        "FloorMod": lambda: ops.FloorMod()(x, Tensor(np.float32(0.7))),
        "Mod": lambda: ops.Mod()(x, Tensor(np.float32(0.7))),
        "FloorDiv": lambda: ops.FloorDiv()(x, Tensor(np.float32(0.7))),
        "Sign": lambda: ops.Sign()(x),
        "Rsqrt": lambda: ops.Rsqrt()(y),
        "SquaredDifference": lambda: ops.SquaredDifference()(x, y),
        "Conv2D valid": lambda: ops.Conv2D(4, (3, 2))(images, kernel),
        "Conv2D same stride 2": lambda: ops.Conv2D(4, (3, 2), pad_mode="same", stride=2)(images, kernel),
        "Conv2D pad": lambda: ops.Conv2D(4, (3, 2), pad_mode="pad", pad=(1, 0, 2, 1))(images, kernel),
        "Conv2D dilation": lambda: ops.Conv2D(4, (3, 2), dilation=2)(images, kernel),
        "MaxPool": lambda: ops.MaxPool(kernel_size=2, strides=2)(images),
        "MaxPool same": lambda: ops.MaxPool(kernel_size=3, strides=2, pad_mode="SAME")(images),
        "AvgPool": lambda: ops.AvgPool(kernel_size=(2, 3), strides=(1, 2))(images),
        "Sin Cos Erf": lambda: (ops.Sin()(x), ops.Cos()(x), ops.Erf()(x)),
        "Log1p Expm1 Floor Ceil": lambda: (ops.Log1p()(y), ops.Expm1()(x), ops.Floor()(x), ops.Ceil()(x)),
        "Logic": lambda: (ops.LogicalAnd()(x > 0, y > 1.5), ops.LogicalNot()(x > 0), ops.ReduceAny(keep_dims=True)(x > 1, 1), ops.ReduceAll()(x > -5)),
        "Select": lambda: ops.Select()(x > 0, x, y),
        "Tile": lambda: ops.Tile()(x, (2, 1, 3)),
        "Split": lambda: ops.Split(axis=1, output_num=2)(x),
        "StridedSlice": lambda: ops.StridedSlice()(x, (0, 1), (3, 4), (2, 2)),
        "CumSum": lambda: (ops.CumSum()(x, 1), ops.CumSum(exclusive=True, reverse=True)(x, 0)),
        "GradOperation through Tile and Select": lambda: ops.GradOperation(get_all=True)(
            lambda a, b: (ops.Tile()(ops.Select()(a > 0, a, b), (2, 2)) * 3).sum()
        )(x, y),
        "Activation classes": lambda: (ops.ReLU6()(x * 4), ops.GeLU()(x), ops.Elu()(x), ops.Softplus()(x * 20),
                                       ops.HSigmoid()(x * 3), ops.HSwish()(x * 3), ops.Softsign()(x)),
        "Activation functions": lambda: (ops.gelu(x), ops.gelu(x, approximate="tanh"), ops.elu(x, 1.0), ops.softplus(x * 20),
                                         ops.relu6(x * 4), ops.softsign(x)),
        "SigmoidCrossEntropyWithLogits": lambda: ops.SigmoidCrossEntropyWithLogits()(x * 10, ops.Sigmoid()(y)),
        "GradOperation through activations": lambda: ops.GradOperation()(
            lambda a: (ops.GeLU()(a) + ops.Elu()(a) + ops.Softplus()(a) + ops.HSwish()(a)).sum()
        )(x),
        "BatchMatMul 4-D transpose_b": lambda: ops.BatchMatMul(transpose_b=True)(ops.Reshape()(x, (1, 3, 2, 2)), ops.Reshape()(y, (1, 3, 2, 2))),
        "bmm": lambda: ops.bmm(ops.Reshape()(x, (2, 3, 2)), ops.Reshape()(y, (2, 2, 3))),
        "split sizes and sections": lambda: (*ops.split(x, 2, 0), *ops.split(x, [1, 3], 1)),
        "masked_fill and MaskedFill": lambda: (ops.masked_fill(x, x > 0, Tensor(np.float32(-1.0))), ops.MaskedFill()(x, y > 1.5, Tensor(np.float32(2.0)))),
        "where gather one_hot tile erf": lambda: (ops.where(x > 0, x, y), ops.gather(x, Tensor(np.array([3, 1], np.int32)), 1),
                                                  ops.one_hot(labels, 4, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32)), ops.tile(x, (2, 1)), ops.erf(x)),
        "Smooth activations": lambda: (ops.silu(x), ops.leaky_relu(x, 0.3), ops.prelu(x, y[0] - 1.5), ops.PReLU()(x, y[0] - 1.5)),
        "GradOperation through attention ops": lambda: ops.GradOperation(get_all=True)(
            lambda a, b: (ops.bmm(ops.Reshape()(a, (2, 3, 2)), ops.Reshape()(b, (2, 2, 3))).sum() + ops.silu(a).sum()
                          + ops.leaky_relu(b, 0.3).sum() + ops.prelu(a, b[0]).sum() + ops.masked_fill(a * b, a > 0, Tensor(np.float32(0.5))).sum()
                          + ops.split(a * 2, [1, 3], 1)[1].sum() + ops.gelu(b).sum())
        )(x, y),
        "LayerNorm operator": lambda: (*ops.LayerNorm(1, 1)(ops.Reshape()(x, (3, 2, 2)), ops.Reshape()(y[0], (2, 2)), ops.Reshape()(y[1], (2, 2))),
                                       *ops.LayerNorm(-1, -1, 1e-5)(x, y[0], y[1]), *ops.LayerNorm(1, 2)(ops.Reshape()(x, (3, 2, 2)), y[0, :2], y[1, :2])),
        "group_norm": lambda: (ops.group_norm(ops.Reshape()(x, (3, 4, 1)), 2), ops.group_norm(ops.Reshape()(x, (3, 4, 1)), 2, y[0], y[1], 1e-3)),
        "GradOperation through LayerNorm and group_norm": lambda: ops.GradOperation(get_all=True)(
            lambda a, b: (ops.LayerNorm(-1, -1)(a, b[0], b[1])[0] * b).sum() + (ops.group_norm(ops.Reshape()(a, (3, 4, 1)), 2, b[2], b[0]) * 2.0).sum()
        )(x, y),
        "Dense": lambda: ops.Dense()(x, y, y[0, :3]),
        "BatchNorm inference": lambda: ops.BatchNorm()(images, kernel[0, :, 0, 0], kernel[1, :, 0, 0], kernel[2, :, 0, 0], ops.Abs()(kernel[3, :, 0, 0])),
        "BatchNorm training": lambda: _batch_norm_training(ms, ops, Tensor, images, kernel),
        "GradOperation get_all": lambda: ops.GradOperation(get_all=True)(
            lambda a, b: (a * b).sum()
        )(x, y),
        "GradOperation tuple output": lambda: ops.GradOperation()(lambda a: (a * 2, a * 3))(x),
        "GradOperation sens_param": lambda: ops.GradOperation(sens_param=True)(lambda a: a * 2)(x, y),
        "stop_gradient": lambda: ops.GradOperation()(
            lambda a: (a * ops.stop_gradient(a)).sum()
        )(x),
        **_zoo_conv_cases(ms, ops, Tensor),
        **_porting_cases(ms, ops, Tensor),
        **_model_zoo_op_cases(ms, ops, Tensor),
        **_creation_cases(ms, ops, Tensor),
        **_script_gap_cases(ms, ops, Tensor),
        **_script_loss_cases(ms, ops, Tensor),
        **_script_cell_cases(ms, ops, Tensor),
        **_signature_cases(ms, ops, Tensor),
    }  # fmt: skip


def _script_cell_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """The cells public scripts stopped at: AvgPool1d, MaxPool1d, PixelShuffle, Upsample."""
    rng = np.random.default_rng(1128)  # its own stream, as `_zoo_conv_cases`
    nn = ms.nn
    line = Tensor(rng.normal(size=(2, 3, 7)).astype(np.float32))
    image = Tensor(rng.normal(size=(1, 8, 2, 3)).astype(np.float32))
    taps = Tensor(rng.normal(size=(2, 3, 4)).astype(np.float32))
    weights = Tensor(rng.normal(size=(1, 2, 4, 6)).astype(np.float32))

    def grads(a: Any, b: Any) -> Any:
        return (
            (nn.AvgPool1d(3, 2, "pad", 1, True, False)(a) * taps).sum()
            + (nn.MaxPool1d(2, 2, "pad", 1, 2, ceil_mode=True)(a) * taps).sum()
            + (nn.AvgPool1d(3, 2, "same")(a) ** 2).sum()
            + (nn.PixelShuffle(2)(b) * weights).sum()
            + (nn.Upsample((3, 5), mode="bilinear")(b) ** 2).sum()
        )

    return {
        "AvgPool1d avg_pool1d": lambda: (nn.AvgPool1d(3, 2)(line), nn.AvgPool1d(3, 2, "same")(line), nn.AvgPool1d(3, 2, "pad", 1)(line), nn.AvgPool1d(3, 2, "pad", 1, True, False)(line),
                                         nn.AvgPool1d(2)(line[0]), nn.AvgPool1d((4,), 3, ceil_mode=True)(line), ops.avg_pool1d(line, 3, 2, 1, True, False)),
        "MaxPool1d": lambda: (nn.MaxPool1d(3, 2)(line), nn.MaxPool1d(3, 2, "same")(line), *nn.MaxPool1d(3, 2, "pad", 1, return_indices=True)(line),
                              *nn.MaxPool1d(2, 2, "pad", 1, dilation=2, return_indices=True, ceil_mode=True)(line), nn.MaxPool1d(2, 2)(line[1])),
        "PixelShuffle Upsample": lambda: (nn.PixelShuffle(2)(image), ops.pixel_shuffle(image[0], 2), nn.Upsample(size=(3, 5), mode="bilinear")(image),
                                          nn.Upsample(size=(4, 5), mode="bilinear", align_corners=True)(image), nn.Upsample(size=(4, 6))(image)),
        "GradOperation through AvgPool1d MaxPool1d PixelShuffle Upsample": lambda: ops.GradOperation(get_all=True)(grads)(line, image),
    }  # fmt: skip


def _script_loss_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """The loss cells public scripts stopped at: BCELoss, HuberLoss, CosineEmbeddingLoss, FocalLoss."""
    rng = np.random.default_rng(1127)  # its own stream, as `_zoo_conv_cases`
    nn = ms.nn
    p = Tensor(rng.uniform(0.02, 0.98, size=(3, 4)).astype(np.float32))
    y = Tensor((rng.uniform(size=(3, 4)) > 0.5).astype(np.float32))
    w = Tensor(
        rng.uniform(0.5, 2.0, size=(3, 4)).astype(np.float32)
    )  # full shape: MindSpore 2.10 mis-broadcasts a (4,) weight
    x1 = Tensor(rng.normal(size=(4, 3)).astype(np.float32))
    x2 = Tensor(rng.normal(size=(4, 3)).astype(np.float32))
    pairs = Tensor(np.array([1, -1, -1, 1], np.int32))
    logits = Tensor(rng.normal(size=(2, 3, 2, 2)).astype(np.float32))
    classes = Tensor(rng.integers(0, 3, size=(2, 1, 2, 2)).astype(np.int32))
    soft = Tensor(rng.uniform(size=(4, 3)).astype(np.float32))
    hot = Tensor(np.eye(3, dtype=np.float32)[[0, 2, 1, 1]])
    cw = Tensor(np.array([1.0, 2.0, 0.5], np.float32))

    def grads(a: Any, b: Any, c: Any) -> Any:
        return (
            nn.BCELoss(w)(a, y)
            + nn.HuberLoss(delta=0.3)(a * 3, y)
            + nn.CosineEmbeddingLoss(0.1)(b, x2, pairs)
            + nn.FocalLoss(cw, 1.5)(c, classes)
            + nn.FocalLoss(cw, reduction="sum")(b * 2, soft)
        )

    return {
        "BCELoss binary_cross_entropy": lambda: (nn.BCELoss()(p, y), nn.BCELoss(w, "none")(p, y), nn.BCELoss(reduction="sum")(p, y),
                                                 ops.binary_cross_entropy(p, y, w), nn.BCELoss(reduction="none")(Tensor(np.array([0.0, 1.0, 0.5], np.float32)), Tensor(np.array([1.0, 0.0, 1.0], np.float32)))),
        "HuberLoss huber_loss": lambda: (nn.HuberLoss()(p * 3, y), nn.HuberLoss("none", 0.3)(p * 3, y), nn.HuberLoss("sum", 2.0)(x1, x2), ops.huber_loss(p, y[0], delta=0.1)),
        "CosineEmbeddingLoss": lambda: (nn.CosineEmbeddingLoss()(x1, x2, pairs), nn.CosineEmbeddingLoss(-0.5, "none")(x1, x2, pairs), ops.cosine_embedding_loss(x1, x1 * 2, pairs, 0.2, "sum"),
                                        nn.CosineEmbeddingLoss(reduction="none")(logits, logits[::-1], Tensor(np.array([[[1, -1], [-1, 1]], [[1, 1], [-1, -1]]], np.int32)))),
        "FocalLoss": lambda: (nn.FocalLoss()(logits, classes), nn.FocalLoss(cw, 0.5, "none")(logits, classes), nn.FocalLoss(reduction="none")(x1, hot),
                              nn.FocalLoss(cw, 1.0, "sum")(x1, Tensor(np.array([[0], [2], [1], [1]], np.int64))), nn.FocalLoss(gamma=0.0)(x1[:3, :2], Tensor(np.array([[1.0], [0.0], [1.0]], np.float32))),
                              nn.FocalLoss(cw, reduction="none")(x1, soft)),
        "GradOperation through BCELoss HuberLoss CosineEmbeddingLoss FocalLoss": lambda: ops.GradOperation(get_all=True)(grads)(p, x1, logits),
    }  # fmt: skip


def _script_gap_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """What public scripts stopped at: gather_elements, max/min, chunk, tensor_dot, isclose, losses, random ops."""
    rng = np.random.default_rng(1126)  # its own stream, as `_zoo_conv_cases`
    x = Tensor(rng.normal(size=(3, 4)).astype(np.float32))
    cube = Tensor(rng.normal(size=(2, 3, 4)).astype(np.float32))
    index = Tensor(np.array([[0, 2, 3], [1, 1, 0], [-1, 3, 2]], np.int32))
    rows = Tensor(np.array([[2, 0, 1, 2], [0, 0, 2, 1]], np.int64))
    near = x + Tensor(np.array([0.0, 1e-6, 1e-3, 0.0], np.float32))
    odd = Tensor(np.array([np.nan, np.inf, -np.inf, 1.0], np.float32))
    mask = Tensor(np.array([True, False, True, True]))

    def shapes(*tensors: Any) -> Any:
        return tuple((str(t.dtype), t.shape) for t in tensors)

    return {
        "gather_elements GatherD Tensor.gather_elements": lambda: (ops.gather_elements(x, 1, index), ops.gather_elements(x, 0, rows), ops.GatherD()(cube, -1, Tensor(np.zeros((2, 3, 6), np.int32))),
                                                                   x.gather_elements(1, index[:, :1]), ops.gather_elements(Tensor(np.arange(6, dtype=np.int32).reshape(2, 3)), 1, rows[:, :2])),
        "max min with indices": lambda: (*ops.max(x, 1), *ops.min(x, 0, True), *ops.max(x), *ops.min(cube, -1), *ops.max(x, 1, initial=0.5), *ops.min(x, 1, initial=0.0, where=mask),
                                         *ops.max(Tensor(np.array([[1, 5], [7, 2]], np.int32)), 1)),
        "chunk": lambda: (ops.chunk(x, 2, 1), ops.chunk(x, 3, 1), ops.chunk(x, 2), ops.chunk(cube, 5, -1)),
        "tensor_dot": lambda: (ops.tensor_dot(x, cube, ((0, 1), (1, 2))), ops.tensor_dot(cube, ops.transpose(x, (1, 0)), 1), ops.tensor_dot(x, cube, 0), ops.tensor_dot(cube, cube, ((2, 0), (2, 0))),
                               ops.tensor_dot(x, x, (0, 0))),
        "isclose": lambda: (ops.isclose(x, near), ops.isclose(x, near, rtol=0.0, atol=1e-4), ops.isclose(odd, odd), ops.isclose(odd, odd, equal_nan=True), ops.isclose(x, x[0])),
        "mse_loss L2Loss": lambda: (ops.mse_loss(x, near * 2), ops.mse_loss(x, x[0], "sum"), ops.mse_loss(x, x * 3, reduction="none"),
                                    ops.mse_loss(Tensor(np.array([1, 4], np.int32)), Tensor(np.array([2, 2], np.int32))), ops.L2Loss()(x), ops.L2Loss()(Tensor(np.float16(3.0)))),
        "GradOperation through gather_elements max min tensor_dot chunk losses": lambda: ops.GradOperation(get_all=True)(
            lambda a, b: (ops.gather_elements(a, 1, index) * 2).sum() + ops.max(a, 1)[0].sum() + (ops.min(b, 0)[0] * 3).sum() + ops.tensor_dot(a, b, ((0,), (0,))).sum()
                         + (ops.chunk(a, 3, 1)[1] * 5).sum() + ops.mse_loss(a, b) + ops.L2Loss()(b)
        )(x, near),
        "random ops shapes and dtypes": lambda: shapes(ops.rand(2, 3), ops.rand((4,), dtype=ms.float16), ops.rand(), ops.randn(2, dtype=ms.float64), ops.randn((1, 2), seed=5),
                                                       ops.randint(0, 5, (2, 3)), ops.randint(-3, 2, (4,), seed=1, dtype=ms.int32),
                                                       ops.uniform((2, 3), Tensor(1.0), Tensor(2.0)), ops.uniform((3,), Tensor(5, ms.int32), Tensor(10, ms.int32), dtype=ms.int32),
                                                       ops.normal((2, 3), Tensor(1.0), Tensor(2.0)), ops.normal((2, 3), Tensor(np.array([[1.0], [5.0]], np.float32)), 0.5),
                                                       ops.StandardNormal()((2, 3)), ops.StandardNormal(seed=2)(Tensor(np.array([3], np.int32))), ops.UniformReal(3, 4)((0, 2)),
                                                       ops.UniformInt()((2, 2), Tensor(1, ms.int32), Tensor(5, ms.int32))),
    }  # fmt: skip


def _signature_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """Arguments and names found beside the porting scripts: `ops.sum`'s dim/keepdim/dtype, `ops.pad`'s flat widths, padded max pooling, `full_like`, `addn`, `Tensor.long/chunk/split`."""
    rng = np.random.default_rng(1526)  # its own stream, as `_zoo_conv_cases`
    nn = ms.nn
    cube = Tensor(rng.normal(size=(2, 3, 4)).astype(np.float32))
    im = Tensor(rng.normal(size=(2, 3, 5, 6)).astype(np.float32))
    sx = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    return {
        "full_like addn AddN": lambda: (ops.full_like(sx, 2), ops.full_like(sx, 1.5, dtype=ms.int32), ops.addn([sx, sx, sx]), ops.AddN()((sx, sx)),
                                        ops.GradOperation(get_all=True)(lambda a, b: ops.addn([a, b, a]).sum())(sx, sx + 1)),
        "Tensor long chunk split": lambda: (sx.long(), *sx.chunk(2, 1), *sx.split(1, 0), *sx.split([1, 2], 1)),
        "sum dim keepdim dtype": lambda: (ops.sum(cube), ops.sum(cube, dim=1), ops.sum(cube, (0, 2), True), ops.sum(cube, dim=-1, keepdim=True, dtype=ms.float64),
                                          ops.sum(cube > 0), ops.sum(Tensor(np.arange(6, dtype=np.int32)), dim=0)),
        "pad flat widths and modes": lambda: (ops.pad(cube, (1, 2)), ops.pad(cube, [2, 0, 1, 1], value=-3.0), ops.pad(cube, (1, -1, 0, 0, -1, 1)),
                                              ops.pad(cube, (1, 2), mode="reflect"), ops.pad(cube, (3, 1, 0, 2), mode="replicate"), ops.pad(cube, (2, 4), mode="circular")),
        "GradOperation through pad modes": lambda: ops.GradOperation()(
            lambda a: (ops.pad(a, (2, 1), mode="reflect") * 2).sum() + (ops.pad(a, (1, 3, 1, 0), mode="replicate") * 3).sum()
            + (ops.pad(a, (0, 2)) * ops.pad(a, (0, 2))).sum()
        )(cube),
        "MaxPool2d pad_mode pad": lambda: (nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)(im), nn.MaxPool2d(3, 1, pad_mode="pad", padding=(1, 0))(im),
                                           nn.MaxPool2d(2, 2, pad_mode="pad", padding=(1,))(-im)),
        "Softmax one-int tuple axis": lambda: (ops.Softmax(axis=(-1,))(cube), ops.Softmax((1,))(cube)),
    }  # fmt: skip


def _creation_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """The MindSpore 2.x functions a newcomer's scripts called: creators, triangles, clamp, comparisons."""
    rng = np.random.default_rng(1114)  # its own stream, as `_zoo_conv_cases`
    x = Tensor(rng.normal(size=(3, 4)).astype(np.float32))
    cube = Tensor(rng.normal(size=(2, 3, 3)).astype(np.float32))
    ints = Tensor(np.array([-2, 0, 3], np.int32))
    return {
        "arange": lambda: (ops.arange(5), ops.arange(1, 4), ops.arange(0, 1, 0.25), ops.arange(0.0, 3), ops.arange(5, dtype=ms.float32),
                           ops.arange(end=3), ops.arange(Tensor(3)), ops.arange(4, 0, -1.5)),
        "linspace eye full": lambda: (ops.linspace(0, 1, 5), ops.linspace(Tensor(0, ms.float32), Tensor(1, ms.float32), 3), ops.linspace(2, 3, 1),
                                      ops.eye(2), ops.eye(2, 3, ms.int32), ops.full((2,), 7), ops.full([2, 1], 7, dtype=ms.float32)),
        "tril triu of a matrix and a stack": lambda: (ops.tril(x), ops.tril(x, -1), ops.triu(x, 1), ops.triu(cube), ops.tril(cube, 2)),
        "clamp unsqueeze and comparisons": lambda: (ops.clamp(x, -0.5, 0.5), ops.clamp(x, min=0.0), ops.clamp(x, max=Tensor(np.float32(0.1))), ops.clamp(ints, -1, 1),
                                                    ops.unsqueeze(x, dim=-1), ops.unsqueeze(x, 0), ops.gt(x, 0), ops.ge(x, x[0]), ops.lt(ints, 0), ops.le(ints, 0)),
        "GradOperation through tril triu clamp unsqueeze": lambda: ops.GradOperation()(
            lambda a: (ops.tril(a) * 2 + ops.triu(a, 1) * 3 + ops.clamp(a, -0.5, 0.5) * 5).sum() + (ops.unsqueeze(a, 1) * 7).sum()
        )(x),
    }  # fmt: skip


def _porting_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """Issue 23's porting gaps: norms, broadcasting, repeats, ranking, adaptive max pooling, ClipByNorm."""
    rng = np.random.default_rng(2310)  # its own stream, as `_zoo_conv_cases`
    nn, inf = ms.nn, float("inf")
    x = Tensor(rng.normal(size=(3, 4)).astype(np.float32))
    cube = Tensor(rng.normal(size=(2, 3, 4)).astype(np.float32))
    im = Tensor(rng.normal(size=(2, 3, 5, 7)).astype(np.float32))
    counts = Tensor(np.array([1, 2, 0, 3], np.int32))
    ints = Tensor(np.array([1, 2, 3], np.int32))
    odd = Tensor(np.array([1.0, np.inf, -np.inf, np.nan], np.float32))

    def grads(a: Any, b: Any) -> Any:
        return (
            (ops.norm(a, dim=1) * 2).sum()
            + ops.norm(a, "fro")
            + ops.topk(a, 2)[0].sum() * 3
            + (ops.broadcast_to(a[:, :1], (-1, 4)) * b).sum()
            + (ops.repeat_interleave(a, counts, 1) ** 2).sum()
            + (ops.cumsum(a, 0) * b).sum()
            + (nn.ClipByNorm()(a, Tensor(np.float32(1.0))) * b).sum()
            + (
                ops.AdaptiveMaxPool2D((2, 3))(ops.reshape(a * b, (1, 1, 3, 4)))[0] * 5
            ).sum()
        )

    return {
        "ClipByNorm all axes": lambda: (nn.ClipByNorm()(x, Tensor(np.float32(1.5))), nn.ClipByNorm(axis=(0, 1))(x * 9, Tensor(np.float32(2.0)))),
        "AdaptiveAvgPool2D and AdaptiveMaxPool2D": lambda: (ops.AdaptiveAvgPool2D((2, 3))(im), ops.AdaptiveAvgPool2D((None, 3))(im), *ops.AdaptiveMaxPool2D((2, 3))(im),
                                                             *nn.AdaptiveMaxPool2d((3, 4), True)(im), nn.AdaptiveMaxPool2d(2)(im), ops.adaptive_max_pool2d(im[0], (4, None))),
        "norm orders": lambda: (ops.norm(x), ops.norm(x, dim=1, keepdim=True), ops.norm(x, 1, 1), ops.norm(x, inf, 1), ops.norm(x, -inf, 1), ops.norm(x, "fro"),
                                ops.norm(x, "nuc"), ops.norm(x, 2), ops.norm(x, -2), ops.norm(x, 1), ops.norm(x, -1), ops.norm(x, inf), ops.norm(x, -inf),
                                ops.norm(x, 3, dim=0), ops.norm(x, 0, dim=0), x.norm(dim=0), ops.norm(cube, dim=(1, 2)), ops.norm(cube, "nuc", (0, 2), True),
                                ops.norm(cube, 1, (2, 0)), ops.norm(x[0], 3.5)),
        "broadcast_to and expand_as": lambda: (ops.broadcast_to(x[:, :1], (-1, 4)), ops.BroadcastTo((2, 3, 4))(x), x[0].broadcast_to((2, 3, 4)),
                                               x[0].expand_as(x), ops.expand_as(x[:, :1], x)),
        "repeat_interleave": lambda: (ops.repeat_interleave(x, 2), ops.repeat_interleave(x, counts, 1), x.repeat_interleave(2, 0)),
        "cumsum": lambda: (ops.cumsum(x, 1), ops.cumsum(x, 0, dtype=ms.float64), x.cumsum(1), x.cumsum(), ops.cumsum(ints, 0)),
        "topk and TopK": lambda: (*ops.topk(x, 2), *ops.topk(x, 2, dim=0, largest=False), *ops.TopK()(x, 3), *x.topk(1)),
        "argmax dim keepdim": lambda: (ops.argmax(x, dim=1, keepdim=True), ops.argmax(x), ops.argmax(x, keepdim=True), x.argmax(1, True), x.argmax(axis=0)),
        "Flatten start_dim end_dim": lambda: (nn.Flatten(0, 1)(cube), nn.Flatten(start_dim=1, end_dim=2)(im), nn.Flatten()(im)),
        "GradOperation through porting ops": lambda: ops.GradOperation(get_all=True)(grads)(x, x * 0.5 + 1),
        "GatherNd and gather_nd": lambda: (ops.GatherNd()(cube, Tensor(np.array([[0, 1], [1, 2]], np.int32))), ops.gather_nd(cube, Tensor(np.array([[[1, 0, 3]]], np.int32))),
                                           ops.GradOperation()(lambda a: (ops.gather_nd(a, Tensor(np.array([[0], [0]], np.int32))) * 2).sum())(cube)),
        "IsFinite isnan isinf Depend": lambda: (ops.IsFinite()(odd), ops.isfinite(odd), ops.isnan(odd), ops.isinf(odd), ops.IsNan()(odd), ops.IsInf()(odd), ops.Depend()(x, odd)),
        "numpy creators": lambda: (ms.numpy.zeros((2, 3)), ms.numpy.zeros(2, dtype="int32"), ms.numpy.ones((1, 2), ms.float16), ms.numpy.full((2,), 1.5),
                                   ms.numpy.full((2,), 3), ms.numpy.arange(3), ms.numpy.arange(0, 1, 0.25), ms.numpy.zeros_like(x), ms.numpy.ones_like(ints)),
    }  # fmt: skip


def _model_zoo_op_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """The operators the model zoo's scripts called that cadence lacked (einsum: MindSpore has no CPU kernel)."""
    rng = np.random.default_rng(1014)  # its own stream, as `_zoo_conv_cases`
    x = Tensor(rng.normal(size=(3, 4)).astype(np.float32))
    pts = Tensor(rng.normal(size=(2, 3, 4)).astype(np.float32))
    im = Tensor(rng.normal(size=(1, 2, 3, 5)).astype(np.float32))
    line = Tensor(rng.normal(size=(2, 3, 5)).astype(np.float32))
    vol = Tensor(rng.normal(size=(1, 1, 2, 3, 4)).astype(np.float32))
    ties = Tensor(np.array([[3, 1, 2, 3], [0, 5, 0, -1]], np.float32))
    ints = Tensor(np.array([3, 1, 2, 3, 1], np.int32))
    cols = Tensor(np.array([2, 0, 2], np.int32))
    where = Tensor(np.array([[0, 1], [2, 3], [1, 0]], np.int64))

    def grads(a: Any, b: Any) -> Any:
        return (
            (ops.sort(a, 0, True)[0] * b).sum()
            + (ops.Sort()(a)[0] ** 2).sum()
            + (ops.cumprod(a, 1) * b).sum()
            + (ops.CumProd(True, True)(a, 0) * b).sum()
            + ops.std(a, 1, 1).sum()
            + ops.var(a) * 3
            + (ops.tril(a, 1) * b).sum()
            + (ops.triu(a) * b).sum() * 2
            + (ops.index_select(a, 1, cols) ** 2).sum()
            + (ops.scatter(a, 1, where, b[:, :2] * 3) * b).sum()
            + ops.cdist(a, b[:2]).sum()
            + ops.cdist(a, b, 1.0).sum()
            + (ops.L2Normalize(1)(a) * b).sum()
            + (ops.Unstack(1)(a)[2] * b[:, 0]).sum()
            + (
                ops.interpolate(
                    ops.reshape(a, (1, 1, 3, 4)), size=(5, 7), mode="bilinear"
                )
                ** 2
            ).sum()
            + (
                ops.interpolate(
                    ops.reshape(a, (1, 3, 4)), size=6, mode="linear", align_corners=True
                )
                ** 2
            ).sum()
            + (
                ops.interpolate(ops.reshape(a * b, (1, 1, 3, 4)), size=(6, 8)) ** 2
            ).sum()
        )

    return {
        "arange range Range": lambda: (ops.arange(5), ops.arange(0, 1, 0.25), ops.arange(1, 6, 2, dtype=ms.float32), ops.arange(5, 0, -2), ops.arange(0.5, 3),
                                       ops.Range()(Tensor(0, ms.int32), Tensor(10, ms.int32), Tensor(3, ms.int32)), ops.Range()(Tensor(0.0), Tensor(1.0), Tensor(0.3)),
                                       ops.range(Tensor(0, ms.int32), Tensor(10, ms.int32), Tensor(4, ms.int32))),
        "eye Eye": lambda: (ops.eye(3), ops.eye(2, 3, ms.int32), ops.Eye()(2, 3, ms.float32), ops.eye(2, dtype=ms.int64)),
        "tril triu": lambda: (ops.tril(x, 1), ops.triu(x, -1), ops.tril(pts, -1), ops.triu(pts, 2), x.tril(), x.triu(diagonal=1)),
        "sort Sort": lambda: (*ops.sort(ties), *ops.sort(ties, 0, True), *ops.Sort(descending=True)(ties[0]), *ops.sort(ints), *x.sort(axis=0)),
        "unique": lambda: (*ops.unique(ints), *ops.unique(ties)),
        "unstack Unstack": lambda: (*ops.unstack(x, 1), *ops.Unstack(axis=-1)(pts)),
        "cumprod CumProd": lambda: (ops.cumprod(x, 0), ops.cumprod(ints, 0), ops.cumprod(x, 1, ms.float64), ops.CumProd(exclusive=True, reverse=True)(x, 1),
                                    ops.CumProd(exclusive=True)(ties, 1), x.cumprod(1)),
        "L2Normalize": lambda: (ops.L2Normalize(axis=1)(x), ops.L2Normalize(0, 100.0)(x), ops.L2Normalize(axis=(-1,))(pts)),
        "index_select scatter": lambda: (ops.index_select(x, 1, cols), ops.index_select(pts, 0, Tensor(np.array([1], np.int64))), x.index_select(0, cols),
                                         ops.scatter(x, 1, where, -x[:, :2]), ops.scatter(x, 0, Tensor(np.array([[2, 0]], np.int32)), x[:1, :2] * 5), x.scatter(1, where, x[:, 1:3])),
        "std var": lambda: (ops.std(x), ops.std(x, 1, 1, True), ops.var(x, (0, 1), ddof=True), ops.var(pts, -1), ops.std(pts, (0, 2), keepdims=True), x.std(0), x.var(1, 1, True)),
        "cdist": lambda: (ops.cdist(x, x[:2]), ops.cdist(pts, pts[:, :2] * 0.5, 1.0), ops.cdist(x, x[:2] * 0.5, float("inf")), ops.cdist(x, x[:2], 0.0), ops.cdist(pts, pts, 3.0)),
        "interpolate": lambda: (ops.interpolate(im, size=(6, 8)), ops.interpolate(im, size=(2, 3)), ops.interpolate(im, size=(7, 4), mode="bilinear"),
                                ops.interpolate(im, size=(7, 4), mode="bilinear", align_corners=True), ops.interpolate(line, size=9, mode="linear"),
                                ops.interpolate(line, size=3, mode="linear", align_corners=True), ops.interpolate(im, size=(2, 2), mode="area"),
                                ops.interpolate(im, size=(6, 7), mode="area"), ops.interpolate(im, size=(6, 8), mode="nearest-exact"),
                                ops.interpolate(vol, size=(3, 5, 2), mode="trilinear"), ops.interpolate(vol, size=(4, 2, 6)),
                                ops.interpolate(im, scale_factor=(1.5, 0.7), mode="bilinear", recompute_scale_factor=True)),
        "interpolate bicubic": lambda: (ops.interpolate(im, size=(6, 8), mode="bicubic"), ops.interpolate(im, size=(2, 3), mode="bicubic"),
                                        ops.interpolate(im, size=(5, 7), mode="bicubic", align_corners=True), ops.interpolate(im, size=(1, 1), mode="bicubic")),
        "GradOperation through model zoo ops": lambda: ops.GradOperation(get_all=True)(grads)(x, x * 0.5 + 1),
        **_model_zoo_neighbour_cases(ms, ops, Tensor),
    }  # fmt: skip


def _model_zoo_neighbour_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """The model zoo's resize classes and the reordering and selection ops next to the functions above."""
    rng = np.random.default_rng(1015)  # its own stream
    x = Tensor(rng.normal(size=(3, 4)).astype(np.float32))
    im = Tensor(rng.normal(size=(1, 2, 3, 4)).astype(np.float32))
    ties = Tensor(np.array([[3, 1, 2, 3], [0, 5, 0, -1], [2, 2, 1, 0]], np.float32))
    row, col = (
        Tensor(np.arange(3, dtype=np.float32)),
        Tensor(np.arange(2, dtype=np.float32)),
    )

    def grads(a: Any) -> Any:
        image = ops.reshape(a, (1, 1, 3, 4))
        return (
            (ops.ResizeNearestNeighbor((5, 7))(image) ** 2).sum()
            + (ops.ResizeBilinearV2()(image, (5, 7)) ** 2).sum()
            + (ops.ResizeBilinearV2(half_pixel_centers=True)(image, (2, 3)) ** 2).sum()
            + (ops.ResizeBilinearV2(align_corners=True)(image, (4, 6)) ** 2).sum()
            + (ops.flip(a, (0,)) * ties).sum()
            + (ops.ReverseV2((1,))(a) * ties).sum()
            + ops.trace(a * ties)
            + (ops.masked_select(a, ties > 1) ** 2).sum()
            + ops.ReduceStd(1)(a)[0].sum()
            + (ops.meshgrid(a[0], a[1, :2])[1] * 3).sum()
        )

    resize = [
        (size, ac, hp)
        for size in ((5, 7), (2, 3))
        for ac, hp in ((False, False), (True, False), (False, True))
    ]
    return {
        "ResizeNearestNeighbor": lambda: tuple(ops.ResizeNearestNeighbor(size, ac, hp)(im) for size, ac, hp in resize),
        "ResizeBilinearV2": lambda: (*(ops.ResizeBilinearV2(ac, hp)(im, size) for size, ac, hp in resize), ops.ResizeBilinearV2()(im, Tensor(np.array([5, 7], np.int32)))),
        "Unique Tril Triu Cdist": lambda: (*ops.Unique()(Tensor(np.array([3, 1, 3], np.int32))), ops.Tril(1)(x), ops.Triu(diagonal=-1)(x), ops.Cdist(1.0)(x, x[:2])),
        "ReduceStd argsort": lambda: (*ops.ReduceStd(axis=1)(x), *ops.ReduceStd()(x), *ops.ReduceStd(axis=(0,), unbiased=False, keep_dims=True)(x),
                                      ops.argsort(ties), ops.argsort(ties, 0, True)),
        "flip ReverseV2 trace": lambda: (ops.flip(x, (0,)), ops.flip(x, (-1, 0)), ops.ReverseV2(axis=[1])(x), ops.trace(x), ops.trace(x[:, :2])),
        "meshgrid linspace": lambda: (*ops.meshgrid(row, col), *ops.meshgrid(row, col, indexing="ij"), *ops.Meshgrid(indexing="ij")((row, col)),
                                      ops.linspace(0, 1, 5), ops.linspace(Tensor(0.0), Tensor(2.0), 3), ops.linspace(2, 5, 1), ops.LinSpace()(Tensor(1.0), Tensor(10.0), 4)),
        "masked_select nonzero": lambda: (ops.masked_select(ties, ties > 1), ops.masked_select(ties, Tensor(np.array([True, False, True, False]))),
                                          ops.nonzero(ties), ops.NonZero()(ties)),
        "GradOperation through resize and selection": lambda: ops.GradOperation()(grads)(x),
        "ScatterNd TensorScatterUpdate TensorScatterElements": lambda: (
            ops.ScatterNd()(Tensor(np.array([[0], [2], [0]], np.int32)), Tensor(np.array([1, 2, 3], np.float32)), (4,)),
            ops.ScatterNd()(Tensor(np.array([[1], [0]], np.int64)), x[:2], (3, 4)), ops.ScatterNd()(Tensor(np.array([[1, 2], [0, 0]], np.int32)), x[0, :2], (2, 3)),
            ops.TensorScatterUpdate()(ties, Tensor(np.array([[0, 0], [1, 1]], np.int32)), Tensor(np.array([9, 8], np.float32))),
            ops.TensorScatterUpdate()(ties, Tensor(np.array([[2]], np.int32)), x[:1]),
            ops.TensorScatterElements(1, "add")(ties, Tensor(np.array([[0], [0], [3]], np.int32)), x[:, :1]),
            ops.TensorScatterElements(0)(ties, Tensor(np.array([[2, 0]], np.int64)), x[:1, :2]),
            ops.GradOperation(get_all=True)(lambda a, u: (ops.ScatterNd()(Tensor(np.array([[1], [0], [1]], np.int32)), u, (2, 4)) * a[:2]).sum()
                                           + (ops.TensorScatterUpdate()(a, Tensor(np.array([[0, 1], [2, 3]], np.int32)), u[0, :2] * 2) * ties).sum()
                                           + (ops.TensorScatterElements(1, "add")(a, Tensor(np.array([[0], [0], [3]], np.int32)), u[:, :1]) ** 2).sum())(x, x * 0.5 + 1)),
    }  # fmt: skip


def _zoo_conv_cases(ms: Any, ops: Any, Tensor: Any) -> dict[str, Any]:  # noqa: N803
    """Issue 23's convolutional ops and cells, with weights given so both frameworks compute the same thing."""
    rng = np.random.default_rng(
        23
    )  # its own stream: cases added elsewhere do not shift these inputs
    nn = ms.nn
    images = Tensor(rng.normal(size=(2, 4, 7, 6)).astype(np.float32))
    depthwise = Tensor(rng.normal(size=(8, 1, 3, 3)).astype(np.float32))
    grouped = Tensor(rng.normal(size=(6, 2, 3, 2)).astype(np.float32))
    up = Tensor(rng.normal(size=(4, 3, 3, 3)).astype(np.float32))
    line = Tensor(rng.normal(size=(2, 4, 9)).astype(np.float32))
    taps = Tensor(rng.normal(size=(6, 2, 3)).astype(np.float32))
    small = Tensor(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    # Drawn last, so the inputs above are those they were recorded with.
    up_grouped = Tensor(rng.normal(size=(4, 3, 3, 3)).astype(np.float32))
    up_depthwise = Tensor(rng.normal(size=(4, 2, 3, 2)).astype(np.float32))
    up_wide = Tensor(rng.normal(size=(4, 9, 2, 2)).astype(np.float32))
    return {
        "Conv2D depthwise x2 pad dilation": lambda: ops.Conv2D(8, 3, pad_mode="pad", pad=1, dilation=2, group=4)(images, depthwise),
        "Conv2D group 2 same stride 2": lambda: ops.Conv2D(6, (3, 2), pad_mode="same", stride=2, group=2)(images, grouped),
        "Conv2d depthwise cell with bias": lambda: nn.Conv2d(4, 8, 3, group=4, has_bias=True, weight_init=depthwise, bias_init="ones")(images),
        "Conv2dTranspose same stride 2": lambda: nn.Conv2dTranspose(4, 3, 3, stride=2, weight_init=up)(images),
        "Conv2dTranspose valid dilation": lambda: nn.Conv2dTranspose(4, 3, 3, stride=(2, 1), pad_mode="valid", dilation=2, weight_init=up)(images),
        "Conv2dTranspose pad output_padding": lambda: nn.Conv2dTranspose(4, 3, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1), output_padding=1, has_bias=True, weight_init=up, bias_init="ones")(images),
        "Conv2dTranspose group 2 pad bias": lambda: nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", padding=1, group=2, has_bias=True, weight_init=up_grouped, bias_init="ones")(images),
        "Conv2dTranspose depthwise same stride 2": lambda: nn.Conv2dTranspose(4, 8, (3, 2), stride=2, group=4, weight_init=up_depthwise)(images),
        "Conv2dTranspose wide groups valid dilation": lambda: nn.Conv2dTranspose(4, 18, 2, pad_mode="valid", dilation=2, group=2, weight_init=up_wide)(images),
        "Conv1d group 2 stride 2": lambda: nn.Conv1d(4, 6, 3, stride=2, group=2, weight_init=taps)(line),
        "Conv1d pad dilation": lambda: nn.Conv1d(4, 6, 3, pad_mode="pad", padding=2, dilation=2, group=2, weight_init=taps)(line),
        "adaptive_avg_pool2d uneven": lambda: (ops.adaptive_avg_pool2d(images, (3, 4)), ops.adaptive_avg_pool2d(images, (None, 4))),
        "AdaptiveAvgPool2d even and global": lambda: (nn.AdaptiveAvgPool2d((7, 3))(images), nn.AdaptiveAvgPool2d(1)(images)),
        "ReduceMean global pool": lambda: (ops.ReduceMean(keep_dims=True)(images, (2, 3)), ops.mean(images, (2, 3))),
        "Pad modes": lambda: tuple(nn.Pad(((0, 0), (0, 0), (2, 1), (3, 0)), mode=m)(small) for m in ("CONSTANT", "REFLECT", "SYMMETRIC")),
        "ReLU6 HSwish cells": lambda: (nn.ReLU6()(images * 4), nn.HSwish()(images * 3), ops.hardswish(images * 3)),
    }  # fmt: skip


def _batch_norm_training(
    ms: Any,
    ops: Any,
    Tensor: Any,  # noqa: N803
    images: Any,
    kernel: Any,
) -> Any:
    """BatchNorm in training mode, and the moving statistics it updated."""
    mean = ms.Parameter(Tensor(np.array([1.0, 0.0, -1.0], np.float32)), name="mean")
    var = ms.Parameter(Tensor(np.array([4.0, 1.0, 0.5], np.float32)), name="var")
    out = ops.BatchNorm(is_training=True, momentum=0.2)(
        images, kernel[0, :, 0, 0], kernel[1, :, 0, 0], mean, var
    )
    return (*out, mean, var)


def encode(value: Any) -> Any:
    """A JSON form of a result: tensors as dtype, shape and values; tuples as lists."""
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if hasattr(value, "asnumpy"):
        a = value.asnumpy()
        return {
            "dtype": str(value.dtype),
            "shape": list(a.shape),
            "values": a.astype(np.float64).ravel().tolist(),
        }
    return value


if __name__ == "__main__":  # run with MindSpore's interpreter to record the oracle
    import mindspore
    from mindspore import Tensor as MsTensor, ops as ms_ops

    mindspore.set_context(mode=mindspore.PYNATIVE_MODE, device_target="CPU")
    recorded = {
        name: encode(call())
        for name, call in cases(mindspore, ms_ops, MsTensor).items()
    }
    recorded["_about"] = (
        f"recorded with MindSpore {mindspore.__version__} by tests/ops/mindspore_cases.py"
    )
    lines = [f"{json.dumps(k)}: {json.dumps(recorded[k])}" for k in sorted(recorded)]
    with open(sys.argv[1], "w") as out:
        out.write("{\n" + ",\n".join(lines) + "\n}\n")  # one case per line
