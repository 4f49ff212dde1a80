"""`ops.clip_by_norm`: rescale a Tensor, or Tensors together, so their norm is at most `max_norm`.

(`clip_by_value` is `clip`; `clip_by_global_norm` lives in `composite`, MindSpore's `C`.)
"""

from __future__ import annotations

import math
from typing import Any

from ..compute._tensor import Tensor
from . import _functional as f

__all__ = ["clip_by_norm"]


def _norm(x: Tensor, norm_type: float) -> Tensor:
    if math.isinf(norm_type):
        return f.amax(f.abs(x))
    return f.pow(f.sum(f.pow(f.abs(x), norm_type)), 1.0 / norm_type)


def clip_by_norm(
    x: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False
) -> Any:
    """Scale `x` (a Tensor, or a list/tuple of Tensors sharing one total norm) by min(1, max_norm / (norm + 1e-6)).

    Raises:
        TypeError: `x` not a Tensor or a sequence of Tensors; `max_norm` or `norm_type` not a number.
        RuntimeError: `error_if_nonfinite` and the total norm is nan or inf.
    """
    many = isinstance(x, list | tuple)
    tensors = list(x) if many else [x]
    if not tensors or not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError(
            f"For 'clip_by_norm', the argument 'x' must be a Tensor or a non-empty list/tuple of Tensors, but got {x!r}."
        )
    for name, value in (("max_norm", max_norm), ("norm_type", norm_type)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(
                f"For 'clip_by_norm', the argument '{name}' must be a float, but got {value!r}."
            )
    norms = [_norm(t, float(norm_type)) for t in tensors]
    total = norms[0] if len(norms) == 1 else _norm(f.stack(norms), float(norm_type))
    if error_if_nonfinite and not math.isfinite(float(total.asnumpy())):
        raise RuntimeError(
            f"For 'clip_by_norm', the total norm of order {norm_type} is non-finite ({float(total.asnumpy())}), "
            "so it cannot be clipped; pass error_if_nonfinite=False to clip anyway."
        )
    scale = f.minimum(f.div(float(max_norm), f.add(total, 1e-6)), 1.0)
    out = [f.mul(t, scale) for t in tensors]
    return type(x)(out) if many else out[0]
