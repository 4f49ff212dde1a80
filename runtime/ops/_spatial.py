"""Spatial ops of the convolutional networks: adaptive average pooling, channel dropout, mirror padding.

Each is a composition of differentiable ops that run on every target (the
pooling kernel, `mean`, `matmul`, `mul`, `getitem`), so none needs a kernel
of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute._context import rng
from ..compute._tensor import Tensor
from . import _functional as f, _nn as n

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["adaptive_avg_pool2d", "adaptive_sizes", "dropout2d", "mirror_pad"]


def adaptive_sizes(
    op: str, output_size: Any, height: int, width: int
) -> tuple[int, int]:
    """MindSpore's `output_size`: an int, or a pair of ints or None (None keeps the input's size)."""
    items = (output_size, output_size) if isinstance(output_size, int) else output_size
    if (
        not isinstance(items, tuple | list)
        or len(items) != 2
        or any(
            v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1)
            for v in items
        )
    ):
        raise ValueError(
            f"For '{op}', the argument 'output_size' must be a positive int or a pair of positive ints "
            f"or None, but got {output_size!r}."
        )
    return (
        height if items[0] is None else items[0],
        width if items[1] is None else items[1],
    )


def _window_matrix(size: int, out: int, dtype: Any) -> Any:
    """(out, size): row i averages the input window [floor(i*size/out), ceil((i+1)*size/out))."""
    m = np.zeros((out, size), dtype)
    for i in range(out):
        lo, hi = (i * size) // out, -(-((i + 1) * size) // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Tensor:
    """Average pooling of (N, C, H, W) or (C, H, W) input to `output_size`, with MindSpore's windows.

    Global pooling is a mean over (H, W); sizes that divide the input use the
    pooling kernel; any other size averages rows and then columns by two
    products with constant window matrices.
    """
    t = f.as_tensor(input)
    if t.ndim not in (3, 4):
        raise ValueError(
            f"For 'adaptive_avg_pool2d', the input must be 3-D or 4-D, but got shape {t.shape}."
        )
    h, w = t.shape[-2], t.shape[-1]
    oh, ow = adaptive_sizes("adaptive_avg_pool2d", output_size, h, w)
    if (oh, ow) == (1, 1):
        return f.mean(t, (-2, -1), keep_dims=True)
    if h % oh == 0 and w % ow == 0 and t.ndim == 4:
        kernel = (h // oh, w // ow)
        return n.avg_pool2d(t, kernel, kernel)
    dt = t._data.dtype
    rows = Tensor._wrap(_window_matrix(h, oh, dt))
    cols = Tensor._wrap(np.ascontiguousarray(_window_matrix(w, ow, dt).T))
    return f.matmul(rows, f.matmul(t, cols))


def dropout2d(input: Any, p: float = 0.5, training: bool = True) -> Tensor:
    """Zero whole channels of (N, C, H, W) input with probability `p`, scale the rest by 1 / (1 - p).

    Draws from the `"dropout"` stream of `cadence.set_seed`.
    """
    t = f.as_tensor(input)
    if not isinstance(p, int | float) or isinstance(p, bool) or not 0 <= p <= 1:  # type: ignore[redundant-expr]
        raise ValueError(
            f"For 'dropout2d', the argument 'p' must be a number in range [0, 1], but got {p!r}."
        )
    if t.ndim != 4:
        raise ValueError(
            f"For 'dropout2d', the input must be 4-D (N, C, H, W), but got shape {t.shape}."
        )
    if not training or p == 0:
        return t
    keep = rng("dropout").random((t.shape[0], t.shape[1], 1, 1), dtype=np.float32) >= p
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return f.mul(t, Tensor._wrap((keep * scale).astype(t._data.dtype)))


_MIRROR_MODES = ("REFLECT", "SYMMETRIC")


def mirror_pad(input: Any, paddings: Sequence[tuple[int, int]], mode: str) -> Tensor:
    """Pad each axis by (before, after) mirrored elements: 'REFLECT' skips the edge, 'SYMMETRIC' repeats it."""
    t = f.as_tensor(input)
    if mode not in _MIRROR_MODES:
        raise ValueError(
            f"For 'MirrorPad', the argument 'mode' must be one of {list(_MIRROR_MODES)}, but got {mode!r}."
        )
    edge = 0 if mode == "SYMMETRIC" else 1
    for axis, (before, after) in enumerate(paddings):
        size = t.shape[axis]
        if max(before, after) > size - edge:
            limit = "less than" if edge else "at most"
            raise ValueError(
                f"For 'MirrorPad', the paddings of axis {axis} must be {limit} its size {size} in mode "
                f"{mode!r}, but got {(before, after)}."
            )
        if before == 0 and after == 0:
            continue
        # Positions -before .. size+after-1 folded back into 0 .. size-1 by the mirror rule.
        pos = np.arange(-before, size + after)
        pos = np.where(pos < 0, -pos - 1 + edge, pos)
        pos = np.where(pos >= size, 2 * size - 1 - pos - edge, pos)
        t = f.getitem(t, (slice(None),) * axis + (pos,))
    return t
