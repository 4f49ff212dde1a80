"""`ReLU6` and `HSwish`, the activations of the mobile networks (MobileNetV2, V3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops._activations import hardswish, relu6
from ._cell import Cell

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["HSwish", "ReLU6"]


class ReLU6(Cell):
    """min(max(x, 0), 6), elementwise."""

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return relu6(x)


class HSwish(Cell):
    """x * relu6(x + 3) / 6, elementwise (hard swish)."""

    def construct(self, x: Any) -> Tensor:
        """Apply the activation."""
        return hardswish(x)
