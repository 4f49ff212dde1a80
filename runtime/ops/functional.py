"""MindSpore's `mindspore.ops.functional` path (imported as `F`): the functional ops of `cadence.ops`.

Older code calls ops through this module (`F.depend`, `F.cast`, `F.square`,
`F.partial`); the same functions are attributes of `cadence.ops`.
"""

from __future__ import annotations

from functools import partial

from ..compute._grad import grad, value_and_grad
from . import _functional
from ._activations import elu, hardsigmoid, hardswish, relu6, softplus, softsign
from ._adaptive_max_pool import adaptive_max_pool2d
from ._attention import (
    bmm,
    erf,
    gelu,
    group_norm,
    layer_norm,
    leaky_relu,
    masked_fill,
    prelu,
    silu,
    split,
)
from ._clip import clip_by_norm
from ._composed import (
    assign,
    assign_add,
    assign_sub,
    bias_add,
    depend,
    dtype,
    fill,
    gather,
    one_hot,
    print_,
    rank,
    reciprocal,
    rsqrt,
    scalar_to_tensor,
    shape,
    sign,
    squared_difference,
    stop_gradient,
    tuple_to_array,
)
from ._creation import arange, eye, full, full_like, linspace, range_op
from ._einsum import einsum
from ._elementwise import (
    ceil,
    cos,
    expm1,
    floor,
    isclose,
    isfinite,
    isinf,
    isnan,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    select,
    sin,
)
from ._expanding import broadcast_to, expand_as, meshgrid, repeat_interleave
from ._functional import *  # noqa: F403 (the tensor functions, under MindSpore's `F` path)
from ._functional import (
    add,
    clip,
    concat,
    div,
    greater,
    greater_equal,
    less,
    less_equal,
    mul,
    sub,
    transpose,
)
from ._gather_elements import gather_elements, max, min
from ._gather_nd import gather_nd
from ._indexing import index_select, masked_select, nonzero, scatter
from ._interpolate import interpolate
from ._losses import (
    binary_cross_entropy_with_logits,
    cross_entropy,
    kl_div,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from ._matrices import cdist, tensor_dot, trace, tril, triu
from ._nn import dense, dropout, log_softmax, relu, sigmoid, softmax, tanh
from ._norms import norm
from ._padding import pad
from ._pool1d import avg_pool1d
from ._random import normal, rand, randint, randn, uniform
from ._ranking import argmax, argsort, sort, topk, unique
from ._reductions import addn, sum
from ._reordering import flip, pixel_shuffle, roll
from ._script_losses import binary_cross_entropy, cosine_embedding_loss, huber_loss
from ._slicing import chunk, cumprod, cumsum, strided_slice, tile, unstack

# issue 23, convolutional networks (zoo-conv)
from ._spatial import adaptive_avg_pool2d, dropout2d
from ._statistics import std, var

# MindSpore's other names for the same functions.
cat = concat
permute = transpose
clip_by_value = clip
tensor_add = add
tensor_sub = sub
tensor_mul = mul
tensor_div = div
where = select
upsample = interpolate
range = range_op  # MindSpore's name; this module never calls the builtin
gt = greater
ge = greater_equal
lt = less
le = less_equal

__all__ = [
    "assign",
    "assign_add",
    "assign_sub",
    "bias_add",
    "binary_cross_entropy_with_logits",
    "bmm",
    "cat",
    "ceil",
    "clip_by_norm",
    "clip_by_value",
    "cos",
    "cross_entropy",
    "cumsum",
    "dense",
    "depend",
    "dropout",
    "dtype",
    "elu",
    "erf",
    "expm1",
    "fill",
    "floor",
    "gather",
    "gelu",
    "grad",
    "group_norm",
    "hardsigmoid",
    "hardswish",
    "kl_div",
    "layer_norm",
    "leaky_relu",
    "log1p",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "masked_fill",
    "nll_loss",
    "one_hot",
    "partial",
    "permute",
    "prelu",
    "print_",
    "rank",
    "reciprocal",
    "relu",
    "relu6",
    "rsqrt",
    "scalar_to_tensor",
    "select",
    "shape",
    "sigmoid",
    "sign",
    "silu",
    "sin",
    "smooth_l1_loss",
    "softmax",
    "softplus",
    "softsign",
    "split",
    "squared_difference",
    "stop_gradient",
    "strided_slice",
    "tanh",
    "tensor_add",
    "tensor_div",
    "tensor_mul",
    "tensor_sub",
    "tile",
    "tuple_to_array",
    "value_and_grad",
    "where",
]
__all__ += _functional.__all__  # the functions defined in `_functional`
__all__ += [
    "adaptive_avg_pool2d",
    "dropout2d",
]  # the convolutional networks' pooling and dropout
__all__ += [
    "adaptive_max_pool2d",
    "argmax",
    "broadcast_to",
    "expand_as",
    "gather_nd",
    "isfinite",
    "isinf",
    "isnan",
    "norm",
    "repeat_interleave",
    "topk",
]  # porting gaps
__all__ += [
    "arange",
    "cdist",
    "cumprod",
    "einsum",
    "eye",
    "index_select",
    "interpolate",
    "range",
    "scatter",
    "sort",
    "std",
    "tril",
    "triu",
    "unique",
    "unstack",
    "var",
]  # the model zoo's remaining operators
__all__ += [
    "argsort",
    "flip",
    "linspace",
    "masked_select",
    "meshgrid",
    "nonzero",
    "roll",
    "trace",
    "upsample",
]  # and their neighbours
__all__ += [
    "full",
    "ge",
    "gt",
    "le",
    "lt",
]  # what a newcomer's MindSpore 2.x scripts called
__all__ += [
    "chunk",
    "gather_elements",
    "isclose",
    "max",
    "min",
    "mse_loss",
    "normal",
    "rand",
    "randint",
    "randn",
    "tensor_dot",
    "uniform",
]  # what public scripts stopped at (the random ops, gather_elements, ...)
__all__ += [
    "binary_cross_entropy",
    "cosine_embedding_loss",
    "huber_loss",
]  # the losses of nn.BCELoss, nn.CosineEmbeddingLoss, nn.HuberLoss
__all__ += [
    "avg_pool1d",
    "pixel_shuffle",
]  # the functions of nn.AvgPool1d and nn.PixelShuffle
__all__ += [
    "pad",
    "sum",
]  # MindSpore 2.x's signatures over the internal `_functional.pad` and `_functional.sum`
__all__ += [
    "addn",
    "full_like",
]  # found beside the porting scripts (MindSpore's `ops.addn`, `ops.full_like`)
