"""The composed ops that `Tensor` methods run, handed to `Tensor` with `_functional` (see `bind_functional`)."""

from __future__ import annotations

from ._attention import masked_fill
from ._composed import gather
from ._expanding import broadcast_to, expand_as, repeat, repeat_interleave
from ._indexing import index_select, scatter
from ._matrices import tril, triu
from ._nn import log_softmax, softmax
from ._norms import norm
from ._ranking import argmax, sort, topk, unique_elements
from ._slicing import cumprod, cumsum, tile
from ._statistics import std, var

__all__ = [
    "argmax",
    "broadcast_to",
    "cumprod",
    "cumsum",
    "expand_as",
    "gather",
    "index_select",
    "log_softmax",
    "masked_fill",
    "norm",
    "repeat",
    "repeat_interleave",
    "scatter",
    "softmax",
    "sort",
    "std",
    "tile",
    "topk",
    "tril",
    "triu",
    "unique_elements",
    "var",
]
