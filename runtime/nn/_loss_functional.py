"""Loss cells over the functional losses of `cadence.ops`: `BCEWithLogitsLoss`, `NLLLoss`, `SmoothL1Loss`, `KLDivLoss`.

Each cell checks its arguments when built (MindSpore's names and defaults)
and calls its `ops.` twin; `CrossEntropyLoss` (in `_loss`) calls
`ops.cross_entropy` the same way.
"""

from __future__ import annotations

from typing import Any

from ..compute._tensor import Tensor
from ..ops import _losses
from ..validation import check_choice, check_number, check_type
from ._cell import Cell

__all__ = ["BCEWithLogitsLoss", "KLDivLoss", "NLLLoss", "SmoothL1Loss"]


def _reduction(owner: str, value: Any, allowed: tuple[str, ...]) -> str:
    return str(check_choice(value, "reduction", allowed, owner))


def _optional_tensor(owner: str, name: str, value: Any) -> Tensor | None:
    return None if value is None else check_type(value, name, Tensor, owner)


_BASIC = ("mean", "sum", "none")


class BCEWithLogitsLoss(Cell):
    """Binary cross-entropy on logits, as `ops.binary_cross_entropy_with_logits`.

    Args:
        reduction: 'mean' (default), 'sum' or 'none'.
        weight: Optional Tensor broadcast against the per-element loss.
        pos_weight: Optional Tensor weighting the positive term (per class, last axis).
    """

    def __init__(
        self, reduction: str = "mean", weight: Any = None, pos_weight: Any = None
    ) -> None:
        super().__init__()
        self.reduction = _reduction("BCEWithLogitsLoss", reduction, _BASIC)
        self.weight = _optional_tensor("BCEWithLogitsLoss", "weight", weight)
        self.pos_weight = _optional_tensor(
            "BCEWithLogitsLoss", "pos_weight", pos_weight
        )

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _losses.binary_cross_entropy_with_logits(
            logits, labels, self.weight, self.pos_weight, self.reduction
        )


class NLLLoss(Cell):
    """Negative log-likelihood of log-probabilities at class indices, as `ops.nll_loss`.

    Args:
        weight: Optional per-class weights (C,).
        ignore_index: Class index whose samples count neither in the loss nor in the mean.
        reduction: 'mean' (default), 'sum' or 'none'.
    """

    def __init__(
        self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean"
    ) -> None:
        super().__init__()
        self.weight = _optional_tensor("NLLLoss", "weight", weight)
        self.ignore_index = check_type(ignore_index, "ignore_index", int, "NLLLoss")
        self.reduction = _reduction("NLLLoss", reduction, _BASIC)

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _losses.nll_loss(
            logits, labels, self.weight, self.ignore_index, self.reduction
        )


class SmoothL1Loss(Cell):
    """Smooth L1 (Huber-style) loss, as `ops.smooth_l1_loss`.

    Args:
        beta: Where the loss turns from quadratic to linear, a float > 0.
        reduction: 'none' (default, as MindSpore), 'mean' or 'sum'.
    """

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__()
        self.beta = check_number(
            beta, "beta", "SmoothL1Loss", minimum=0.0, inclusive=False
        )
        self.reduction = _reduction("SmoothL1Loss", reduction, _BASIC)

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _losses.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class KLDivLoss(Cell):
    """Kullback-Leibler divergence of log-probabilities from labels, as `ops.kl_div`.

    Args:
        reduction: 'mean' (default, over every element), 'batchmean', 'sum' or 'none'.
    """

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = _reduction(
            "KLDivLoss", reduction, ("mean", "batchmean", "sum", "none")
        )

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _losses.kl_div(logits, labels, self.reduction)
