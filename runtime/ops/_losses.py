"""Functional losses of issue 23 with MindSpore's signatures, composed from differentiable ops.

`binary_cross_entropy_with_logits`, `nll_loss`, `cross_entropy`,
`smooth_l1_loss`, `kl_div`, `mse_loss` and `l2_loss` (`ops.L2Loss`): each is a short formula over `_functional`,
`_elementwise`, `_activations` and `_nn`, so its gradient comes from theirs
and it runs on every target those run on. Class-index targets become
constant one-hot weights (no gradient flows to a target that is an index).
The `cadence.nn` loss cells call these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_choice, check_number, check_type
from . import _activations as a, _elementwise as e, _functional as f, _nn as n

__all__ = [
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "kl_div",
    "l2_loss",
    "mse_loss",
    "nll_loss",
    "smooth_l1_elements",
    "smooth_l1_loss",
]

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(
    owner: str, reduction: Any, allowed: tuple[str, ...] = _REDUCTIONS
) -> str:
    return str(check_choice(reduction, "reduction", allowed, owner))


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return f.mean(loss)
    if reduction == "sum":
        return f.sum(loss)
    return loss


def _tensor(owner: str, name: str, value: Any) -> Tensor:
    return check_type(value, name, Tensor, owner)  # type: ignore[no-any-return]


def _same_shape(owner: str, x: Tensor, name: str, y: Tensor) -> None:
    if x.shape != y.shape:
        raise ValueError(
            f"For '{owner}', the argument '{name}' must have the shape of the input {x.shape}, but got {y.shape}."
        )


def binary_cross_entropy_with_logits(
    input: Any,
    target: Any,
    weight: Any = None,
    pos_weight: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross-entropy of sigmoid(input) against `target`, computed stably from the logits.

    loss = weight * ((1 - t) x + (1 + (pos_weight - 1) t) log(1 + exp(-x))), with
    `weight` and `pos_weight` (per class, the last axis) broadcast against the input.
    """
    owner = "binary_cross_entropy_with_logits"
    x = _tensor(owner, "input", input)
    t = _tensor(owner, "target", target)
    _same_shape(owner, x, "target", t)
    how = _reduction(owner, reduction)
    if pos_weight is None:
        loss = a.sigmoid_cross_entropy_with_logits(x, t)
    else:
        pw = _tensor(owner, "pos_weight", pos_weight)
        # softplus(-x) = log(1 + exp(-|x|)) + max(-x, 0), without overflow.
        softplus_neg = f.add(e.log1p(f.exp(f.neg(f.abs(x)))), n.relu(f.neg(x)))
        log_weight = f.add(f.mul(f.sub(pw, 1.0), t), 1.0)
        loss = f.add(f.mul(f.sub(1.0, t), x), f.mul(log_weight, softplus_neg))
    if weight is not None:
        loss = f.mul(loss, _tensor(owner, "weight", weight))
    return _reduce(loss, how)


def _class_last(owner: str, x: Tensor) -> Tensor:
    """(N, C) as is; (N, C, d1, ...) as (N * d1 * ..., C), the class axis last."""
    if x.ndim < 2:
        raise ValueError(
            f"For '{owner}', the argument 'input' must be (N, C) or (N, C, d1, ...), but got shape {x.shape}."
        )
    if x.ndim == 2:
        return x
    perm = (0, *range(2, x.ndim), 1)
    return f.reshape(f.transpose(x, perm), (-1, x.shape[1]))


def _weighted_nll(
    owner: str,
    logp: Tensor,
    target: Any,
    weight: Any,
    ignore_index: Any,
    reduction: str,
    label_smoothing: Any,
) -> Tensor:
    """The shared core of nll_loss and cross_entropy, from log-probabilities `logp` (N, C, ...)."""
    how = _reduction(owner, reduction)
    check_type(ignore_index, "ignore_index", int, owner)
    check_number(label_smoothing, "label_smoothing", owner, minimum=0.0, maximum=1.0)
    c = logp.shape[1] if logp.ndim >= 2 else 0
    rows = _class_last(owner, logp)
    w = None
    if weight is not None:
        w = np.asarray(_tensor(owner, "weight", weight).asnumpy(), np.float64)
        if w.shape != (c,):
            raise ValueError(
                f"For '{owner}', the argument 'weight' must have shape {(c,)}, but got {w.shape}."
            )
    target_tensor = _tensor(owner, "target", target)
    per_class = np.ones(c) if w is None else w
    dtype = rows._data.dtype
    coef: Any
    if np.dtype(target_tensor._data.dtype).kind in "iu":
        # Class indices: constant one-hot weights (no gradient flows to an index).
        labels = target_tensor.asnumpy()
        expected = (logp.shape[0], *logp.shape[2:])
        if labels.shape != expected:
            raise ValueError(
                f"For '{owner}', class-index 'target' must have shape {expected}, but got {labels.shape}."
            )
        flat = labels.reshape(-1)
        valid = flat != ignore_index
        bad = flat[valid & ((flat < 0) | (flat >= c))]
        if bad.size:
            raise ValueError(
                f"For '{owner}', class indices in 'target' must be in [0, {c}) or {ignore_index}, but got {int(bad[0])}."
            )
        safe = np.where(valid, flat, 0)
        probs = np.eye(c)[safe]
        if label_smoothing:
            probs = probs * (1 - label_smoothing) + label_smoothing / c
        coef = Tensor((probs * per_class * valid[:, None]).astype(dtype))
        denom = float((valid * per_class[safe]).sum())
    else:
        # Class probabilities: a tensor like the input, differentiable (soft targets).
        if target_tensor.shape != logp.shape:
            raise ValueError(
                f"For '{owner}', probability 'target' must have the shape of the input {logp.shape}, but got "
                f"{target_tensor.shape}."
            )
        coef = _class_last(owner, target_tensor)
        if label_smoothing:
            coef = f.add(f.mul(coef, 1 - label_smoothing), label_smoothing / c)
        if w is not None:
            coef = f.mul(coef, Tensor(per_class.astype(dtype)))
        denom = float(coef.shape[0])
    loss = f.neg(f.sum(f.mul(rows, coef), axis=1))
    if how == "mean":
        return f.div(f.sum(loss), max(denom, 1e-12))
    if how == "sum":
        return f.sum(loss)
    return f.reshape(loss, (logp.shape[0], *logp.shape[2:]))


def nll_loss(
    inputs: Any,
    target: Any,
    weight: Any = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Negative log-likelihood of log-probabilities (N, C[, d...]) at class indices (N[, d...]).

    'mean' divides by the summed weights of the samples not equal to `ignore_index`.
    """
    x = _tensor("nll_loss", "inputs", inputs)
    return _weighted_nll(
        "nll_loss", x, target, weight, ignore_index, reduction, label_smoothing
    )


# fmt: off
def cross_entropy(
    input: Any, target: Any, weight: Any = None, ignore_index: int = -100,
    reduction: str = "mean", label_smoothing: float = 0.0,
) -> Tensor:
    # fmt: on
    """Cross-entropy of logits (N, C[, d...]) against class indices or class probabilities.

    With probabilities, 'mean' divides by N; with indices, by the summed weights
    of the samples not equal to `ignore_index`. `label_smoothing` mixes the target
    with the uniform distribution.
    """
    x = _tensor("cross_entropy", "input", input)
    logp = n.log_softmax(x, 1) if x.ndim >= 2 else x
    return _weighted_nll(
        "cross_entropy", logp, target, weight, ignore_index, reduction, label_smoothing
    )


def smooth_l1_loss(
    input: Any, target: Any, beta: float = 1.0, reduction: str = "none"
) -> Tensor:
    """Huber-style loss: 0.5 d² / beta where d = |input - target| < beta, else d - 0.5 beta."""
    owner = "smooth_l1_loss"
    x = _tensor(owner, "input", input)
    t = _tensor(owner, "target", target)
    _same_shape(owner, x, "target", t)
    check_number(beta, "beta", owner, minimum=0.0, inclusive=False)
    how = _reduction(owner, reduction)
    return _reduce(smooth_l1_elements(f.sub(x, t), float(beta)), how)


def smooth_l1_elements(diff: Tensor, beta: float) -> Tensor:
    """0.5 d² / beta where d = |diff| < beta, else d - 0.5 beta, per element."""
    d = f.abs(diff)
    quadratic = f.div(f.mul(f.square(d), 0.5), beta)
    linear = f.sub(d, 0.5 * beta)
    return e.select(f.less(d, beta), quadratic, linear)


def kl_div(logits: Any, labels: Any, reduction: str = "mean") -> Tensor:
    """Kullback-Leibler divergence labels * (log(labels) - logits), logits being log-probabilities.

    'batchmean' divides the sum by the batch size (axis 0); 'mean' averages over
    every element, as MindSpore does. Where a label is 0 its term is 0.
    """
    owner = "kl_div"
    x = _tensor(owner, "logits", logits)
    t = _tensor(owner, "labels", labels)
    _same_shape(owner, x, "labels", t)
    how = _reduction(owner, reduction, ("mean", "batchmean", "sum", "none"))
    positive = f.greater(t, 0.0)
    safe = e.select(positive, t, f.ones_like(t))
    loss = f.sub(
        e.select(positive, f.mul(t, f.log(safe)), f.zeros_like(t)), f.mul(t, x)
    )
    if how == "batchmean":
        return f.div(f.sum(loss), float(x.shape[0]) if x.ndim else 1.0)
    return _reduce(loss, how)


def mse_loss(input: Any, target: Any, reduction: str = "mean") -> Tensor:
    """Squared error (input - target)², the two broadcast; integer inputs give Float32."""
    owner = "mse_loss"
    x = _tensor(owner, "input", input)
    t = _tensor(owner, "target", target)
    how = _reduction(owner, reduction)
    if x._data.dtype.kind not in "f":
        x, t = f.cast(x, np.float32), f.cast(t, np.float32)
    return _reduce(f.square(f.sub(x, t)), how)


def l2_loss(x: Any) -> Tensor:
    """Half the sum of squares, sum(x²) / 2, of a float tensor (`ops.L2Loss()(x)`)."""
    owner = "L2Loss"
    t = _tensor(owner, "x", x)
    if t._data.dtype.kind != "f":
        raise TypeError(
            f"For '{owner}', the argument 'x' must be a Float16, Float32 or Float64 tensor, but got {t.dtype!r}."
        )
    return f.mul(f.sum(f.square(t)), 0.5)
