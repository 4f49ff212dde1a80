"""Per-row, per-channel and per-window loop bodies written once, as plain Python; each target builds them.

The CPU table compiles them with `numba.jit`, the CUDA table with
`cuda.jit(device=True)`; each target then loops over rows, channels or output
elements its own way (a plain loop on the CPU, a grid-stride loop of one
thread per item on CUDA). Like `_scalar`, a function calls no other function of this
module, so that a target compiles each one alone. Arguments are checked by the
callers: a body trusts its indices and shapes.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "batch_norm_channel_backward",
    "batch_norm_channel_forward",
    "conv_source",
    "max_pool_window",
    "mean_pool_window",
    "nchw_index",
    "sce_dense_row",
    "sce_sparse_row",
    "softmax_grad_row",
    "softmax_row",
]


def softmax_row(x: Any, out: Any, log: bool, i: int) -> None:
    """Row i of softmax (or log-softmax) of x (N, C) into out, max-shifted for stability."""
    c = x.shape[1]
    mx = x[i, 0]
    for j in range(1, c):
        mx = max(mx, x[i, j])
    s = 0.0
    if log:
        for j in range(c):
            s += math.exp(x[i, j] - mx)
        lse = math.log(s)
        for j in range(c):
            out[i, j] = x[i, j] - mx - lse
    else:
        # Each exp once, kept in `out` and then scaled: exp is most of the row's time.
        for j in range(c):
            e = math.exp(x[i, j] - mx)
            out[i, j] = e
            s += e
        inv = 1.0 / s
        for j in range(c):
            out[i, j] *= inv


def softmax_grad_row(dy: Any, y: Any, out: Any, log: bool, i: int) -> None:
    """Row i of the input gradient of softmax (or log-softmax), from its output y."""
    c = dy.shape[1]
    s = 0.0
    for j in range(c):
        s += dy[i, j] if log else dy[i, j] * y[i, j]
    for j in range(c):
        if log:
            out[i, j] = dy[i, j] - math.exp(y[i, j]) * s
        else:
            out[i, j] = y[i, j] * (dy[i, j] - s)


def sce_sparse_row(x: Any, labels: Any, loss: Any, grad: Any, i: int) -> None:
    """Row i of softmax cross-entropy with a class index (in range) and its logit gradient."""
    c = x.shape[1]
    k = labels[i]
    mx = x[i, 0]
    for j in range(1, c):
        mx = max(mx, x[i, j])
    s = 0.0
    for j in range(c):
        e = math.exp(x[i, j] - mx)
        grad[i, j] = e
        s += e
    inv = 1.0 / s
    for j in range(c):
        grad[i, j] *= inv
    grad[i, k] -= 1.0
    loss[i] = mx + math.log(s) - x[i, k]


def sce_dense_row(x: Any, labels: Any, loss: Any, grad: Any, i: int) -> None:
    """Row i of softmax cross-entropy with a label distribution and its logit gradient."""
    c = x.shape[1]
    mx = x[i, 0]
    for j in range(1, c):
        mx = max(mx, x[i, j])
    s = 0.0
    for j in range(c):
        s += math.exp(x[i, j] - mx)
    lse = mx + math.log(s)
    total = 0.0
    acc = 0.0
    for j in range(c):
        total += labels[i, j]
        acc += labels[i, j] * (x[i, j] - lse)
    loss[i] = -acc
    for j in range(c):
        grad[i, j] = math.exp(x[i, j] - lse) * total - labels[i, j]


def batch_norm_channel_forward(
    x: Any, res: Any, add: bool, gamma: Any, beta: Any, eps: float, low: float, high: float,
    y: Any, mean: Any, var: Any, ch: int,
) -> None:  # fmt: skip
    """Channel ch of batch normalization of x (N, C, M), plus res when `add`, clipped to [low, high]: y, the batch mean and biased var.

    One pass for both statistics: sums of the values shifted by the channel's first
    one (in float64), which keeps the variance exact when the mean is large. The
    clip fuses a following ReLU (0, inf) or ReLU6 (0, 6); (-inf, inf) is none. `add`
    fuses a residual block's shortcut, added before the clip (res is unread without it).
    """
    n, _, m = x.shape
    cnt = n * m
    clipped = low > -math.inf or high < math.inf
    first = x[0, ch, 0]
    s = 0.0
    q = 0.0
    for b in range(n):
        for k in range(m):
            d = x[b, ch, k] - first
            s += d
            q += d * d
    shifted_mean = s / cnt
    mu = first + shifted_mean
    va = max(q / cnt - shifted_mean * shifted_mean, 0.0)
    scale = gamma[ch] / math.sqrt(va + eps)
    shift = beta[ch] - mu * scale
    for b in range(n):
        for k in range(m):
            z = x[b, ch, k] * scale + shift
            if add:
                z += res[b, ch, k]
            # A NaN is kept explicitly (as numpy's clip and the separate ReLU cells do): what
            # min/max return for a NaN differs between compilers (CUDA's fminf/fmaxf return the
            # other operand), and a NaN clipped to `low` would let a diverged network train on.
            y[b, ch, k] = min(max(z, low), high) if clipped and z == z else z
    mean[ch] = mu
    var[ch] = va


def batch_norm_channel_backward(
    dy: Any, x: Any, y: Any, from_y: bool, gamma: Any, beta: Any, mean: Any, var: Any,
    eps: float, low: float, high: float, dx: Any, dres: Any, dgamma: Any, dbeta: Any, ch: int,
) -> None:  # fmt: skip
    """Channel ch of the gradients of `batch_norm_channel_forward`: dx, dgamma and dbeta (and dres).

    With a clip, the gradient passes where the clipped value lay strictly inside
    (low, high), as ReLU's and ReLU6's do. Without a residual it is recomputed from
    x, not stored; with one (`from_y`) it is read from the forward's output y, and
    the passed gradient is also the residual's, written to dres (y and dres are
    unread and unwritten otherwise).
    """
    n, _, m = x.shape
    cnt = n * m
    clipped = low > -math.inf or high < math.inf
    invstd = 1.0 / math.sqrt(var[ch] + eps)
    mu = mean[ch]
    scale = gamma[ch] * invstd
    shift = beta[ch] - mu * scale
    sb = 0.0
    sg = 0.0
    for b in range(n):
        for k in range(m):
            z = y[b, ch, k] if from_y else x[b, ch, k] * scale + shift
            g = 0.0 if clipped and (z <= low or z >= high) else dy[b, ch, k]
            sb += g
            sg += g * (x[b, ch, k] - mu) * invstd
    k1 = scale / cnt
    for b in range(n):
        for k in range(m):
            z = y[b, ch, k] if from_y else x[b, ch, k] * scale + shift
            g = 0.0 if clipped and (z <= low or z >= high) else dy[b, ch, k]
            if from_y:
                dres[b, ch, k] = g
            dx[b, ch, k] = k1 * (cnt * g - sb - (x[b, ch, k] - mu) * invstd * sg)
    dgamma[ch] = sg
    dbeta[ch] = sb


def nchw_index(e: int, shape: Any) -> tuple[int, int, int, int]:
    """The (batch, channel, row, column) of flat element e of a C-contiguous NCHW array."""
    c, oh, ow = shape[1], shape[2], shape[3]
    plane = e // (oh * ow)
    r = e - plane * oh * ow
    b = plane // c
    oy = r // ow
    return b, plane - b * c, oy, r - oy * ow


def conv_source(g: Any, row: int, col: int) -> tuple[int, int, int, int]:
    """The input pixel (b, ch, iy, ix) behind im2col entry (row, col); iy, ix may fall in the padding.

    g is a `_spatial.ConvGeometry` as a tuple: (kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, oh, ow).
    """
    kh, kw, sh, sw, pt, _pb, pl, _pr, dh, dw, oh, ow = g
    b = row // (oh * ow)
    r = row - b * oh * ow
    oy = r // ow
    ch = col // (kh * kw)
    r2 = col - ch * kh * kw
    i = r2 // kw
    iy = oy * sh - pt + i * dh
    ix = (r - oy * ow) * sw - pl + (r2 - i * kw) * dw
    return b, ch, iy, ix


def max_pool_window(
    x: Any, p: Any, y: Any, idx: Any, b: int, ch: int, oy: int, ox: int
) -> None:
    """Output (b, ch, oy, ox) of max pooling with p = (kh, kw, sh, sw): the max and its flat H*W index."""
    kh, kw, sh, sw = p
    w = x.shape[3]
    best = -math.inf
    at = 0
    for i in range(kh):
        iy = oy * sh + i
        for j in range(kw):
            ix = ox * sw + j
            v = x[b, ch, iy, ix]
            if v > best:
                best = v
                at = iy * w + ix
    y[b, ch, oy, ox] = best
    idx[b, ch, oy, ox] = at


def mean_pool_window(x: Any, p: Any, y: Any, b: int, ch: int, oy: int, ox: int) -> None:
    """Output (b, ch, oy, ox) of average pooling with p = (kh, kw, sh, sw)."""
    kh, kw, sh, sw = p
    s = 0.0
    for i in range(kh):
        for j in range(kw):
            s += x[b, ch, oy * sh + i, ox * sw + j]
    y[b, ch, oy, ox] = s / (kh * kw)
