"""Functional tensor ops with MindSpore's names (`cadence.ops`); all are differentiable.

Layer rule: builds on the compute package only (plus `cadence._util`), and
hands its functions to `Tensor` (`bind_functional`) instead of being imported by it.
"""

from __future__ import annotations

from .._util import fixup_module_metadata
from ..compute._tensor import bind_functional
from . import _functional
from ._functional import (
    abs,
    add,
    amax,
    amin,
    argmax,
    argmin,
    cast,
    clip,
    concat,
    div,
    equal,
    exp,
    expand_dims,
    flatten,
    floor_divide,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    matmul,
    maximum,
    mean,
    minimum,
    mod,
    mul,
    neg,
    not_equal,
    ones,
    ones_like,
    pad,
    pow,
    reshape,
    sqrt,
    square,
    squeeze,
    stack,
    sub,
    sum,
    transpose,
    zeros,
    zeros_like,
)
from ._nn import dense, dropout, log_softmax, relu, sigmoid, softmax, tanh

cat = concat
permute = transpose

__all__ = [
    "abs",
    "add",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cast",
    "cat",
    "clip",
    "concat",
    "dense",
    "div",
    "dropout",
    "equal",
    "exp",
    "expand_dims",
    "flatten",
    "floor_divide",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log_softmax",
    "matmul",
    "maximum",
    "mean",
    "minimum",
    "mod",
    "mul",
    "neg",
    "not_equal",
    "ones",
    "ones_like",
    "pad",
    "permute",
    "pow",
    "relu",
    "reshape",
    "sigmoid",
    "softmax",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "sub",
    "sum",
    "tanh",
    "transpose",
    "zeros",
    "zeros_like",
]

fixup_module_metadata(__name__, globals())
del fixup_module_metadata

# Tensor's operators run these functions; see `bind_functional` for why they are bound.
bind_functional(_functional)
del bind_functional
