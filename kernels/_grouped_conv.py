"""Grouped (and depthwise) convolution kernels: the host side shared by both targets, and the CPU table's pair.

`grouped_conv_kernels` builds `grouped_conv2d_forward` / `_backward` for a
target from its four primitives (argument conversion, allocation, the plane
loop, the filter loop), so the CPU and CUDA tables plan, check and launch
the same way; `kernels/cuda/_grouped_conv.py` builds the CUDA pair. The loop
bodies are `_grouped_conv_bodies`'s, and `_depthwise_bodies`'s for depthwise
calls (one filter per channel: MobileNet's). On the CPU the planes and filters
are split over the kernel threads (`_parallel`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import _depthwise_bodies as depthwise, _grouped_conv_bodies as bodies
from ._checks import check_float_array
from ._parallel import in_spans, split_loop

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "GroupedConvPrimitives",
    "grouped_conv2d_backward",
    "grouped_conv2d_backward_input",
    "grouped_conv2d_forward",
    "grouped_conv_kernels",
]

Array = Any
Pair = tuple[int, int]
Quad = tuple[int, int, int, int]


class GroupedConvPrimitives(NamedTuple):
    """What a target supplies to `grouped_conv_kernels`."""

    arg: Callable[
        [str, Array], Array
    ]  # check a float NCHW argument, move it to the target
    small: Callable[
        [Array], Array
    ]  # move a small int64 host array (geometry, tap ranges) to the target
    empty: Callable[[tuple[int, ...], Any], Array]
    # (image, out, w, geom, ylim, xlim, to_image, count): run a body for indices 0 .. count-1
    planes: Callable[..., None]
    filters: Callable[..., None]
    # Depthwise calls (see `_is_depthwise`): (x, w, geom, ylim, xlim, y) fills y, and
    # (x, w, geom, ylim, xlim, dy, dw, need_dx) fills dw and returns dx or None.
    depthwise_forward: Callable[..., None]
    depthwise_backward: Callable[..., Array | None]


def _is_depthwise(x: Array, w: Array, groups: int) -> bool:
    return bool(groups == x.shape[1] == w.shape[0] and w.shape[1] == 1)


def _plan(
    x_shape: tuple[int, ...], w: Array, stride: Pair, padding: Quad, dilation: Pair,
    groups: int,
) -> tuple[Pair, Array, Array, Array]:  # fmt: skip
    """Check the geometry; return the output's (height, width), `geom`, `ylim` and `xlim` (host arrays)."""
    c, h, wd = x_shape[1], x_shape[2], x_shape[3]
    o, cg, kh, kw = w.shape
    if groups < 1 or o % groups or cg * groups != c:
        raise ValueError(
            f"Kernel arguments must split into `groups`={groups} equal parts: x has {c} channels, "
            f"w has shape {w.shape}."
        )
    oh = (h + padding[0] + padding[1] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + padding[2] + padding[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    if oh < 1 or ow < 1:
        raise ValueError(
            f"Kernel arguments give an empty output ({oh}, {ow}) for input {x_shape}."
        )
    geom = np.array([*stride, padding[0], padding[2], *dilation, groups], np.int64)
    ylim = bodies.tap_ranges(h, oh, kh, stride[0], padding[0], dilation[0])
    xlim = bodies.tap_ranges(wd, ow, kw, stride[1], padding[2], dilation[1])
    return (oh, ow), geom, ylim, xlim


def grouped_conv_kernels(
    prim: GroupedConvPrimitives,
) -> tuple[
    Callable[..., Array],
    Callable[..., tuple[Array | None, Array]],
    Callable[..., Array],
]:
    """Build a target's (grouped_conv2d_forward, _backward, _backward_input) from its primitives."""

    def forward(
        x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair, groups: int
    ) -> Array:
        """Direct grouped cross-correlation: x (N, C, H, W), w (O, C/groups, KH, KW) -> (N, O, OH, OW)."""
        x, w = prim.arg("x", x), prim.arg("w", w)
        (oh, ow), *host = _plan(x.shape, w, stride, padding, dilation, groups)
        geom, ylim, xlim = (prim.small(a) for a in host)
        y = prim.empty((x.shape[0], w.shape[0], oh, ow), x.dtype)
        if _is_depthwise(x, w, groups):
            prim.depthwise_forward(x, w, geom, ylim, xlim, y)
            return y
        prim.planes(x, y, w, geom, ylim, xlim, False, x.shape[0] * w.shape[0])
        return y

    def backward(
        dy: Array, x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair,
        groups: int, need_dx: bool,
    ) -> tuple[Array | None, Array]:  # fmt: skip
        """Return (dx or None, dw) of the forward."""
        dy, x, w = prim.arg("dy", dy), prim.arg("x", x), prim.arg("w", w)
        _, *host = _plan(x.shape, w, stride, padding, dilation, groups)
        geom, ylim, xlim = (prim.small(a) for a in host)
        dwt = prim.empty(w.shape, w.dtype)
        if _is_depthwise(x, w, groups):
            return prim.depthwise_backward(
                x, w, geom, ylim, xlim, dy, dwt, need_dx
            ), dwt
        prim.filters(x, dy, dwt, geom, ylim, xlim, False, w.shape[0])
        if not need_dx:
            return None, dwt
        return backward_input(dy, w, x.shape, stride, padding, dilation, groups), dwt

    def backward_input(
        dy: Array, w: Array, x_shape: tuple[int, ...], stride: Pair, padding: Quad,
        dilation: Pair, groups: int,
    ) -> Array:  # fmt: skip
        """Return dx of the forward alone (a transposed convolution's forward needs no dw)."""
        dy, w = prim.arg("dy", dy), prim.arg("w", w)
        _, *host = _plan(tuple(x_shape), w, stride, padding, dilation, groups)
        geom, ylim, xlim = (prim.small(a) for a in host)
        dx = prim.empty(tuple(x_shape), dy.dtype)
        # The plane body gathers each input plane's gradient from its group's filters;
        # it serves depthwise calls too (one filter per plane), without their dw partials.
        prim.planes(dx, dy, w, geom, ylim, xlim, True, x_shape[0] * x_shape[1])
        return dx

    return forward, backward, backward_input


def plane_schedule(
    loop: Callable[[Any], Callable[..., None]],
    empty: Callable[[tuple[int, ...], Any], Array],
) -> tuple[Callable[..., None], Callable[..., Array | None]]:
    """The depthwise pair of `GroupedConvPrimitives` as one call per plane (`_depthwise_bodies`).

    `loop(body)` returns a launcher `(*args, count)` running body(*args, p) for every p.
    """
    forward_planes = loop(depthwise.depthwise_forward_plane)
    backward_planes = loop(depthwise.depthwise_backward_plane)
    filter_sum = loop(depthwise.depthwise_filter_sum)

    def forward(
        x: Array, w: Array, geom: Array, ylim: Array, xlim: Array, y: Array
    ) -> None:
        forward_planes(x, w, geom, ylim, xlim, y, y.shape[0] * y.shape[1])

    def backward(
        x: Array, w: Array, geom: Array, ylim: Array, xlim: Array, dy: Array, dwt: Array,
        need_dx: bool,
    ) -> Array | None:  # fmt: skip
        partial = empty((*x.shape[:2], *w.shape[2:]), w.dtype)
        # Without need_dx, `partial` stands in for dx: the body never writes it then.
        dx = empty(x.shape, x.dtype) if need_dx else partial
        planes = x.shape[0] * x.shape[1]
        backward_planes(x, w, geom, ylim, xlim, dy, dx, partial, need_dx, planes)
        filter_sum(partial, dwt, w.shape[0])
        return dx if need_dx else None

    return forward, backward


# --- the CPU pair --------------------------------------------------------------------------
# Depthwise on the CPU: one sample per call, channels-last (see `_depthwise_bodies`); it beat
# the plane bodies (those stay CUDA's) on every MobileNetV2 layer, 4x4 to 32x32. 3x3 layers
# with padding 1 on planes at least `FLAT_MIN_WIDTH` wide run the flat plane bodies instead
# (no copies, loops over whole planes); at stride 2 too: as the stride-1 layer at full size,
# every other row and column kept, which at 4x the multiplications still beat channels-last.
_samples_forward = split_loop(depthwise.depthwise_forward_sample)
_samples_backward = split_loop(depthwise.depthwise_backward_sample)
_filter_sum = split_loop(depthwise.depthwise_filter_sum)
_flat_forward = split_loop(depthwise.depthwise_forward_flat)
_flat_filter_grad = split_loop(depthwise.depthwise_filter_grad_flat)
FLAT_MIN_WIDTH = {1: 16, 2: 32}
"""The narrowest input plane the flat bodies take, by stride. Measured, one thread, batch 32,
against channels-last: at stride 1, 1.1-1.5x slower at 8x8, 1.6-1.8x faster at 16x16, 3-4x at
32x32; at stride 2, even at 16x16 and 2x faster at 32x32."""


def _flat_stride(x: Array, w: Array, geom: Array, out_shape: tuple[int, ...]) -> int:
    """1 or 2 when the flat bodies take the call, else 0.

    They take a 3x3 filter at dilation 1 and stride 1 or 2 with one row and column
    of padding before the plane, and as much after as gives the stride-1 output with
    every other row and column kept (x's size at stride 1).
    """
    s = int(geom[0])
    if (
        w.shape[2:] != (3, 3)
        or s not in FLAT_MIN_WIDTH
        or x.shape[3] < FLAT_MIN_WIDTH[s]
        or tuple(geom[1:6]) != (s, 1, 1, 1, 1)
        or tuple(out_shape[2:]) != tuple((n - 1) // s + 1 for n in x.shape[2:])
    ):
        return 0
    return s


# The stride-2 calls' resampling, split over the samples (numpy copies release the GIL).
def _keep_even(full: Array, y: Array, start: int, stop: int) -> None:
    y[start:stop] = full[start:stop, :, ::2, ::2]


def _spread_even(dy: Array, full: Array, start: int, stop: int) -> None:
    full[start:stop] = 0
    full[start:stop, :, ::2, ::2] = dy[start:stop]


def _edge_columns(shape: tuple[int, ...]) -> Array:
    """The flat bodies' `edge` (2, H * W): the pixels of a plane's first and last column."""
    column = np.arange(shape[2] * shape[3]) % shape[3]
    return np.stack([column == 0, column == shape[3] - 1])


def _channels_last_taps(w: Array) -> Array:
    return np.ascontiguousarray(w[:, 0].transpose(1, 2, 0))


def _cpu_depthwise_forward(
    x: Array, w: Array, geom: Array, ylim: Array, xlim: Array, y: Array
) -> None:
    stride = _flat_stride(x, w, geom, y.shape)
    if stride:
        full = y if stride == 1 else np.empty(x.shape, x.dtype)
        _flat_forward(x, w, _edge_columns(x.shape), full, x.shape[0] * x.shape[1])
        if stride == 2:
            in_spans(_keep_even, x.shape[0], 1, full, y)
        return
    _samples_forward(x, _channels_last_taps(w), geom, ylim, xlim, y, x.shape[0])


def _cpu_depthwise_backward(
    x: Array, w: Array, geom: Array, ylim: Array, xlim: Array, dy: Array, dwt: Array,
    need_dx: bool,
) -> Array | None:  # fmt: skip
    n, c = x.shape[:2]
    partial = np.empty((n, c, *w.shape[2:]), w.dtype)
    stride = _flat_stride(x, w, geom, dy.shape)
    if stride:
        # At stride 2, the stride-1 layer's gradient is dy with zeros between its pixels.
        if stride == 2:
            # (Those zeros multiply x, so an infinite or NaN pixel of x that the stride skips
            # makes the filter gradient NaN where the reference's stays finite.)
            full = np.empty(x.shape, dy.dtype)
            in_spans(_spread_even, n, 1, dy, full)
            dy = full
        edge = _edge_columns(x.shape)
        _flat_filter_grad(x, dy, edge, partial, n * c)
        _filter_sum(partial, dwt, c)
        if not need_dx:
            return None
        dx = np.empty(x.shape, x.dtype)
        # The input gradient: the same convolution of dy with the filter turned by 180 degrees.
        turned = np.ascontiguousarray(w[:, :, ::-1, ::-1])
        _flat_forward(dy, turned, edge, dx, n * c)
        return dx
    dx = (
        np.empty(x.shape, x.dtype) if need_dx else x
    )  # x: never written without need_dx
    taps = _channels_last_taps(w)
    _samples_backward(x, taps, geom, ylim, xlim, dy, dx, partial, need_dx, n)
    _filter_sum(partial, dwt, c)
    return dx if need_dx else None


def _cpu_arg(name: str, a: Array) -> Array:
    check_float_array(name, a, 4)
    return a


(
    grouped_conv2d_forward,
    grouped_conv2d_backward,
    grouped_conv2d_backward_input,
) = grouped_conv_kernels(
    GroupedConvPrimitives(
        arg=_cpu_arg,
        small=lambda a: a,
        empty=np.empty,
        planes=split_loop(bodies.grouped_conv_plane),
        filters=split_loop(bodies.grouped_conv_filter_grad),
        depthwise_forward=_cpu_depthwise_forward,
        depthwise_backward=_cpu_depthwise_backward,
    )
)
