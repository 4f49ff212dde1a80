"""MindSpore's `mindspore.ops.composite` path (imported as `C`): gradients and function mapping.

`C.GradOperation` builds gradient functions for custom training cells;
`C.MultitypeFuncGraph`, `C.HyperMap` and `C.Map` apply a function to every
gradient; `C.clip_by_global_norm` rescales a tuple of gradients; `C.vmap` maps a
function over an axis of its inputs.
"""

from __future__ import annotations

from typing import Any

from ..compute._grad import grad, value_and_grad
from ..compute._tensor import Tensor
from . import _functional as f
from ._functional import clip as clip_by_value
from ._grad_operation import GradOperation
from ._multitype import HyperMap, Map, MultitypeFuncGraph
from ._vmap import vmap

__all__ = [
    "GradOperation",
    "HyperMap",
    "Map",
    "MultitypeFuncGraph",
    "clip_by_global_norm",
    "clip_by_value",
    "grad",
    "value_and_grad",
    "vmap",
]


def clip_by_global_norm(
    x: Any, clip_norm: Any = 1.0, use_norm: Any = None
) -> tuple[Tensor, ...]:
    """Scale every tensor of `x` by clip_norm / max(global norm, clip_norm); differentiable.

    The global norm is the square root of the sum of squares over all tensors
    (or `use_norm` when given).

    Raises:
        TypeError: If `x` is not a tuple or list of Tensors.
        ValueError: If `clip_norm` is not > 0.
    """
    if not isinstance(x, tuple | list) or not all(isinstance(t, Tensor) for t in x):
        raise TypeError(
            f"For 'clip_by_global_norm', the argument 'x' must be a tuple of Tensors, but got {x!r}."
        )
    if (
        isinstance(clip_norm, bool)
        or not isinstance(clip_norm, int | float)
        or clip_norm <= 0
    ):
        raise ValueError(
            f"For 'clip_by_global_norm', the argument 'clip_norm' must be a number > 0, but got {clip_norm!r}."
        )
    if use_norm is None:
        total: Any = 0.0
        for t in x:
            total = f.add(total, f.sum(f.square(t)))
        norm = f.sqrt(total)
    else:
        norm = f.as_tensor(use_norm)
    scale = f.div(clip_norm, f.maximum(norm, clip_norm))
    return tuple(f.mul(t, scale) for t in x)
