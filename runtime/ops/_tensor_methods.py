"""The composed ops that `Tensor` methods run, handed to `Tensor` with `_functional` (see `bind_functional`)."""

from __future__ import annotations

from ._attention import masked_fill, split
from ._composed import gather
from ._expanding import broadcast_to, expand_as, repeat, repeat_interleave
from ._gather_elements import gather_elements
from ._indexing import index_select, masked_select, nonzero, scatter
from ._matrices import trace, tril, triu
from ._nn import log_softmax, softmax
from ._norms import norm
from ._ranking import argmax, argsort, sort, topk, unique_elements
from ._reordering import flip, roll
from ._slicing import chunk, cumprod, cumsum, tile
from ._statistics import std, var

__all__ = [
    "argmax",
    "argsort",
    "broadcast_to",
    "chunk",
    "cumprod",
    "cumsum",
    "expand_as",
    "flip",
    "gather",
    "gather_elements",
    "index_select",
    "log_softmax",
    "masked_fill",
    "masked_select",
    "nonzero",
    "norm",
    "repeat",
    "repeat_interleave",
    "roll",
    "scatter",
    "softmax",
    "sort",
    "split",
    "std",
    "tile",
    "topk",
    "trace",
    "tril",
    "triu",
    "unique_elements",
    "var",
]
