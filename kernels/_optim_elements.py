"""Per-element optimizer steps written once, as plain Python; each target builds them.

Every body has the same form, `body(p, g, a, b, c, h, i)`: it updates element
`i` of the flat parameter `p` from the flat gradient `g`, with up to three flat
state arrays `a`, `b`, `c` (a body ignores the ones it has no use for) and the
tuple `h` of its hyperparameters (flags as 1.0 / 0.0). One form lets each
target compile every body through one loop factory (`_optim_cpu`,
`cuda._optim`). Like `_rowwise`, a body calls no other function of this
module. `wd` is the L2 penalty MindSpore adds to the gradient before the rule
(`Optimizer.decay_weight`), except in AdamWeightDecay and Lamb, which decay the
weight in the step itself.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "adagrad_element",
    "adam_amsgrad_element",
    "adam_weight_decay_element",
    "lamb_direction_element",
    "rmsprop_element",
    "scaled_subtract_element",
]


def adam_weight_decay_element(
    p: Any, g: Any, m: Any, v: Any, c: Any, h: Any, i: int
) -> None:
    """AdamWeightDecay, h = (lr, beta1, beta2, eps, wd): unbiased moments m, v; the decay joins the step."""
    lr, beta1, beta2, eps, wd = h
    gi = g[i]
    mi = beta1 * m[i] + (1.0 - beta1) * gi
    vi = beta2 * v[i] + (1.0 - beta2) * gi * gi
    m[i] = mi
    v[i] = vi
    p[i] -= lr * (mi / (eps + math.sqrt(vi)) + wd * p[i])


def adam_amsgrad_element(
    p: Any, g: Any, m: Any, v: Any, vhat: Any, h: Any, i: int
) -> None:
    """Adam with AMSGrad (ApplyAdamWithAmsgradV2), h = (alpha, beta1, beta2, eps, wd).

    alpha = lr sqrt(1 - beta2**t) / (1 - beta1**t); the step divides by the running maximum of v.
    """
    alpha, beta1, beta2, eps, wd = h
    gi = g[i] + wd * p[i]
    mi = beta1 * m[i] + (1.0 - beta1) * gi
    vi = beta2 * v[i] + (1.0 - beta2) * gi * gi
    m[i] = mi
    v[i] = vi
    top = max(vhat[i], vi)
    vhat[i] = top
    p[i] -= alpha * mi / (math.sqrt(top) + eps)


def rmsprop_element(
    p: Any, g: Any, mean_grad: Any, mean_square: Any, moment: Any, h: Any, i: int
) -> None:
    """RMSProp, h = (lr, decay, momentum, eps, wd, centered) (ApplyRMSProp / ApplyCenteredRMSProp)."""
    lr, decay, momentum, eps, wd, centered = h
    gi = g[i] + wd * p[i]
    ms = decay * mean_square[i] + (1.0 - decay) * gi * gi
    mean_square[i] = ms
    if centered != 0.0:
        mg = decay * mean_grad[i] + (1.0 - decay) * gi
        mean_grad[i] = mg
        ms = ms - mg * mg
    mo = momentum * moment[i] + lr * gi / math.sqrt(ms + eps)
    moment[i] = mo
    p[i] -= mo


def adagrad_element(p: Any, g: Any, accum: Any, b: Any, c: Any, h: Any, i: int) -> None:
    """Adagrad, h = (lr, wd, update_slots) (ApplyAdagrad): accum += g² when updating slots; p -= lr g / sqrt(accum)."""
    lr, wd, update_slots = h
    gi = g[i] + wd * p[i]
    if update_slots != 0.0:
        accum[i] += gi * gi
    p[i] -= lr * gi / math.sqrt(accum[i])


def lamb_direction_element(
    p: Any, g: Any, m: Any, v: Any, r: Any, h: Any, i: int
) -> None:
    """Lamb's first pass, h = (beta1, beta2, eps, 1 / (1 - beta1**t), 1 / (1 - beta2**t), wd).

    Updates the moments and writes the bias-corrected direction plus decay into r.
    """
    beta1, beta2, eps, correction1, correction2, wd = h
    gi = g[i]
    mi = beta1 * m[i] + (1.0 - beta1) * gi
    vi = beta2 * v[i] + (1.0 - beta2) * gi * gi
    m[i] = mi
    v[i] = vi
    r[i] = mi * correction1 / (math.sqrt(vi * correction2) + eps) + wd * p[i]


def scaled_subtract_element(
    p: Any, g: Any, r: Any, b: Any, c: Any, h: Any, i: int
) -> None:
    """P -= h[0] * r (Lamb's second pass, h[0] = lr * trust ratio; g unused)."""
    p[i] -= h[0] * r[i]
