"""Adaptive max pooling (`ops.adaptive_max_pool2d`, `ops.AdaptiveMaxPool2D`, `nn.AdaptiveMaxPool2d`).

The windows are adaptive average pooling's (MindSpore's): output cell i covers
input rows [floor(i*H/oh), ceil((i+1)*H/oh)). The maxima are found on the host
and gathered from the input, so the gradient reaches exactly the chosen element
of each window (added up where overlapping windows chose the same one).
"""

from __future__ import annotations

from typing import Any, Literal, overload

import numpy as np

from ..compute._tensor import Tensor
from . import _functional as f
from ._ranking import gather_rows
from ._spatial import adaptive_sizes

__all__ = ["adaptive_max_pool2d", "adaptive_max_pool2d_op"]


def _bounds(size: int, out: int) -> list[tuple[int, int]]:
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _argmax_planes(
    planes: np.ndarray[Any, Any], oh: int, ow: int
) -> np.ndarray[Any, Any]:
    """(P, H, W) -> (P, oh, ow): the flat (H*W) index of each window's maximum (the first on ties)."""
    p, h, w = planes.shape
    flat = np.arange(h * w).reshape(h, w)
    out = np.empty((p, oh, ow), np.int64)
    for i, (r0, r1) in enumerate(_bounds(h, oh)):
        for j, (c0, c1) in enumerate(_bounds(w, ow)):
            window = planes[:, r0:r1, c0:c1].reshape(p, -1)
            out[:, i, j] = flat[r0:r1, c0:c1].ravel()[np.argmax(window, axis=1)]
    return out


@overload
def adaptive_max_pool2d(
    input: Any, output_size: Any, return_indices: Literal[False] = False
) -> Tensor: ...
@overload
def adaptive_max_pool2d(
    input: Any, output_size: Any, return_indices: Literal[True]
) -> tuple[Tensor, Tensor]: ...
@overload
def adaptive_max_pool2d(
    input: Any, output_size: Any, return_indices: bool
) -> Tensor | tuple[Tensor, Tensor]: ...
def adaptive_max_pool2d(
    input: Any, output_size: Any, return_indices: bool = False
) -> Tensor | tuple[Tensor, Tensor]:
    """Max pooling of (N, C, H, W) or (C, H, W) input to `output_size`; with `return_indices`, also the Int64 flat indices."""
    t = f.as_tensor(input)
    if t.ndim not in (3, 4):
        raise ValueError(
            f"For 'adaptive_max_pool2d', the input must be 3-D or 4-D, but got shape {t.shape}."
        )
    h, w = t.shape[-2:]
    oh, ow = adaptive_sizes("adaptive_max_pool2d", output_size, h, w)
    planes = f.reshape(t, (-1, h * w))
    index = _argmax_planes(np.asarray(planes._data).reshape(-1, h, w), oh, ow)
    picked = gather_rows(planes, index.reshape(index.shape[0], -1))
    shape = (*t.shape[:-2], oh, ow)
    values = f.reshape(picked, shape)
    if not return_indices:
        return values
    return values, Tensor(index.reshape(shape))


def adaptive_max_pool2d_op(input: Any, *, output_size: Any) -> tuple[Tensor, Tensor]:
    """`ops.AdaptiveMaxPool2D(output_size)(x)`: (values, indices); `output_size` must be a pair."""
    if not isinstance(output_size, tuple | list):
        raise TypeError(
            f"For 'AdaptiveMaxPool2D', the argument 'output_size' must be a tuple or list of two ints "
            f"(or None), but got {output_size!r}."
        )
    return adaptive_max_pool2d(input, output_size, True)
