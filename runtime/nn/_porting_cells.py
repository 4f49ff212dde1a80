"""Cells a ported MindSpore script still needed: `ClipByNorm` and `AdaptiveMaxPool2d`."""

from __future__ import annotations

from typing import Any

from ..compute._tensor import Tensor
from ..ops import _functional as f
from ..ops._adaptive_max_pool import adaptive_max_pool2d
from ..ops._spatial import adaptive_sizes
from ..validation import check_bool
from ._cell import Cell

__all__ = ["AdaptiveMaxPool2d", "ClipByNorm"]


class ClipByNorm(Cell):
    """Scale `x` so its L2 norm over `axis` is at most `clip_norm`: x * clip_norm / max(norm, clip_norm).

    Called as `ClipByNorm(axis)(x, clip_norm)`, both Tensors; the result is
    differentiable in `x`.

    Args:
        axis: The axes the norm runs over: an int, a tuple or list of ints, or None (all).
    """

    def __init__(self, axis: Any = None) -> None:
        super().__init__()
        items = (
            () if axis is None else axis if isinstance(axis, tuple | list) else (axis,)
        )
        if not isinstance(axis, int | tuple | list | None) or any(
            not isinstance(a, int) or isinstance(a, bool) for a in items
        ):
            raise TypeError(
                f"For 'ClipByNorm', the argument 'axis' must be None, an int or a tuple/list of ints, "
                f"but got {axis!r}."
            )
        self.axis = tuple(items) if axis is not None else None

    def construct(self, x: Any, clip_norm: Any) -> Tensor:
        """Clip."""
        for name, value in (("x", x), ("clip_norm", clip_norm)):
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"For 'ClipByNorm', the argument '{name}' must be a Tensor, but got {value!r}."
                )
        norm = f.sqrt(f.sum(f.square(x), self.axis, True))
        limit = f.cast(clip_norm, x.dtype)
        return f.div(f.mul(x, limit), f.maximum(norm, limit))

    def extend_repr(self) -> str:
        """Show the axes."""
        return f"axis={self.axis}"


class AdaptiveMaxPool2d(Cell):
    """Max pooling of (N, C, H, W) or (C, H, W) input to a fixed output size.

    Args:
        output_size: int (square) or (height, width); None in the pair keeps that input size.
        return_indices: Also return the Int64 flat (H*W) index of each maximum.
    """

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        adaptive_sizes("AdaptiveMaxPool2d", output_size, 1, 1)
        self.output_size = output_size
        self.return_indices = check_bool(
            return_indices, "return_indices", "AdaptiveMaxPool2d"
        )

    def construct(self, x: Any) -> Tensor | tuple[Tensor, Tensor]:
        """Pool."""
        return adaptive_max_pool2d(x, self.output_size, self.return_indices)

    def extend_repr(self) -> str:
        """Show the output size."""
        return f"output_size={self.output_size}, return_indices={self.return_indices}"
