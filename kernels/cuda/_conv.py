"""CUDA kernels for convolution, pooling and batch normalization.

Convolution is im2col + the tiled matmul of `_matmul`; the backward recomputes
the columns (no cache across calls, unlike the CPU) and scatters into dx
with atomic adds, as do the pooling backward passes. Batch normalization
runs one thread per channel. The loop bodies are `_rowwise`'s and the public
functions `_spatial`'s, shared with the CPU table.
"""

from __future__ import annotations

from typing import Any

from .. import _rowwise
from .._spatial import ConvGeometry, SpatialPrimitives, spatial_kernels
from ._array import DeviceArray, device_empty, to_device
from ._device import cuda, launch
from ._generic import fill
from ._matmul import device_arg, matmul, raw

Array = Any

(
    _conv_source,
    _nchw_index,
    _max_pool_window,
    _mean_pool_window,
    _bn_fwd_body,
    _bn_bwd_body,
) = (
    cuda.jit(device=True)(body)
    for body in (
        _rowwise.conv_source,
        _rowwise.nchw_index,
        _rowwise.max_pool_window,
        _rowwise.mean_pool_window,
        _rowwise.batch_norm_channel_forward,
        _rowwise.batch_norm_channel_backward,
    )
)


# --- convolution: one thread per im2col entry -----------------------------------------------
@cuda.jit
def _im2col(image: Any, g: Any, cols: Any, backward: bool) -> None:
    # Forward copies the image into its columns; backward adds the columns back into the
    # image (atomically: entries of overlapping windows share pixels). Padding reads as 0.
    h, w = image.shape[2], image.shape[3]
    width = cols.shape[1]
    for e in range(cuda.grid(1), cols.size, cuda.gridsize(1)):
        row = e // width
        col = e - row * width
        b, ch, iy, ix = _conv_source(g, row, col)
        inside = 0 <= iy < h and 0 <= ix < w
        if backward:
            if inside:
                cuda.atomic.add(image, (b, ch, iy, ix), cols[row, col])
        else:
            cols[row, col] = image[b, ch, iy, ix] if inside else 0


def _columns(
    x: DeviceArray, w: DeviceArray, g: ConvGeometry, reuse: bool
) -> DeviceArray:
    cols = device_empty((x.shape[0] * g.oh * g.ow, x.shape[1] * g.kh * g.kw), x.dtype)
    _launch(_im2col, cols.size, x, tuple(g), cols, False)
    return cols


# --- pooling (no padding): one thread per output element ----------------------------------
@cuda.jit
def _max_pool(x: Any, p: Any, y: Any, idx: Any) -> None:
    for e in range(cuda.grid(1), y.size, cuda.gridsize(1)):
        b, ch, oy, ox = _nchw_index(e, y.shape)
        _max_pool_window(x, p, y, idx, b, ch, oy, ox)


@cuda.jit
def _max_pool_grad(dy: Any, idx: Any, dx: Any) -> None:
    for e in range(cuda.grid(1), dy.size, cuda.gridsize(1)):
        b, ch, oy, ox = _nchw_index(e, dy.shape)
        cuda.atomic.add(dx, (b, ch, idx[b, ch, oy, ox]), dy[b, ch, oy, ox])


@cuda.jit
def _avg_pool(x: Any, p: Any, y: Any) -> None:
    for e in range(cuda.grid(1), y.size, cuda.gridsize(1)):
        b, ch, oy, ox = _nchw_index(e, y.shape)
        _mean_pool_window(x, p, y, b, ch, oy, ox)


@cuda.jit
def _avg_pool_grad(dy: Any, p: Any, dx: Any) -> None:
    kh, kw, sh, sw = p
    for e in range(cuda.grid(1), dy.size, cuda.gridsize(1)):
        b, ch, oy, ox = _nchw_index(e, dy.shape)
        g = dy[b, ch, oy, ox] / (kh * kw)
        for i in range(kh):
            for j in range(kw):
                cuda.atomic.add(dx, (b, ch, oy * sh + i, ox * sw + j), g)


# --- batch normalization: one thread per channel ----------------------------------------------
@cuda.jit
def _bn_fwd(
    x: Any, res: Any, add: bool, gamma: Any, beta: Any, eps: float, low: float,
    high: float, y: Any, mean: Any, var: Any,
) -> None:  # fmt: skip
    for ch in range(cuda.grid(1), x.shape[1], cuda.gridsize(1)):
        _bn_fwd_body(x, res, add, gamma, beta, eps, low, high, y, mean, var, ch)


@cuda.jit
def _bn_bwd(
    dy: Any, x: Any, y: Any, from_y: bool, gamma: Any, beta: Any, mean: Any, var: Any,
    eps: float, low: float, high: float, dx: Any, dres: Any, dgamma: Any, dbeta: Any,
) -> None:  # fmt: skip
    for ch in range(cuda.grid(1), x.shape[1], cuda.gridsize(1)):
        _bn_bwd_body(
            dy, x, y, from_y, gamma, beta, mean, var, eps, low, high, dx, dres, dgamma,
            dbeta, ch,
        )  # fmt: skip


def _col2im(dcols: DeviceArray, g: ConvGeometry, dx: DeviceArray) -> None:
    _launch(_im2col, dcols.size, dx, tuple(g), dcols, True)


def _launch(loop: Any, n: int, *args: Any) -> None:
    if n:
        loop[launch(n)](*(raw(a) if isinstance(a, DeviceArray) else a for a in args))


_spatial = spatial_kernels(
    SpatialPrimitives(
        arg=device_arg,
        indices=lambda a: a if isinstance(a, DeviceArray) else to_device(a),
        empty=device_empty,
        zeros=lambda shape, dtype: fill(device_empty(shape, dtype), 0),
        launch=_launch,
        matmul=lambda a, b, ta, tb: matmul(a, b, ta=ta, tb=tb),
        contiguous=lambda a: a,
        columns=_columns,
        col2im=_col2im,
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

# The planar, stride-phase and 1x1 layouts (`kernels/_planar_conv.py`, `_phase_conv.py`,
# `_pointwise_conv.py`) are CPU arrangements of the host BLAS calls; the device kernels above
# have their own, so here their names run the general convolution.
conv2d_planar_forward = conv2d_phase_forward = conv2d_pointwise_forward = conv2d_forward
conv2d_planar_backward = conv2d_phase_backward = conv2d_pointwise_backward = (
    conv2d_backward
)
