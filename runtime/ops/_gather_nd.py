"""`ops.gather_nd` / `ops.GatherNd`: slices of a tensor at index tuples (beam search's gather).

The last axis of `indices` holds a position in the leading axes of the input; the
result has `indices`' other axes followed by the input's remaining ones. The
gradient adds back at repeated positions (`getitem`'s scatter-add).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import _functional as f

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["gather_nd"]


def gather_nd(input_x: Any, indices: Any) -> Tensor:
    """`input_x[indices[..., 0], indices[..., 1], ...]`, differentiable in `input_x`."""
    x = f.as_tensor(input_x)
    index = np.asarray(f.as_tensor(indices).asnumpy())
    if index.dtype.kind not in "iu" or index.ndim < 1 or index.shape[-1] > x.ndim:
        raise ValueError(
            f"For 'GatherNd', the argument 'indices' must be an integer tensor whose last axis "
            f"(at most {x.ndim}) indexes the input's leading axes, but got dtype "
            f"{index.dtype} and shape {index.shape}."
        )
    depth = index.shape[-1]
    bounds = np.asarray(x.shape[:depth])
    if ((index < 0) | (index >= bounds)).any():
        raise ValueError(
            f"For 'GatherNd', the argument 'indices' must lie inside the input's leading axes "
            f"{tuple(x.shape[:depth])}, but got {index.reshape(-1, depth).tolist()}."
        )
    return f.getitem(x, tuple(index[..., i] for i in range(depth)))
