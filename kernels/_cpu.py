"""CPU kernels: numba loops for elementwise and fused work, numpy's BLAS for matmuls.

Every public function has the name and signature of its `reference` twin.
Kernels are `nogil` loops, no `parallel=True`: BLAS owns the cores during
matmuls and the loops run between them. Loops over independent items (softmax
rows, im2col and col2im images and the rows of their products, the planar and
Winograd kernels' blocks of images, batch
normalization's channels, the depthwise convolution's samples) split them over
as many threads as BLAS is allowed, BLAS on one thread meanwhile (`_parallel`),
so the process never runs more compute threads than BLAS is allowed (see
`CPUTarget.configure_threads`).

On-disk caching covers `_scalar.py` and `_rowwise.py` too (see `_numba_cache`). The functions
shared with the CUDA table (activations, softmax, optimizer updates) are built
by `_wrappers` from this file's loops.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from . import _numba_cache, _rowwise, _scalar
from ._attention import (
    batch_matmul as batch_matmul,
    group_norm_backward as group_norm_backward,
    group_norm_forward as group_norm_forward,
    layer_norm_backward as layer_norm_backward,
    layer_norm_forward as layer_norm_forward,
    smooth_act_backward as smooth_act_backward,
    smooth_act_forward as smooth_act_forward,
)
from ._blas import accumulate_product
from ._checks import check_float_array
from ._grouped_conv import (
    grouped_conv2d_backward as grouped_conv2d_backward,
    grouped_conv2d_backward_input as grouped_conv2d_backward_input,
    grouped_conv2d_forward as grouped_conv2d_forward,
)
from ._names import KERNEL_NAMES
from ._optim_cpu import (
    adadelta_update as adadelta_update,
    adagrad_update as adagrad_update,
    adam_amsgrad_update as adam_amsgrad_update,
    adam_weight_decay_update as adam_weight_decay_update,
    asgd_update as asgd_update,
    flat_state,
    ftrl_update as ftrl_update,
    lamb_update as lamb_update,
    proximal_adagrad_update as proximal_adagrad_update,
    rmsprop_update as rmsprop_update,
    rprop_update as rprop_update,
    run_loop,
)
from ._parallel import contiguous, in_spans, split_loop
from ._phase_conv import (
    conv2d_phase_backward as conv2d_phase_backward,
    conv2d_phase_forward as conv2d_phase_forward,
)
from ._planar_conv import (
    conv2d_planar_backward as conv2d_planar_backward,
    conv2d_planar_forward as conv2d_planar_forward,
)
from ._pointwise_conv import (  # 1x1 convolutions on NCHW as they are
    conv2d_pointwise_backward as conv2d_pointwise_backward,
    conv2d_pointwise_forward as conv2d_pointwise_forward,
)
from ._recurrent import (  # the recurrent layers and the embedding lookup
    embedding_backward as embedding_backward,
    embedding_forward as embedding_forward,
    recurrent_backward as recurrent_backward,
    recurrent_forward as recurrent_forward,
)
from ._spatial import ConvGeometry, SpatialPrimitives, spatial_kernels
from ._split_gemm import split_matmul
from ._winograd import (
    conv2d_winograd_backward as conv2d_winograd_backward,
    conv2d_winograd_forward as conv2d_winograd_forward,
)
from ._wrappers import (
    OptimizerPrimitives,
    activation_kernels,
    dense_sgd_kernel,
    optimizer_updates,
    softmax_kernels,
)

__all__ = [*KERNEL_NAMES, "dense_backward_into"]

Array = npt.NDArray[Any]


_CACHE = _numba_cache.install(__file__, _scalar.__file__, _rowwise.__file__)


def _kernel(fn: Any) -> Any:
    return numba.jit(nogil=True, cache=_CACHE, error_model="numpy")(fn)


# --- per-element math, built for this target --------------------------------------
_act: Any = numba.jit(_scalar.act)
_act_grad: Any = numba.jit(_scalar.act_grad)
_relu: Any = numba.jit(_scalar.relu)
_relu_grad: Any = numba.jit(_scalar.relu_grad)
_sigmoid: Any = numba.jit(_scalar.sigmoid)
_sigmoid_grad: Any = numba.jit(_scalar.sigmoid_grad)
_tanh: Any = numba.jit(_scalar.tanh)
_tanh_grad: Any = numba.jit(_scalar.tanh_grad)
_sgd_step: Any = numba.jit(_scalar.sgd_step)
_momentum_step: Any = numba.jit(_scalar.momentum_step)
_adam_step: Any = numba.jit(_scalar.adam_step)

# --- per-row and per-channel bodies, built for this target ------------------------------
# Inlined into the calling kernel at numba's IR level: as separate calls they cost the
# fused loss kernel about 20% (measured on 256x10 logits); inlined, the kernels run as
# fast as when the bodies were written in them. error_model as `_kernel`'s.
_row_body = numba.jit(error_model="numpy", inline="always")
_softmax_row: Any = _row_body(_rowwise.softmax_row)
_softmax_grad_row: Any = _row_body(_rowwise.softmax_grad_row)
_sce_sparse_row: Any = _row_body(_rowwise.sce_sparse_row)
_sce_dense_row: Any = _row_body(_rowwise.sce_dense_row)
_max_pool_window: Any = _row_body(_rowwise.max_pool_window)
_mean_pool_window: Any = _row_body(_rowwise.mean_pool_window)

_NONE = np.zeros(0, np.float32)


# --- elementwise activations ----------------------------------------------------------
@_kernel
def _unary(x: Array, out: Array, code: int) -> None:
    for i in range(x.size):
        out[i] = _act(x[i], code)


@_kernel
def _unary_grad(dy: Array, y: Array, out: Array, code: int) -> None:
    for i in range(dy.size):
        out[i] = dy[i] * _act_grad(y[i], code)


def _fwd(x: Array, code: int) -> Array:
    check_float_array("x", x)
    out = np.empty_like(x)
    _unary(x.reshape(-1), out.reshape(-1), code)
    return out


def _bwd(dy: Array, y: Array, code: int) -> Array:
    check_float_array("dy", dy)
    out = np.empty_like(dy)
    _unary_grad(dy.reshape(-1), y.reshape(-1), out.reshape(-1), code)
    return out


_activations = activation_kernels(_fwd, _bwd)
relu_forward, relu_backward = _activations.relu
sigmoid_forward, sigmoid_backward = _activations.sigmoid
tanh_forward, tanh_backward = _activations.tanh


# --- dense layers: BLAS matmul + fused epilogues ---------------------------------------
@_kernel
def _bias_act(z: Array, b: Array, has_b: bool, code: int) -> None:
    n, m = z.shape
    for i in range(n):
        for j in range(m):
            v = z[i, j] + b[j] if has_b else z[i, j]
            z[i, j] = _act(v, code)


@_kernel
def _bias_act_grad(
    dy: Array,
    y: Array,
    code: int,
    dz: Array,
    db: Array,
    step: bool,
    lr: float,
    decay: float,
) -> None:
    # With `step`, db is the bias itself and takes the SGD step in place of receiving
    # the gradient: the column sums never reach memory (see `dense_backward_sgd`).
    n, m = dy.shape
    acc = np.zeros(m, np.float64)
    for i in range(n):
        for j in range(m):
            g = dy[i, j] * _act_grad(y[i, j], code)
            dz[i, j] = g
            acc[j] += g
    for j in range(m):
        db[j] = db[j] - lr * (acc[j] + decay * db[j]) if step else acc[j]


def bias_act_forward(z: Array, b: Array | None, act: int) -> Array:
    """act(z + b), computed in place in z."""
    check_float_array("z", z, 2)
    if b is not None or act != 0:
        _bias_act(z, _NONE.astype(z.dtype) if b is None else b, b is not None, act)
    return z


def bias_act_backward(dy: Array, y: Array, act: int) -> tuple[Array, Array]:
    """Return (dz, db) in one pass over dy."""
    check_float_array("dy", dy, 2)
    dz = np.empty_like(dy)
    db = np.empty(dy.shape[1], dy.dtype)
    _bias_act_grad(dy, y, act, dz, db, False, 0.0, 0.0)
    return dz, db


def dense_forward(x: Array, w: Array, b: Array | None, act: int) -> Array:
    """act(x @ w.T + b): one BLAS call, then the fused bias/activation epilogue."""
    check_float_array("x", x, 2)
    return bias_act_forward(x @ w.T, b, act)


def dense_backward(
    dy: Array, x: Array, w: Array, y: Array, act: int, need_dx: bool
) -> tuple[Array | None, Array, Array]:
    """Return (dx or None, dw, db); dz and db come from one fused pass, the products from BLAS."""
    return dense_backward_into(dy, x, w, y, act, need_dx, None, None)


def dense_backward_into(
    dy: Array,
    x: Array,
    w: Array,
    y: Array,
    act: int,
    need_dx: bool,
    dw: Array | None,
    db: Array | None,
) -> tuple[Array | None, Array, Array]:
    """`dense_backward` writing dw and db into the arrays given (None: new ones); return (dx, dw, db).

    A host-only extra of this table (not in `KERNEL_NAMES`): data-parallel
    training hands the rows of its shared gradient window here, so the
    gradients are written once, where the reduction reads them.
    """
    check_float_array("dy", dy, 2)
    m = dy.shape[1]
    if db is None:
        db = np.empty(m, dy.dtype)
    if act == 0:
        dz = dy
        np.sum(dy, axis=0, out=db)
    else:
        dz = np.empty_like(dy)
        _bias_act_grad(dy, y, act, dz, db, False, 0.0, 0.0)
    if dw is None:
        dw = np.empty((m, x.shape[1]), dy.dtype)
    np.matmul(dz.T, x, out=dw)
    return (dz @ w if need_dx else None), dw, db


def _bias_sgd(
    dy: Array, y: Array, act: int, b: Array | None, lr: float, weight_decay: float
) -> Array:
    """Dz, with b stepped in the same pass (its gradient never reaches memory)."""
    check_float_array("dy", dy, 2)
    if b is None:
        return dy if act == 0 else bias_act_backward(dy, y, act)[0]
    check_float_array("b", b, 1)
    dz = np.empty_like(dy)
    _bias_act_grad(dy, y, act, dz, b, True, lr, weight_decay)
    return dz


# The weight step is the weight-gradient product itself, accumulated into w
# (w = (1 - lr*wd) * w - lr * dz.T @ x: one GEMM with beta != 0, see `_blas`).
dense_backward_sgd = dense_sgd_kernel(
    _bias_sgd,
    np.matmul,
    lambda w, x, dz, lr, wd: accumulate_product(w, x, dz, -lr, 1.0 - lr * wd),
)


# --- softmax and losses ---------------------------------------------------------------
@_kernel
def _softmax_rows(x: Array, out: Array, log: bool, r0: int, r1: int) -> None:
    for i in range(r0, r1):
        _softmax_row(x, out, log, i)


@_kernel
def _softmax_grad_rows(
    dy: Array, y: Array, out: Array, log: bool, r0: int, r1: int
) -> None:
    for i in range(r0, r1):
        _softmax_grad_row(dy, y, out, log, i)


# Rows a thread takes at least (attention's score rows: one thread's 512 rows of 64 take ~0.1 ms).
_SOFTMAX_BLOCK_ROWS = 512


def _rows(x: Array, log: bool) -> Array:
    check_float_array("x", x, 2)
    out = np.empty_like(x)
    in_spans(_softmax_rows, x.shape[0], _SOFTMAX_BLOCK_ROWS, x, out, log)
    return out


def _rows_grad(dy: Array, y: Array, log: bool) -> Array:
    check_float_array("dy", dy, 2)
    out = np.empty_like(dy)
    rows = dy.shape[0]
    in_spans(_softmax_grad_rows, rows, _SOFTMAX_BLOCK_ROWS, dy, y, out, log)
    return out


softmax_forward, softmax_backward, log_softmax_forward, log_softmax_backward = (
    softmax_kernels(_rows, _rows_grad)
)


@_kernel
def _sce_sparse(x: Array, labels: Array, loss: Array, grad: Array) -> None:
    n, c = x.shape
    for i in range(n):
        if labels[i] < 0 or labels[i] >= c:
            raise IndexError("a label is outside [0, num_classes)")
        _sce_sparse_row(x, labels, loss, grad, i)


@_kernel
def _sce_dense(x: Array, labels: Array, loss: Array, grad: Array) -> None:
    for i in range(x.shape[0]):
        _sce_dense_row(x, labels, loss, grad, i)


def softmax_cross_entropy_sparse(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss and its gradient wrt logits, in one pass (forward and backward fused)."""
    check_float_array("logits", logits, 2)
    if labels.shape != logits.shape[:1] or labels.dtype.kind not in "iu":
        raise ValueError(
            f"Kernel argument `labels` must be integers of shape {logits.shape[:1]}, but got {labels.dtype} {labels.shape}."
        )
    loss = np.empty(logits.shape[0], logits.dtype)
    grad = np.empty_like(logits)
    _sce_sparse(logits, labels, loss, grad)
    return loss, grad


def softmax_cross_entropy_dense(logits: Array, labels: Array) -> tuple[Array, Array]:
    """Per-sample loss against target distributions and its gradient, in one pass."""
    check_float_array("logits", logits, 2)
    check_float_array("labels", labels, 2)
    loss = np.empty(logits.shape[0], logits.dtype)
    grad = np.empty_like(logits)
    _sce_dense(logits, labels, loss, grad)
    return loss, grad


# --- convolution, pooling and batch normalization (NCHW) -----------------------------------
@_kernel
def _im2col(x: Array, g: tuple[int, ...], cols: Array) -> None:
    # x is already padded, so the loops carry no bounds checks and the inner one vectorizes.
    kh, kw, sh, sw, _pt, _pb, _pl, _pr, dh, dw, oh, ow = g
    n, c = x.shape[0], x.shape[1]
    kk = kh * kw
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                row = (b * oh + oy) * ow + ox
                for ch in range(c):
                    for i in range(kh):
                        iy = oy * sh + i * dh
                        base = ch * kk + i * kw
                        for j in range(kw):
                            cols[row, base + j] = x[b, ch, iy, ox * sw + j * dw]


@_kernel
def _col2im(dcols: Array, g: tuple[int, ...], dx: Array) -> None:
    # Rows and columns in order, so each dx element sums its contributions in one fixed order.
    kh, kw, sh, sw, pt, _pb, pl, _pr, dh, dw, oh, ow = g
    n, c, h, w = dx.shape
    row = 0
    for b in range(n):
        for oy in range(oh):
            for ox in range(ow):
                col = 0
                for ch in range(c):
                    for i in range(kh):
                        iy = oy * sh - pt + i * dh
                        for j in range(kw):
                            ix = ox * sw - pl + j * dw
                            if 0 <= iy < h and 0 <= ix < w:
                                dx[b, ch, iy, ix] += dcols[row, col]
                            col += 1
                row += 1


def _im2col_images(
    x: Array, g: ConvGeometry, cols: Array, first: int, stop: int
) -> None:
    """Write the im2col rows of images first .. stop - 1, padding them here.

    Each thread pads its own images: one np.pad of the whole batch before the split
    ran on the calling thread alone.
    """
    xs = x[first:stop]
    if any(g[4:8]):
        xs = np.pad(xs, ((0, 0), (0, 0), (g.pt, g.pb), (g.pl, g.pr)))
    _im2col(xs, tuple(g), cols[_image_rows(g, first, stop)])


def _image_rows(g: ConvGeometry, first: int, stop: int) -> slice:
    """The im2col rows of images first .. stop - 1."""
    return slice(first * g.oh * g.ow, stop * g.oh * g.ow)


def _by_images(loop: Any, n: int) -> None:
    """Run loop(first, stop) over the n images, split into one span per thread (`_parallel`).

    The copies in and out of the columns run on every core BLAS may use, as the products do;
    each span writes its own rows and images only.
    """
    in_spans(loop, n, 1)


# im2col columns of recent forward passes, reused by the backward pass of the same
# input (saves one im2col per convolution per step). Keyed by the input array's
# identity; a weak reference proves it is the same live array. Bounded, so at most
# _COLS_KEEP column buffers stay alive.
_COLS_KEEP = 8
_cols_cache: OrderedDict[tuple[Any, ...], tuple[weakref.ref[Array], Array]] = (
    OrderedDict()
)


def _columns(x: Array, w: Array, g: ConvGeometry, reuse: bool) -> Array:
    """im2col of x; `reuse` (backward only) may return the forward's columns of the same array.

    The forward always recomputes: a caller may refill the same input buffer between steps.
    """
    key = (id(x), x.shape, w.shape[1:], g)
    hit = _cols_cache.pop(key, None)
    if reuse and hit is not None and hit[0]() is x:
        return hit[1]
    cols = np.empty((x.shape[0] * g.oh * g.ow, x.shape[1] * g.kh * g.kw), x.dtype)
    _by_images(lambda a, b: _im2col_images(x, g, cols, a, b), x.shape[0])
    _cols_cache[key] = (weakref.ref(x), cols)
    while len(_cols_cache) > _COLS_KEEP:
        _cols_cache.popitem(last=False)
    return cols


# The pooling loops walk the outputs in order with nested loops: the flat index the CUDA
# kernels unravel would cost four integer divisions per output (pooling ran 3x slower).
@_kernel
def _max_pool(x: Array, p: tuple[int, ...], y: Array, idx: Array) -> None:
    n, c, oh, ow = y.shape
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    _max_pool_window(x, p, y, idx, b, ch, oy, ox)


@_kernel
def _max_pool_grad(dy: Array, idx: Array, dx: Array) -> None:
    n, c, oh, ow = dy.shape
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    dx[b, ch, idx[b, ch, oy, ox]] += dy[b, ch, oy, ox]


@_kernel
def _avg_pool(x: Array, p: tuple[int, ...], y: Array) -> None:
    n, c, oh, ow = y.shape
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    _mean_pool_window(x, p, y, b, ch, oy, ox)


@_kernel
def _avg_pool_grad(dy: Array, p: tuple[int, ...], dx: Array) -> None:
    kh, kw, sh, sw = p
    n, c, oh, ow = dy.shape
    inv = 1.0 / (kh * kw)
    for b in range(n):
        for ch in range(c):
            for oy in range(oh):
                for ox in range(ow):
                    g = dy[b, ch, oy, ox] * inv
                    for i in range(kh):
                        for j in range(kw):
                            dx[b, ch, oy * sh + i, ox * sw + j] += g


# Batch normalization: the channels split over the kernel threads (`_parallel`).
_bn_channels_fwd = split_loop(_rowwise.batch_norm_channel_forward)
_bn_channels_bwd = split_loop(_rowwise.batch_norm_channel_backward)


def _bn_fwd(*args: Any) -> None:  # x first
    _bn_channels_fwd(*args, args[0].shape[1])


def _bn_bwd(*args: Any) -> None:  # dy, x first
    _bn_channels_bwd(*args, args[1].shape[1])


def _checked(name: str, a: Array, ndim: int) -> Array:
    check_float_array(name, a, ndim)
    return a


_spatial = spatial_kernels(
    SpatialPrimitives(
        arg=_checked,
        indices=np.asarray,
        empty=np.empty,
        zeros=np.zeros,
        launch=lambda loop, n, *args: loop(*args),
        matmul=split_matmul,
        contiguous=contiguous,
        columns=_columns,
        col2im=lambda dcols, g, dx: _by_images(
            lambda a, b: _col2im(dcols[_image_rows(g, a, b)], tuple(g), dx[a:b]),
            dx.shape[0],
        ),
        max_pool=(_max_pool, _max_pool_grad),
        avg_pool=(_avg_pool, _avg_pool_grad),
        batch_norm=(_bn_fwd, _bn_bwd),
    )
)
conv2d_forward, conv2d_backward = _spatial.conv2d
conv2d_backward_input = _spatial.conv2d_backward_input
max_pool2d_forward, max_pool2d_backward = _spatial.max_pool2d
avg_pool2d_forward, avg_pool2d_backward = _spatial.avg_pool2d
batch_norm_forward, batch_norm_backward = _spatial.batch_norm
batch_norm_residual_backward = _spatial.batch_norm_residual_backward


# --- optimizer updates: one fused pass per parameter -------------------------------------
# The per-element rules are `_scalar`'s, shared with the CUDA table; only the loops are
# here. `hyper` is the rest of the rule's arguments, in its order.
@_kernel
def _sgd(p: Array, g: Array, accum: Array, stat: Array, *hyper: Any) -> None:
    for i in range(p.size):
        pi, accum[i], stat[i] = _sgd_step(p[i], g[i], accum[i], stat[i], *hyper)
        p[i] = pi  # last: at momentum 0 a caller may pass p as accum and stat


@_kernel
def _momentum(p: Array, g: Array, moment: Array, *hyper: Any) -> None:
    for i in range(p.size):
        p[i], moment[i] = _momentum_step(p[i], g[i], moment[i], *hyper)


@_kernel
def _adam(p: Array, g: Array, m: Array, v: Array, *hyper: Any) -> None:
    for i in range(p.size):
        p[i], m[i], v[i] = _adam_step(p[i], g[i], m[i], v[i], *hyper)


# Hyperparameters stay Python floats: the loops compute in float64 and round once on store.
sgd_update, momentum_update, adam_update = optimizer_updates(
    OptimizerPrimitives(
        sgd=_sgd,
        momentum=_momentum,
        adam=_adam,
        run=run_loop,
        state=flat_state,
        grad=lambda param, g: g.reshape(-1),
        scalar=lambda param: float,
    )
)
