"""Differentiable neural-network ops backed by the current target's kernels."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence.kernels._checks import is_pointwise

from ..compute._context import current_target, rng
from ..compute._folded_steps import take_sgd_step
from ..compute._grad_buffers import take_grad_buffer
from ._functional import Array, GradFn, as_tensor, record
from ._placement import on_target

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = [
    "avg_pool2d",
    "batch_norm",
    "conv2d",
    "dense",
    "dropout",
    "log_softmax",
    "max_pool2d",
    "relu",
    "sigmoid",
    "softmax",
    "softmax_cross_entropy",
    "tanh",
]

ACT_CODES = {None: 0, "relu": 1, "sigmoid": 2, "tanh": 3}
PLANAR_MAX_CHANNELS = 16
"""Convolutions with at most this many output channels use the planar kernels (measured on LeNet-5's 6 and 16)."""
PLANAR_MAX_TAPS = 32
"""... and so do those with at most this many input values per output (C*KH*KW: ResNet's 3x3 stem
on RGB, 27): im2col's thin columns cost more than the product (17.3 against 5.9 ms, batch 32, one thread)."""
PLANAR_MIN_PIXELS = 64
"""... and strided or padded 1x1 convolutions with at least this many output pixels (planar 2 to 3
times faster from 8x8 up; at 4x4 its per-sample products are too small: 21 against 14 ms for
960->320, batch 32). The other 1x1 convolutions need no columns at all: `conv2d_pointwise`."""
WINOGRAD_MIN_CHANNELS = 16
"""3x3 stride-1 convolutions with at least this many input channels use the Winograd kernels.
Measured at 32x32, 32 filters, batch 32, one thread (forward + backward, ms, im2col / Winograd):
4 channels 10.8 / 12.9, 8: 18.5 / 15.4, 16: 34.0 / 20.8, 32: 70.6 / 36.8. 8 would pay too,
by less; the few-channel layers are the transforms' worst case, so the line stays at 16."""
PHASE_MIN_PIXELS = 256
"""3x3 stride-2 convolutions with at least this many output pixels (16x16) use the stride-phase
kernels. ResNet-18's 64->128 at 32x32, forward + backward, one thread, CPU ms, im2col / phase,
interleaved, best of 8 (load 3.7): batch 32 61.6 / 59.7, batch 128 277.9 / 254.4. At 8x8 out
(128->256, batch 32) im2col is faster: 47.8 / 49.6 (4x4 out: 40.9 / 48.7)."""


def _k() -> Any:
    return current_target().kernels


def _float(t: Tensor) -> Array:
    """Return `t`'s data as a contiguous float array of the current target."""
    d = t._data
    if d.dtype.kind != "f":
        raise TypeError(f"Expected a float tensor, but got dtype {t.dtype!r}.")
    target = current_target()
    if not target.on_host or not isinstance(d, np.ndarray):
        d = on_target(t, target)
    return _contig(d)


def _contig(a: Array) -> Array:
    # np.ascontiguousarray would copy a device array to the host; those are always contiguous.
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _activation(name: str, x: Any) -> Tensor:
    t = as_tensor(x)
    k = _k()
    xd = _float(t)
    y = getattr(k, f"{name}_forward")(xd)
    back = getattr(k, f"{name}_backward")
    return record(y, (t,), lambda: lambda g: (back(_contig(g), y),))


def relu(input: Any) -> Tensor:
    """max(input, 0)."""
    return _activation("relu", input)


def sigmoid(input: Any) -> Tensor:
    """1 / (1 + exp(-input))."""
    return _activation("sigmoid", input)


def tanh(input: Any) -> Tensor:
    """Hyperbolic tangent."""
    return _activation("tanh", input)


def _rowwise(name: str, x: Any, axis: int) -> Tensor:
    t = as_tensor(x)
    xd = _float(t)
    k = _k()
    moved = np.moveaxis(xd, axis, -1)
    shape = moved.shape
    y2 = getattr(k, f"{name}_forward")(_contig(moved).reshape(-1, shape[-1]))
    y = np.moveaxis(y2.reshape(shape), -1, axis)
    back = getattr(k, f"{name}_backward")

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array]:
            g2 = _contig(np.moveaxis(g, axis, -1)).reshape(-1, shape[-1])
            return (np.moveaxis(back(g2, y2).reshape(shape), -1, axis),)

        return backward

    return record(y, (t,), grad_fn)


def softmax(input: Any, axis: int = -1) -> Tensor:
    """Softmax along `axis`."""
    return _rowwise("softmax", input, axis)


def log_softmax(input: Any, axis: int = -1) -> Tensor:
    """log(softmax(input)) along `axis`."""
    return _rowwise("log_softmax", input, axis)


def dense(
    x: Any, weight: Tensor, bias: Tensor | None = None, activation: str | None = None
) -> Tensor:
    """act(x @ weight.T + bias) in one fused op; x may have extra leading axes."""
    tx = as_tensor(x)
    code = ACT_CODES[activation]
    k = _k()
    xd = _float(tx)
    lead = xd.shape[:-1]
    x2 = xd.reshape(-1, xd.shape[-1]) if xd.ndim != 2 else xd
    w = _float(weight)
    b = None if bias is None else _float(bias)
    y = k.dense_forward(x2, w, b, code)
    inputs = (tx, weight) if bias is None else (tx, weight, bias)

    def grad_fn() -> GradFn:
        def backward(g: Array) -> list[Array | None]:
            g2 = _contig(g).reshape(y.shape)
            held = ((weight, w),) if bias is None else ((weight, w), (bias, b))
            step = take_sgd_step(held)
            if step is not None:  # the SGD step happens in the weight-gradient product
                dx = k.dense_backward_sgd(g2, x2, w, b, y, code, tx._tracked, *step)
                return [None if dx is None else dx.reshape(xd.shape), None, None][
                    : len(inputs)
                ]
            into = getattr(k, "dense_backward_into", None)  # host tables only
            if into is None:
                dx, dw, db = k.dense_backward(g2, x2, w, y, code, tx._tracked)
            else:  # dw and db straight into the data-parallel window's row, if offered
                dw_out, db_out = take_grad_buffer(weight, w), take_grad_buffer(bias, b)
                dx, dw, db = into(g2, x2, w, y, code, tx._tracked, dw_out, db_out)
            out = [None if dx is None else dx.reshape(xd.shape), dw]
            if bias is not None:
                out.append(db)
            return out

        return backward

    out = record(y if xd.ndim == 2 else y.reshape(*lead, y.shape[-1]), inputs, grad_fn)
    return out


def conv2d(
    x: Any,
    weight: Tensor,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> Tensor:
    """2-D cross-correlation, NCHW; `padding` is (top, bottom, left, right)."""
    tx = as_tensor(x)
    k = _k()
    xd = _float(tx)
    w = _float(weight)
    layout = _conv_layout(k, xd.shape, w.shape, stride, padding, dilation)
    forward, back = getattr(k, f"{layout}_forward"), getattr(k, f"{layout}_backward")
    y = forward(xd, w, stride, padding, dilation)

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array | None, Array]:
            dx, dw = back(_contig(g), xd, w, stride, padding, dilation, tx._tracked)
            return dx, dw

        return backward

    return record(y, (tx, weight), grad_fn)


def _conv_layout(
    k: Any, x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: tuple[int, int],
    padding: tuple[int, int, int, int], dilation: tuple[int, int],
) -> str:  # fmt: skip
    """The kernel pair a convolution runs on; tables without a pair (older plugins) keep `conv2d`."""
    o, c, kh, kw = w_shape
    if is_pointwise(w_shape, stride, padding) and hasattr(
        k, "conv2d_pointwise_forward"
    ):
        return "conv2d_pointwise"  # 1x1 on NCHW as stored (kernels/_pointwise_conv.py)
    # A 1x1 convolution's output pixels (the third dimension of its per-sample products).
    pixels = ((x_shape[2] + padding[0] + padding[1] - 1) // stride[0] + 1) * (
        (x_shape[3] + padding[2] + padding[3] - 1) // stride[1] + 1
    )
    pointwise = (kh, kw) == (1, 1) and pixels >= PLANAR_MIN_PIXELS
    planar = o <= PLANAR_MAX_CHANNELS or c * kh * kw <= PLANAR_MAX_TAPS or pointwise
    if planar and hasattr(k, "conv2d_planar_forward"):
        return "conv2d_planar"  # per-sample columns (kernels/_planar_conv.py)
    winograd = (
        w_shape[1] >= WINOGRAD_MIN_CHANNELS
        and tuple(w_shape[2:]) == (3, 3)
        and stride == (1, 1)
        and dilation == (1, 1)
        and max(padding) <= 2
        and min(padding) >= 0
    )
    if winograd and hasattr(k, "conv2d_winograd_forward"):
        return "conv2d_winograd"  # 3x3 stride 1 (kernels/_winograd.py)
    phase = (kh, kw) == (3, 3) and stride == (2, 2) and dilation == (1, 1)
    phase_pixels = ((x_shape[2] + padding[0] + padding[1] - 3) // 2 + 1) * (
        (x_shape[3] + padding[2] + padding[3] - 3) // 2 + 1
    )
    if (
        phase
        and phase_pixels >= PHASE_MIN_PIXELS
        and hasattr(k, "conv2d_phase_forward")
    ):
        return "conv2d_phase"  # 3x3 stride 2 (kernels/_phase_conv.py)
    return "conv2d"


def max_pool2d(x: Any, kernel: tuple[int, int], stride: tuple[int, int]) -> Tensor:
    """Max pooling over NCHW input without padding."""
    tx = as_tensor(x)
    k = _k()
    xd = _float(tx)
    y, idx = k.max_pool2d_forward(xd, kernel[0], kernel[1], stride[0], stride[1])
    shape = xd.shape
    return record(
        y,
        (tx,),
        lambda: lambda g: (k.max_pool2d_backward(_contig(g), idx, shape),),
    )


def avg_pool2d(x: Any, kernel: tuple[int, int], stride: tuple[int, int]) -> Tensor:
    """Average pooling over NCHW input without padding."""
    tx = as_tensor(x)
    k = _k()
    xd = _float(tx)
    y = k.avg_pool2d_forward(xd, kernel[0], kernel[1], stride[0], stride[1])
    shape = xd.shape
    return record(
        y,
        (tx,),
        lambda: (
            lambda g: (
                k.avg_pool2d_backward(
                    _contig(g),
                    shape,
                    kernel[0],
                    kernel[1],
                    stride[0],
                    stride[1],
                ),
            )
        ),
    )


def softmax_cross_entropy(logits: Any, labels: Any, sparse: bool) -> Tensor:
    """Per-sample softmax cross-entropy of (N, C) logits; forward and backward in one kernel."""
    tl = as_tensor(logits)
    k = _k()
    ld = _float(tl)
    lab = as_tensor(labels)._data
    if sparse:
        loss, dlogits = k.softmax_cross_entropy_sparse(ld, _contig(lab.reshape(-1)))
    else:
        loss, dlogits = k.softmax_cross_entropy_dense(
            ld, _contig(lab).astype(ld.dtype, copy=False)
        )
    return record(loss, (tl,), lambda: lambda g: (dlogits * g[:, None],))


# The clips `batch_norm` fuses, by the name of the activation that follows.
BN_ACTIVATIONS = {None: (-math.inf, math.inf), "relu": (0.0, math.inf), "relu6": (0.0, 6.0)}  # fmt: skip


def batch_norm(
    x: Any, gamma: Tensor, beta: Tensor, eps: float, activation: str | None = None,
    residual: Any = None,
) -> tuple[Tensor, Array, Array]:  # fmt: skip
    """Normalize (N, C, ...) input with batch statistics; return (y, batch mean, biased batch var).

    `activation` "relu" or "relu6" applies that activation in the same kernel (one
    pass over the data, no stored intermediate); its gradient passes where the
    normalized value lay strictly inside the activation's linear range.
    `residual` (x's shape) is added before the activation, in the same pass: a
    residual block's `relu(bn(x) + identity)`.
    """
    low, high = BN_ACTIVATIONS[activation]
    tx = as_tensor(x)
    k = _k()
    xd = _float(tx)
    shape = xd.shape
    x3 = xd.reshape(shape[0], shape[1], -1)
    if residual is not None:
        return _batch_norm_residual(tx, x3, gamma, beta, eps, low, high, residual)
    g_data, b_data = _float(gamma), _float(beta)
    y, mean, var = k.batch_norm_forward(x3, g_data, b_data, eps, low, high)

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array, Array, Array]:
            dy = _contig(g).reshape(x3.shape)
            dx, dg, db = k.batch_norm_backward(
                dy, x3, g_data, mean, var, eps, b_data, low, high
            )
            return dx.reshape(shape), dg, db

        return backward

    return record(y.reshape(shape), (tx, gamma, beta), grad_fn), mean, var


def _batch_norm_residual(
    tx: Tensor, x3: Array, gamma: Tensor, beta: Tensor, eps: float, low: float,
    high: float, residual: Any,
) -> tuple[Tensor, Array, Array]:  # fmt: skip
    """`batch_norm` with a residual: the backward reads the clip's mask from the output."""
    k = _k()
    tr = as_tensor(residual)
    if tr.shape != tx.shape:
        raise ValueError(
            f"For 'batch_norm', the argument 'residual' must have the input's shape {tx.shape}, "
            f"but got {tr.shape}."
        )
    g_data = _float(gamma)
    r3 = _float(tr).reshape(x3.shape)
    y, mean, var = k.batch_norm_forward(
        x3, g_data, _float(beta), eps, low, high, residual=r3
    )

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array, Array, Array, Array]:
            dy = _contig(g).reshape(x3.shape)
            dx, dres, dg, db = k.batch_norm_residual_backward(
                dy, x3, y, g_data, mean, var, eps, low, high
            )
            return dx.reshape(tx.shape), dg, db, dres.reshape(tx.shape)

        return backward

    return record(y.reshape(tx.shape), (tx, gamma, beta, tr), grad_fn), mean, var


def dropout(x: Any, p: float) -> Tensor:
    """Zero each element with probability `p` and scale the rest by 1/(1-p) (stream `"dropout"`)."""
    tx = as_tensor(x)
    xd = tx._data
    if p <= 0:
        return tx
    keep = 1.0 - p
    scale = np.asarray(0.0 if keep == 0 else 1.0 / keep, dtype=xd.dtype)
    mask = (rng("dropout").random(xd.shape, dtype=np.float32) < keep) * scale
    return record(xd * mask, (tx,), lambda: lambda g: (g * mask,))
