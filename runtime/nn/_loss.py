"""Loss cells: `SoftmaxCrossEntropyWithLogits`, `CrossEntropyLoss`, `MSELoss`, `L1Loss`."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..compute._tensor import Tensor
from ..ops import _losses as ops_losses, _nn as nn_ops
from ._cell import Cell
from ._checks import check_bool, check_reduction

__all__ = [
    "CrossEntropyLoss",
    "L1Loss",
    "LossBase",
    "MSELoss",
    "SoftmaxCrossEntropyWithLogits",
]


def _t(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


class LossBase(Cell):
    """Base of losses: `get_loss` applies the reduction ('mean', 'sum' or 'none').

    Args:
        reduction: How per-element losses are combined.
    """

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = check_reduction(type(self).__name__, reduction)

    def get_loss(self, x: Tensor, weights: Any = 1.0) -> Tensor:
        """Weight `x` and reduce it."""
        if not (isinstance(weights, float) and weights == 1.0):
            x = x * weights
        if self.reduction == "mean":
            return ops.mean(x)
        if self.reduction == "sum":
            return ops.sum(x)
        return x


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Softmax cross-entropy between logits (N, C) and labels; forward and gradient in one kernel.

    Args:
        sparse: Labels are class indices (N,) instead of distributions (N, C).
        reduction: 'none' (default, per-sample losses), 'mean' or 'sum'.
        is_grad: Accepted from MindSpore 1.x code (`is_grad=False`), where it
            chose a graph-mode gradient path; the tape always differentiates the
            loss, so it changes nothing (a bool is still required).
    """

    def __init__(
        self, sparse: bool = False, reduction: str = "none", *, is_grad: bool = False
    ) -> None:
        super().__init__(reduction)
        self.sparse = check_bool("SoftmaxCrossEntropyWithLogits", "sparse", sparse)
        check_bool("SoftmaxCrossEntropyWithLogits", "is_grad", is_grad)

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        lg, lb = _t(logits), _t(labels)
        if lg.ndim != 2:
            raise ValueError(
                f"For 'SoftmaxCrossEntropyWithLogits', 'logits' must be 2-D (N, C), but got shape {lg.shape}."
            )
        if self.sparse and lb.shape != lg.shape[:1]:
            raise ValueError(
                f"For 'SoftmaxCrossEntropyWithLogits', sparse 'labels' must have shape {lg.shape[:1]}, but got {lb.shape}."
            )
        if not self.sparse and lb.shape != lg.shape:
            raise ValueError(
                f"For 'SoftmaxCrossEntropyWithLogits', 'labels' must have the shape of 'logits' {lg.shape}, but got {lb.shape}."
            )
        return self.get_loss(nn_ops.softmax_cross_entropy(lg, lb, self.sparse))


class CrossEntropyLoss(LossBase):
    """Cross-entropy between logits (N, C) and class indices (N,) or class probabilities (N, C).

    Args:
        weight: Optional per-class weights (C,).
        ignore_index: Class index whose samples are ignored.

    Logits may also be (N, C, d1, ...) with targets (N, d1, ...); see `ops.cross_entropy`.
        reduction: 'mean' (weighted mean over non-ignored samples), 'sum' or 'none'.
        label_smoothing: In [0, 1]; mixes the target with the uniform distribution.
    """

    def __init__(
        self,
        weight: Any = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(reduction)
        if (
            not isinstance(label_smoothing, (int, float))  # type: ignore[redundant-expr]
            or not 0 <= label_smoothing <= 1
        ):
            raise ValueError(
                f"For 'CrossEntropyLoss', the argument 'label_smoothing' must be in range [0, 1], but got {label_smoothing!r}."
            )
        if not isinstance(ignore_index, int):
            raise TypeError(
                f"For 'CrossEntropyLoss', the argument 'ignore_index' must be an int, but got {ignore_index!r}."
            )
        self.class_weight = None if weight is None else _t(weight)
        self.ignore_index = ignore_index
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return ops_losses.cross_entropy(
            _t(logits),
            _t(labels),
            self.class_weight,
            self.ignore_index,
            self.reduction,
            self.label_smoothing,
        )


class MSELoss(LossBase):
    """Mean squared error: reduce((logits - labels) ** 2).

    Args:
        reduction: 'mean', 'sum' or 'none'.
    """

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return self.get_loss(ops.square(ops.sub(logits, labels)))


class L1Loss(LossBase):
    """Mean absolute error: reduce(|logits - labels|).

    Args:
        reduction: 'mean', 'sum' or 'none'.
    """

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return self.get_loss(ops.abs(ops.sub(logits, labels)))
