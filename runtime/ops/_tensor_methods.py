"""The composed ops that `Tensor` methods run, handed to `Tensor` with `_functional` (see `bind_functional`)."""

from __future__ import annotations

from ._attention import masked_fill
from ._composed import gather
from ._nn import log_softmax, softmax
from ._slicing import tile

__all__ = ["gather", "log_softmax", "masked_fill", "softmax", "tile"]
