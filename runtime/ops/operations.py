"""MindSpore's operator classes (`mindspore.ops.operations`, imported as `P`), built from one table.

Each line below makes one class: its MindSpore name, the cadence function that
computes it, a docstring, and its constructor attributes with MindSpore's
defaults, in MindSpore's order. An instance is called on tensors:

    >>> import cadence as ms
    >>> from cadence import ops
    >>> ops.ReduceMean(keep_dims=True)(ms.Tensor([[1.0, 3.0]]), 1)
    Tensor(shape=[1, 1], dtype=Float32, value=
    [[ 2.00000000e+00]])

Every class computes with cadence's differentiable ops, so gradients flow
through it wherever they flow through those ops (`GradOperation`, `grad`,
`TrainOneStepCell`).
"""

from __future__ import annotations

from typing import Any

from ..compute import _dtype
from . import (
    _activations as a,
    _adaptive_max_pool as amp,
    _attention as at,
    _composed as c,
    _creation as cr,
    _einsum as es,
    _elementwise as e,
    _expanding as ex,
    _functional as f,
    _gather_elements as ge,
    _gather_nd as gnd,
    _indexing as ix,
    _losses as ls,
    _matrices as mx,
    _nn as n,
    _norms as nm,
    _ranking as rk,
    _reductions as rd,
    _reordering as ro,
    _resize_operators as rs,
    _scatter_nd as snd,
    _slicing as sl,
    _spatial as sp,
    _statistics as st,
    _windowed as w,
)
from ._primitive import REQUIRED, Primitive, Sizes, primitive
from ._random import StandardNormal, UniformInt, UniformReal


def _one_axis(axis: Any) -> Any:
    """`Softmax`'s axis, an int or a tuple of one int as MindSpore's operator takes it, as an int."""
    if not isinstance(axis, tuple):
        return axis
    if len(axis) != 1:
        raise ValueError(
            f"For 'Softmax', the argument 'axis' must be an int or a tuple of one int, but got {axis!r}."
        )
    return axis[0]


def _reduce(name: str) -> Any:
    # Looked up on each call, not bound here: `export` traces by wrapping the module's functions.
    def impl(x: Any, axis: Any = (), *, keep_dims: bool, **_: Any) -> Any:
        return getattr(f, name)(x, axis, keep_dims)

    return impl


def _strided_slice(x: Any, begin: Any, end: Any, strides: Any, **masks: int) -> Any:
    used = {k: v for k, v in masks.items() if v}
    if used:
        raise ValueError(
            f"For 'StridedSlice', the masks must be 0 on cadence (use Python slicing), but got {used}."
        )
    return sl.strided_slice(x, begin, end, strides)


def _reduce_logic(name: str) -> Any:
    def impl(x: Any, axis: Any = (), *, keep_dims: bool) -> Any:
        return getattr(f.as_tensor(x), name)(axis if axis != () else None, keep_dims)

    return impl


def _join(fn: Any) -> Any:
    return lambda tensors, *, axis: fn(tensors, axis)


# fmt: off
# --- elementwise arithmetic -----------------------------------------------------------
Abs = primitive("Abs", f.abs, "Elementwise |x|.")
Neg = primitive("Neg", f.neg, "Elementwise -x.")
Exp = primitive("Exp", f.exp, "Elementwise e**x.")
Log = primitive("Log", f.log, "Elementwise natural logarithm.")
Sqrt = primitive("Sqrt", f.sqrt, "Elementwise square root.")
Rsqrt = primitive("Rsqrt", c.rsqrt, "Elementwise 1 / sqrt(x).")
Reciprocal = primitive("Reciprocal", c.reciprocal, "Elementwise 1 / x.")
Square = primitive("Square", f.square, "Elementwise x * x.")
Sign = primitive("Sign", c.sign, "Elementwise sign (-1, 0, 1); no gradient.")
Add = primitive("Add", f.add, "Elementwise x + y, broadcasting.")
TensorAdd = primitive("TensorAdd", f.add, "The name `Add` had in MindSpore 1.x.")
Sub = primitive("Sub", f.sub, "Elementwise x - y.")
Mul = primitive("Mul", f.mul, "Elementwise x * y.")
Div = primitive("Div", f.div, "Elementwise x / y.")
RealDiv = primitive("RealDiv", f.div, "Elementwise x / y.")
Pow = primitive("Pow", f.pow, "Elementwise x ** y.")
Maximum = primitive("Maximum", f.maximum, "Elementwise maximum.")
Minimum = primitive("Minimum", f.minimum, "Elementwise minimum.")
FloorDiv = primitive("FloorDiv", f.floor_divide, "Elementwise floor division; no gradient.")
FloorMod = primitive("FloorMod", f.mod, "Elementwise remainder with the divisor's sign; no gradient.")
Mod = primitive("Mod", c.truncated_mod, "Elementwise remainder with the dividend's sign (C's fmod); no gradient.")
SquaredDifference = primitive("SquaredDifference", c.squared_difference, "Elementwise (x - y) ** 2.")
Sin = primitive("Sin", e.sin, "Elementwise sine.")
Cos = primitive("Cos", e.cos, "Elementwise cosine.")
Erf = primitive("Erf", at.erf, "Elementwise Gauss error function.")
Log1p = primitive("Log1p", e.log1p, "Elementwise log(1 + x).")
Expm1 = primitive("Expm1", e.expm1, "Elementwise exp(x) - 1.")
Floor = primitive("Floor", e.floor, "Elementwise floor; no gradient.")
Ceil = primitive("Ceil", e.ceil, "Elementwise ceiling; no gradient.")
# --- comparisons and logic (Bool results, no gradient) ---------------------------------------------
Equal = primitive("Equal", f.equal, "Elementwise x == y.")
NotEqual = primitive("NotEqual", f.not_equal, "Elementwise x != y.")
Less = primitive("Less", f.less, "Elementwise x < y.")
LessEqual = primitive("LessEqual", f.less_equal, "Elementwise x <= y.")
Greater = primitive("Greater", f.greater, "Elementwise x > y.")
GreaterEqual = primitive("GreaterEqual", f.greater_equal, "Elementwise x >= y.")
LogicalAnd = primitive("LogicalAnd", e.logical_and, "Elementwise AND.")
LogicalOr = primitive("LogicalOr", e.logical_or, "Elementwise OR.")
LogicalNot = primitive("LogicalNot", e.logical_not, "Elementwise NOT.")
IsFinite = primitive("IsFinite", e.isfinite, "Elementwise: neither inf nor NaN.")
IsNan = primitive("IsNan", e.isnan, "Elementwise: NaN.")
IsInf = primitive("IsInf", e.isinf, "Elementwise: inf or -inf.")
ReduceAll = primitive("ReduceAll", _reduce_logic("all"), "AND over `axis` (all axes when empty).", keep_dims=False)
ReduceAny = primitive("ReduceAny", _reduce_logic("any"), "OR over `axis` (all axes when empty).", keep_dims=False)
Select = primitive("Select", e.select, "`x` where the condition holds, else `y`; gradients flow to the chosen side.")
# --- activations -----------------------------------------------------------------------------
ReLU = primitive("ReLU", n.relu, "max(x, 0).")
Sigmoid = primitive("Sigmoid", n.sigmoid, "1 / (1 + exp(-x)).")
Tanh = primitive("Tanh", n.tanh, "Hyperbolic tangent.")
ReLU6 = primitive("ReLU6", a.relu6, "min(max(x, 0), 6).")
GeLU = primitive("GeLU", lambda x: at.gelu(x, "tanh"), "GELU, with the tanh approximation as MindSpore's operator computes it.")
Elu = primitive("Elu", lambda x, *, alpha: a.elu(x, alpha), "x for x > 0, alpha * (exp(x) - 1) otherwise.", alpha=1.0)
Softplus = primitive("Softplus", a.softplus, "log(1 + exp(x)).")
HSigmoid = primitive("HSigmoid", a.hardsigmoid, "relu6(x + 3) / 6.")
HSwish = primitive("HSwish", a.hardswish, "x * relu6(x + 3) / 6.")
Softsign = primitive("Softsign", a.softsign, "x / (1 + |x|).")
Softmax = primitive("Softmax", lambda x, *, axis: n.softmax(x, _one_axis(axis)), "Softmax along `axis` (an int or a tuple of one int, as MindSpore's operator takes).", axis=(-1,))
LogSoftmax = primitive("LogSoftmax", lambda x, *, axis: n.log_softmax(x, axis), "log(softmax(x)) along `axis`.", axis=-1)
# --- matrix products -------------------------------------------------------------------------
MatMul = primitive("MatMul", c.matmul_transposed, "Matrix product of 2-D tensors, either transposed first.", transpose_a=False, transpose_b=False)
BatchMatMul = primitive("BatchMatMul", at.batch_matmul, "Batched matrix product (batch axes broadcast), either operand transposed first.", transpose_a=False, transpose_b=False)
LayerNorm = primitive("LayerNorm", at.layer_norm_with_statistics, "Layer normalization; returns (y, mean, variance), the statistics without gradient.", begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7)
MaskedFill = primitive("MaskedFill", at.masked_fill, "`value` where `mask` is True, the input elsewhere.")
PReLU = primitive("PReLU", at.prelu, "x where x > 0, else weight * x (one slope per channel).")
BiasAdd = primitive("BiasAdd", c.bias_add, "Add a per-channel bias.", data_format="NCHW")
# --- reductions ---------------------------------------------------------------------------------
ReduceSum = primitive("ReduceSum", _reduce("sum"), "Sum over `axis` (all axes when empty).", keep_dims=False, skip_mode=False)
ReduceMean = primitive("ReduceMean", _reduce("mean"), "Mean over `axis` (all axes when empty).", keep_dims=False)
ReduceStd = primitive("ReduceStd", st.reduce_std, "(standard deviation, mean) over `axis` (all axes when empty); `unbiased` divides by n - 1.", axis=(), unbiased=True, keep_dims=False)
ReduceMax = primitive("ReduceMax", _reduce("amax"), "Maximum over `axis`; ties share the gradient.", keep_dims=False)
ReduceMin = primitive("ReduceMin", _reduce("amin"), "Minimum over `axis`; ties share the gradient.", keep_dims=False)
Argmax = primitive("Argmax", lambda x, **a: c.typed_argmax(x, **a), "Indices of the maxima along `axis`.", axis=-1, output_type=_dtype.int32)
Argmin = primitive("Argmin", lambda x, **a: c.typed_argmax(x, **a, largest=False), "Indices of the minima along `axis`.", axis=-1, output_type=_dtype.int32)
ArgMaxWithValue = primitive("ArgMaxWithValue", lambda x, **a: c.arg_with_value(x, **a), "(indices, values) of the maxima along `axis`.", axis=0, keep_dims=False)
Sort = primitive("Sort", lambda x, *, axis, descending: rk.sort(x, axis, descending), "(values, Int32 indices) sorted along `axis`; equal elements keep their order.", axis=-1, descending=False)
Unique = primitive("Unique", rk.unique, "(the distinct elements in order of first appearance, the position of each input element among them).")
TopK = primitive("TopK", lambda x, k, *, sorted: rk.top_k(x, k, sorted=sorted), "(values, Int32 indices) of the k largest elements along the last axis.", sorted=True)
ArgMinWithValue = primitive("ArgMinWithValue", lambda x, **a: c.arg_with_value(x, **a, largest=False), "(indices, values) of the minima along `axis`.", axis=0, keep_dims=False)
# --- shapes and types -------------------------------------------------------------------------
Reshape = primitive("Reshape", f.reshape, "The data in a new shape (one entry may be -1).")
Transpose = primitive("Transpose", f.transpose, "Permute the axes as `input_perm` says.")
ExpandDims = primitive("ExpandDims", f.expand_dims, "Insert an axis of size 1 at `axis`.")
Squeeze = primitive("Squeeze", lambda x, *, axis: f.squeeze(x, axis or None), "Remove axes of size 1 (all when `axis` is empty).", axis=())
Flatten = primitive("Flatten", lambda x: f.flatten(x), "Flatten to (N, -1), keeping the batch axis.")
Concat = primitive("Concat", _join(f.concat), "Join tensors along an existing axis.", axis=0)
Stack = primitive("Stack", _join(f.stack), "Join tensors along a new axis.", axis=0)
Pack = primitive("Pack", _join(f.stack), "The name `Stack` had in MindSpore 1.x.", axis=0)
Tile = primitive("Tile", sl.tile, "Repeat the input along each axis.")
BroadcastTo = primitive("BroadcastTo", lambda x, *, shape: ex.broadcast_to(x, shape), "Broadcast to `shape` (-1 keeps an axis).", shape=REQUIRED)
Unstack = primitive("Unstack", lambda x, *, axis, num: sl.unstack(x, axis, num), "The slices along `axis`, each without that axis.", axis=0, num=None)
Split = primitive("Split", lambda x, *, axis, output_num: sl.split(x, axis, output_num), "Split into equal parts along `axis`.", axis=0, output_num=1)
StridedSlice = primitive("StridedSlice", _strided_slice, "x[begin:end:strides] per axis (masks 0).", begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)
CumSum = primitive("CumSum", sl.cumulative_sum, "Cumulative sum along an axis.", exclusive=False, reverse=False)
Tril = primitive("Tril", lambda x, *, diagonal: mx.tril(x, diagonal), "The lower triangle of the last two axes.", diagonal=0)
Triu = primitive("Triu", lambda x, *, diagonal: mx.triu(x, diagonal), "The upper triangle of the last two axes.", diagonal=0)
ReverseV2 = primitive("ReverseV2", ro.reverse_v2, "Reverse the order of the elements along each axis of `axis`.", axis=REQUIRED)
Roll = primitive("Roll", lambda x, *, shifts, dims: ro.roll(x, shifts, dims), "Rotate the elements by `shifts` along `dims`.", shifts=REQUIRED, dims=None)
MaskedSelect = primitive("MaskedSelect", ix.masked_select, "The 1-D tensor of the elements where the mask holds.")
NonZero = primitive("NonZero", ix.nonzero, "The Int64 positions (count, ndim) of the non-zero elements.")
Meshgrid = primitive("Meshgrid", ex.meshgrid_op, "Coordinate grids from a tuple of 1-D tensors ('xy' or 'ij' indexing).", indexing="xy")
Cdist = primitive("Cdist", lambda x1, x2, *, p: mx.cdist(x1, x2, p), "The p-norm distances between the rows of two (batches of) matrices.", p=2.0)
ResizeNearestNeighbor = primitive("ResizeNearestNeighbor", rs.resize_nearest_neighbor, "Resize (N, C, H, W) input to `size` by the nearest pixel.", size=REQUIRED, align_corners=False, half_pixel_centers=False)
ResizeBilinearV2 = primitive("ResizeBilinearV2", rs.resize_bilinear_v2, "Resize (N, C, H, W) input to `size` by bilinear interpolation.", align_corners=False, half_pixel_centers=False)
CumProd = primitive("CumProd", sl.cumulative_prod, "Cumulative product along an axis.", exclusive=False, reverse=False)
L2Normalize = primitive("L2Normalize", nm.l2_normalize, "x / sqrt(max(sum(x**2 over axis), epsilon)).", axis=Sizes(0), epsilon=1e-4)
Einsum = primitive("Einsum", es.einsum_op, "The sum of products `equation` names, on a tuple of tensors.", equation=REQUIRED)
ScatterNd = primitive("ScatterNd", snd.scatter_nd, "Zeros of `shape` with `updates` added at the index tuples (repeats sum).")
TensorScatterUpdate = primitive("TensorScatterUpdate", snd.tensor_scatter_update, "A copy with the slices at the index tuples replaced by `updates`.")
TensorScatterElements = primitive("TensorScatterElements", snd.tensor_scatter_elements, "`updates` written ('none') or added ('add') at `indices` along `axis`.", axis=0, reduction="none")
GatherD = primitive("GatherD", ge.gather_elements, "The elements at `index` along `dim` (`ops.gather_elements`).")
GatherNd = primitive("GatherNd", gnd.gather_nd, "Slices at index tuples: the last axis of `indices` indexes the input's leading axes.")
Gather = primitive("Gather", c.gather, "Take slices along `axis` at integer indices.", batch_dims=0)
Pad = primitive("Pad", lambda x, *, paddings: f.pad(x, paddings), "Pad each axis by (before, after) zeros.", paddings=REQUIRED)
Cast = primitive("Cast", f.cast, "Convert to a dtype; the gradient is converted back.")
Print = primitive("Print", c.print_, "Print each argument on its own line (tensors as their repr).")
Identity = primitive("Identity", lambda x: x, "Return the input.")
Depend = primitive("Depend", c.depend, "Return the first input; the second has run already (cadence runs in program order).")
Shape = primitive("Shape", c.shape, "The shape, as a tuple of ints.")
Rank = primitive("Rank", c.rank, "The number of dimensions.")
Size = primitive("Size", lambda x: f.as_tensor(x).size, "The number of elements.")
DType = primitive("DType", c.dtype, "The element type.")
# --- creation ---------------------------------------------------------------------------------------
Zeros = primitive("Zeros", lambda size, dtype=None: f.zeros(size, dtype), "A tensor of zeros.")
Ones = primitive("Ones", lambda shape, dtype=None: f.ones(shape, dtype), "A tensor of ones.")
ZerosLike = primitive("ZerosLike", f.zeros_like, "Zeros shaped like the input.")
OnesLike = primitive("OnesLike", f.ones_like, "Ones shaped like the input.")
Range = primitive("Range", cr.range_op, "start, start + step, ... before end (three scalars of one kind).", maxlen=1000000)
LinSpace = primitive("LinSpace", cr.linspace, "`num` evenly spaced values from `start` to `stop`, both included.")
Eye = primitive("Eye", cr.eye_op, "An (n, m) matrix with ones on its diagonal, of `dtype`.")
Fill = primitive("Fill", c.fill, "A tensor of a shape filled with one value.")
OneHot = primitive("OneHot", lambda indices, depth, on_value, off_value, *, axis: c.one_hot(indices, depth, on_value, off_value, axis), "One-hot encode integer indices; no gradient.", axis=-1)
# --- convolution and pooling (NCHW) ---------------------------------------------------------
Conv2D = primitive("Conv2D", w.conv2d, "2-D convolution with a given weight.", out_channel=REQUIRED, kernel_size=REQUIRED, mode=1, pad_mode="valid", pad=Sizes(0), stride=Sizes(1), dilation=Sizes(1), group=1, data_format="NCHW")
MaxPool = primitive("MaxPool", w.max_pool, "Max pooling ('valid' or 'same').", kernel_size=Sizes(1), strides=Sizes(1), pad_mode="valid", data_format="NCHW")
AdaptiveAvgPool2D = primitive("AdaptiveAvgPool2D", lambda x, *, output_size: sp.adaptive_avg_pool2d(x, output_size), "Average pooling to `output_size` (an int or a pair; None keeps a size).", output_size=REQUIRED)
AdaptiveMaxPool2D = primitive("AdaptiveMaxPool2D", amp.adaptive_max_pool2d_op, "Max pooling to `output_size` (a pair; None keeps a size); returns (values, Int64 flat indices).", output_size=REQUIRED)
AvgPool = primitive("AvgPool", w.avg_pool, "Average pooling ('valid').", kernel_size=Sizes(1), strides=Sizes(1), pad_mode="valid", data_format="NCHW")
Dense = primitive("Dense", c.dense_op, "x @ w.T + b, the fully connected layer's computation.")
BatchNorm = primitive("BatchNorm", c.batch_norm_with_statistics, "Per-channel normalization; returns (y, 0, 0, batch mean, batch variance).", is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW")
# --- training ----------------------------------------------------------------------------------------
Dropout = primitive("Dropout", lambda x, *, keep_prob, **_: c.dropout_with_mask(x, keep_prob=keep_prob), "Randomly zero elements; returns (output, mask).", keep_prob=0.5, Seed0=0, Seed1=0)
SoftmaxCrossEntropyWithLogits = primitive("SoftmaxCrossEntropyWithLogits", c.softmax_cross_entropy_with_backprop, "Per-sample loss of (N, C) logits and dense labels, and its gradient: (loss, backprop).")
SparseSoftmaxCrossEntropyWithLogits = primitive("SparseSoftmaxCrossEntropyWithLogits", c.sparse_softmax_cross_entropy, "Mean loss of (N, C) logits and class indices (with `is_grad`, its gradient).", is_grad=False)
SigmoidCrossEntropyWithLogits = primitive("SigmoidCrossEntropyWithLogits", a.sigmoid_cross_entropy_with_logits, "Per-element binary cross-entropy of sigmoid(logits) and labels.")
Assign = primitive("Assign", c.assign, "Set a Parameter's value; returns the Parameter.")
AssignAdd = primitive("AssignAdd", c.assign_add, "Add to a Parameter in place.")
AddN = primitive("AddN", rd.addn, "The elementwise sum of a tuple or list of tensors of one shape and dtype.")
L2Loss = primitive("L2Loss", ls.l2_loss, "Half the sum of squares of a float tensor.")
AssignSub = primitive("AssignSub", c.assign_sub, "Subtract from a Parameter in place.")

# fmt: on

__all__ = [
    "Abs",
    "AdaptiveAvgPool2D",
    "AdaptiveMaxPool2D",
    "Add",
    "AddN",
    "ArgMaxWithValue",
    "ArgMinWithValue",
    "Argmax",
    "Argmin",
    "Assign",
    "AssignAdd",
    "AssignSub",
    "AvgPool",
    "BatchMatMul",
    "BatchNorm",
    "BiasAdd",
    "BroadcastTo",
    "Cast",
    "Cdist",
    "Ceil",
    "Concat",
    "Conv2D",
    "Cos",
    "CumProd",
    "CumSum",
    "DType",
    "Dense",
    "Depend",
    "Div",
    "Dropout",
    "Einsum",
    "Elu",
    "Equal",
    "Erf",
    "Exp",
    "ExpandDims",
    "Expm1",
    "Eye",
    "Fill",
    "Flatten",
    "Floor",
    "FloorDiv",
    "FloorMod",
    "Gather",
    "GatherD",
    "GatherNd",
    "GeLU",
    "Greater",
    "GreaterEqual",
    "HSigmoid",
    "HSwish",
    "Identity",
    "IsFinite",
    "IsInf",
    "IsNan",
    "L2Loss",
    "L2Normalize",
    "LayerNorm",
    "Less",
    "LessEqual",
    "LinSpace",
    "Log",
    "Log1p",
    "LogSoftmax",
    "LogicalAnd",
    "LogicalNot",
    "LogicalOr",
    "MaskedFill",
    "MaskedSelect",
    "MatMul",
    "MaxPool",
    "Maximum",
    "Meshgrid",
    "Minimum",
    "Mod",
    "Mul",
    "Neg",
    "NonZero",
    "NotEqual",
    "OneHot",
    "Ones",
    "OnesLike",
    "PReLU",
    "Pack",
    "Pad",
    "Pow",
    "Primitive",
    "Print",
    "Range",
    "Rank",
    "ReLU",
    "ReLU6",
    "RealDiv",
    "Reciprocal",
    "ReduceAll",
    "ReduceAny",
    "ReduceMax",
    "ReduceMean",
    "ReduceMin",
    "ReduceStd",
    "ReduceSum",
    "Reshape",
    "ResizeBilinearV2",
    "ResizeNearestNeighbor",
    "ReverseV2",
    "Roll",
    "Rsqrt",
    "ScatterNd",
    "Select",
    "Shape",
    "Sigmoid",
    "SigmoidCrossEntropyWithLogits",
    "Sign",
    "Sin",
    "Size",
    "Softmax",
    "SoftmaxCrossEntropyWithLogits",
    "Softplus",
    "Softsign",
    "Sort",
    "SparseSoftmaxCrossEntropyWithLogits",
    "Split",
    "Sqrt",
    "Square",
    "SquaredDifference",
    "Squeeze",
    "Stack",
    "StandardNormal",
    "StridedSlice",
    "Sub",
    "Tanh",
    "TensorAdd",
    "TensorScatterElements",
    "TensorScatterUpdate",
    "Tile",
    "TopK",
    "Transpose",
    "Tril",
    "Triu",
    "UniformInt",
    "UniformReal",
    "Unique",
    "Unstack",
    "Zeros",
    "ZerosLike",
]
