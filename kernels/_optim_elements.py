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
    "adadelta_element",
    "adagrad_element",
    "adam_amsgrad_element",
    "adam_weight_decay_element",
    "asgd_element",
    "ftrl_element",
    "lamb_direction_element",
    "proximal_adagrad_element",
    "rmsprop_element",
    "rprop_element",
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


def adadelta_element(
    p: Any, g: Any, accum: Any, accum_update: Any, c: Any, h: Any, i: int
) -> None:
    """Adadelta, h = (lr, rho, eps, wd) (ApplyAdadelta): the step is g scaled by RMS(updates) / RMS(g)."""
    lr, rho, eps, wd = h
    gi = g[i] + wd * p[i]
    a = rho * accum[i] + (1.0 - rho) * gi * gi
    accum[i] = a
    u = math.sqrt(accum_update[i] + eps) * gi / math.sqrt(a + eps)
    accum_update[i] = rho * accum_update[i] + (1.0 - rho) * u * u
    p[i] -= lr * u


def proximal_adagrad_element(
    p: Any, g: Any, accum: Any, b: Any, c: Any, h: Any, i: int
) -> None:
    """ProximalAdagrad, h = (lr, l1, l2, wd) (ApplyProximalAdagrad): an Adagrad step, then the L1/L2 proximal map.

    Both use the element's Adagrad rate lr / sqrt(accum), as MindSpore's kernel does.
    """
    lr, l1, l2, wd = h
    gi = g[i] + wd * p[i]
    a = accum[i] + gi * gi
    accum[i] = a
    rate = lr / math.sqrt(a)
    prox = p[i] - rate * gi
    if l1 > 0.0:
        # Shrink toward 0 by rate * l1, keeping the sign (0 where it would cross).
        prox = math.copysign(max(abs(prox) - rate * l1, 0.0), prox)
    p[i] = prox / (1.0 + rate * l2)


def rprop_element(p: Any, g: Any, prev: Any, step: Any, c: Any, h: Any, i: int) -> None:
    """Rprop, h = (eta_minus, eta_plus, min_step, max_step, first, lr, wd), as MindSpore's `nn.Rprop`.

    Each element's step grows by eta_plus while its gradient keeps its sign and shrinks by
    eta_minus when it flips (that gradient is then skipped); the first step is lr.
    """
    eta_minus, eta_plus, min_step, max_step, first, lr, wd = h
    gi = g[i] + wd * p[i]
    size = lr if first != 0.0 else step[i]
    turn = gi * prev[i]
    # Selects rather than branches: the loop compiles to vector code.
    flipped = turn < 0.0
    factor = eta_plus if turn > 0.0 else (eta_minus if flipped else 1.0)
    size = min(max(size * factor, min_step), max_step)
    gi = 0.0 if flipped else gi
    p[i] -= size * ((gi > 0.0) * 1.0 - (gi < 0.0) * 1.0)  # size * sign(gi)
    prev[i] = gi
    step[i] = size


def asgd_element(p: Any, g: Any, ax: Any, b: Any, c: Any, h: Any, i: int) -> None:
    """ASGD, h = (eta, lambd, mu, wd): a decayed SGD step, and the running average `ax` of the weights."""
    eta, lambd, mu, wd = h
    gi = g[i] + wd * p[i]
    w = p[i] * (1.0 - lambd * eta) - eta * gi
    p[i] = w
    if mu != 1.0:
        ax[i] += (w - ax[i]) * mu
    else:
        ax[i] = w


def ftrl_element(
    p: Any, g: Any, accum: Any, linear: Any, c: Any, h: Any, i: int
) -> None:
    """FTRL-proximal, h = (lr, l1, l2, lr_power, wd) (ApplyFtrl).

    accum' = accum + g²; linear += g - (accum'^-lr_power - accum^-lr_power) / lr * p;
    p = (sign(linear) l1 - linear) / (accum'^-lr_power / lr + 2 l2) where |linear| > l1, else 0.
    """
    lr, l1, l2, lr_power, wd = h
    gi = g[i] + wd * p[i]
    old = accum[i]
    new = old + gi * gi
    accum[i] = new
    if lr_power == -0.5:  # the default: square roots, several times cheaper than pow
        grown = math.sqrt(new)
        before = math.sqrt(old)
    else:
        grown = math.pow(new, -lr_power)
        before = math.pow(old, -lr_power)
    lin = linear[i] + gi - (grown - before) / lr * p[i]
    linear[i] = lin
    if abs(lin) > l1:
        p[i] = (math.copysign(l1, lin) - lin) / (grown / lr + 2.0 * l2)
    else:
        p[i] = 0.0 * p[i]
