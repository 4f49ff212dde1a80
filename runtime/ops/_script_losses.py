"""Losses public scripts call: `binary_cross_entropy`, `huber_loss`, `cosine_embedding_loss`, `focal_loss`.

Each is composed from differentiable ops (no new loop), so its gradient comes
from theirs and it runs on every target they run on. The `cadence.nn` cells
`BCELoss`, `HuberLoss`, `CosineEmbeddingLoss` and `FocalLoss` call these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_number
from . import _elementwise as e, _functional as f, _nn as n
from ._gather_elements import gather_elements
from ._losses import _reduce, _reduction, _same_shape, _tensor, smooth_l1_elements

__all__ = ["binary_cross_entropy", "cosine_embedding_loss", "focal_loss", "huber_loss"]

# The smallest probability whose log is taken: log(1e-12) = -27.63 bounds the loss, as MindSpore's.
_LOG_FLOOR = 1e-12


def _float_input(owner: str, name: str, value: Any) -> Tensor:
    t = _tensor(owner, name, value)
    if t._data.dtype.kind != "f":
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a float tensor, but got {t.dtype!r}."
        )
    return t


def binary_cross_entropy(
    logits: Any, labels: Any, weight: Any = None, reduction: str = "mean"
) -> Tensor:
    """-weight * (labels * log(p) + (1 - labels) * log(1 - p)) of probabilities `logits` = p.

    `labels` has the shape of `logits`; `weight` broadcasts against it. Each log
    is of at least 1e-12, so a certain wrong answer costs 27.63, not inf.
    """
    owner = "binary_cross_entropy"
    p = _float_input(owner, "logits", logits)
    y = _tensor(owner, "labels", labels)
    _same_shape(owner, p, "labels", y)
    how = _reduction(owner, reduction)
    loss = f._binary(p, y, _bce, _bce_grad_p, _bce_grad_y)
    if weight is not None:
        loss = f.mul(loss, _tensor(owner, "weight", weight))
    return _reduce(loss, how)


def _logs(p: Any) -> tuple[Any, Any]:
    return np.log(np.maximum(p, _LOG_FLOOR)), np.log(np.maximum(1 - p, _LOG_FLOOR))


def _bce(p: Any, y: Any) -> Any:
    log_p, log_not_p = _logs(p)
    return -(y * log_p + (1 - y) * log_not_p)


def _bce_grad_p(g: Any, p: Any, y: Any, _: Any) -> Any:
    # (p - y) / (p (1 - p)), the denominator kept from 0 as MindSpore's backward kernel does,
    # so a confidently wrong probability still gets a (large) gradient.
    return g * (p - y) / np.maximum(p * (1 - p), _LOG_FLOOR)


def _bce_grad_y(g: Any, p: Any, y: Any, _: Any) -> Any:
    log_p, log_not_p = _logs(p)
    return g * (log_not_p - log_p)


def huber_loss(
    input: Any, target: Any, reduction: str = "mean", delta: float = 1.0
) -> Tensor:
    """0.5 d² where d = |input - target| <= delta, else delta * (d - 0.5 delta); the two broadcast."""
    owner = "huber_loss"
    x, t = _tensor(owner, "input", input), _tensor(owner, "target", target)
    how = _reduction(owner, reduction)
    bound = check_number(delta, "delta", owner, minimum=0.0, inclusive=False)
    # delta times smooth L1 with beta = delta: the same two pieces, scaled.
    return _reduce(f.mul(smooth_l1_elements(f.sub(x, t), bound), float(bound)), how)


def cosine_embedding_loss(
    input1: Any, input2: Any, target: Any, margin: float = 0.0, reduction: str = "mean"
) -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, 0 elsewhere.

    The cosine is taken along axis 1; `target` has the inputs' shape without it.
    """
    owner = "cosine_embedding_loss"
    a, b = _tensor(owner, "input1", input1), _tensor(owner, "input2", input2)
    y = _tensor(owner, "target", target)
    _same_shape(owner, a, "input2", b)
    check_number(margin, "margin", owner, minimum=-1.0, maximum=1.0)
    how = _reduction(owner, reduction)
    if a.ndim < 2 or y.shape != a.shape[:1] + a.shape[2:]:
        raise ValueError(
            f"For '{owner}', the inputs must have an axis 1 and 'target' their shape without "
            f"it, but got {a.shape} and {y.shape}."
        )
    norms = f.mul(f.sqrt(f.sum(f.square(a), 1)), f.sqrt(f.sum(f.square(b), 1)))
    cosine = f.div(f.sum(f.mul(a, b), 1), norms)
    zeros = f.zeros_like(cosine)
    similar = e.select(f.equal(y, 1), f.sub(1.0, cosine), zeros)
    apart = e.select(
        f.equal(y, -1), f.maximum(f.sub(cosine, float(margin)), 0.0), zeros
    )
    return _reduce(f.add(similar, apart), how)


def focal_loss(
    logits: Any,
    labels: Any,
    weight: Any = None,
    gamma: float = 2.0,
    reduction: str = "mean",
) -> Tensor:
    """Focal loss -(1 - p)^gamma * log(p) of (N, C[, H[, W]]) logits, averaged over positions.

    `labels` has the rank of `logits` and, on axis 1, either 1 (class indices: the
    result is (N,) before `reduction`) or C (per-class targets that weigh each
    class's term: (N, C)). `weight` (C,) scales each class's log-probability.
    """
    owner = "FocalLoss"
    x, y = _float_input(owner, "logits", logits), _tensor(owner, "labels", labels)
    how = _reduction(owner, reduction)
    _check_focal_shapes(owner, x, y)
    flat = (x.shape[0], x.shape[1], -1)
    log_p = n.log_softmax(f.reshape(x, flat), 1)
    targets = f.reshape(y, (y.shape[0], y.shape[1], -1))
    by_index = y.shape[1] == 1
    if by_index:
        picks = Tensor._wrap(np.asarray(targets.asnumpy()).astype(np.int64))
        log_p = gather_elements(log_p, 1, picks)
    p = f.exp(log_p)  # before weighting: the focus term sees the true probability
    if weight is not None:
        w = _tensor(owner, "weight", weight)
        # Class indices pick each position's weight; per-class targets take all of them.
        log_p = f.mul(
            log_p, f.getitem(w, picks) if by_index else f.reshape(w, (1, -1, 1))
        )
    scaled = f.mul(f.pow(f.sub(1.0, p), float(gamma)), f.neg(log_p))
    if by_index:
        return _reduce(f.mean(f.squeeze(scaled, 1), 1), how)
    return _reduce(f.mean(f.mul(scaled, f.cast(targets, x._data.dtype)), -1), how)


def _check_focal_shapes(owner: str, x: Tensor, y: Tensor) -> None:
    if not 2 <= x.ndim <= 4 or y.ndim != x.ndim:
        raise ValueError(
            f"For '{owner}', 'logits' and 'labels' must have one rank in [2, 4], but got shapes "
            f"{x.shape} and {y.shape}."
        )
    if x.shape[1] == 1 or y.shape[1] not in (1, x.shape[1]):
        raise ValueError(
            f"For '{owner}', 'logits' needs more than one class on axis 1 and 'labels' 1 or as "
            f"many, but got shapes {x.shape} and {y.shape}."
        )
