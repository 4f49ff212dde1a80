"""Loss cells over the functional losses of `cadence.ops`.

`BCEWithLogitsLoss`, `NLLLoss`, `SmoothL1Loss`, `KLDivLoss`, `BCELoss`, `HuberLoss`,
`CosineEmbeddingLoss`, `FocalLoss`.

Each cell checks its arguments when built (MindSpore's names and defaults)
and calls its `ops.` twin; `CrossEntropyLoss` (in `_loss`) calls
`ops.cross_entropy` the same way.
"""

from __future__ import annotations

from typing import Any

from ..compute._tensor import Tensor
from ..ops import _losses, _script_losses
from ..validation import check_choice, check_number, check_type
from ._cell import Cell

__all__ = [
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineEmbeddingLoss",
    "FocalLoss",
    "HuberLoss",
    "KLDivLoss",
    "NLLLoss",
    "SmoothL1Loss",
]


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


class BCELoss(Cell):
    """Binary cross-entropy of probabilities, as `ops.binary_cross_entropy`.

    Args:
        weight: Optional Tensor broadcast against the per-element loss.
        reduction: 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        self.weight = _optional_tensor("BCELoss", "weight", weight)
        self.reduction = _reduction("BCELoss", reduction, _BASIC)

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _script_losses.binary_cross_entropy(
            logits, labels, self.weight, self.reduction
        )


class HuberLoss(Cell):
    """Huber loss, as `ops.huber_loss`: quadratic within `delta` of the target, linear beyond.

    Args:
        reduction: 'mean' (default), 'sum' or 'none'.
        delta: Where the loss turns linear, a number > 0.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__()
        self.reduction = _reduction("HuberLoss", reduction, _BASIC)
        self.delta = check_number(
            delta, "delta", "HuberLoss", minimum=0.0, inclusive=False
        )

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _script_losses.huber_loss(logits, labels, self.reduction, self.delta)


class CosineEmbeddingLoss(Cell):
    """Cosine embedding loss, as `ops.cosine_embedding_loss`: pull pairs labelled 1 together, push -1 apart.

    Args:
        margin: In [-1, 1]: pairs labelled -1 cost only where their cosine exceeds it.
        reduction: 'mean' (default), 'sum' or 'none'.
    """

    def __init__(self, margin: float = 0.0, reduction: str = "mean") -> None:
        super().__init__()
        self.margin = check_number(
            margin, "margin", "CosineEmbeddingLoss", minimum=-1.0, maximum=1.0
        )
        self.reduction = _reduction("CosineEmbeddingLoss", reduction, _BASIC)

    def construct(self, logits_x1: Any, logits_x2: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _script_losses.cosine_embedding_loss(
            logits_x1, logits_x2, labels, self.margin, self.reduction
        )


class FocalLoss(Cell):
    """Focal loss of (N, C[, H[, W]]) logits: -(1 - p)^gamma * log(p), hard examples weighing more.

    Args:
        weight: Optional 1-D Tensor of per-class weights.
        gamma: The focusing exponent (0 is cross-entropy), a number.
        reduction: 'mean' (default), 'sum' or 'none'.
    """

    def __init__(
        self, weight: Any = None, gamma: float = 2.0, reduction: str = "mean"
    ) -> None:
        super().__init__()
        self.weight = _optional_tensor("FocalLoss", "weight", weight)
        if self.weight is not None and self.weight.ndim != 1:
            raise ValueError(
                f"For 'FocalLoss', the argument 'weight' must be 1-D, but got shape {self.weight.shape}."
            )
        self.gamma = check_number(gamma, "gamma", "FocalLoss")
        self.reduction = _reduction("FocalLoss", reduction, _BASIC)

    def construct(self, logits: Any, labels: Any) -> Tensor:
        """Return the loss."""
        return _script_losses.focal_loss(
            logits, labels, self.weight, self.gamma, self.reduction
        )
