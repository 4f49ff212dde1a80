"""The composed ops that `Tensor` methods run, handed to `Tensor` with `_functional` (see `bind_functional`)."""

from __future__ import annotations

from ._attention import masked_fill
from ._composed import gather
from ._expanding import broadcast_to, expand_as, repeat, repeat_interleave
from ._nn import log_softmax, softmax
from ._norms import norm
from ._ranking import argmax, topk
from ._slicing import cumsum, tile

__all__ = [
    "argmax",
    "broadcast_to",
    "cumsum",
    "expand_as",
    "gather",
    "log_softmax",
    "masked_fill",
    "norm",
    "repeat",
    "repeat_interleave",
    "softmax",
    "tile",
    "topk",
]
