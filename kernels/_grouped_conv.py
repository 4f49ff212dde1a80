"""Grouped (and depthwise) convolution kernels: the host side shared by both targets, and the CPU table's pair.

`grouped_conv_kernels` builds `grouped_conv2d_forward` / `_backward` for a
target from its four primitives (argument conversion, allocation, the plane
loop, the filter loop), so the CPU and CUDA tables plan, check and launch
the same way; `kernels/cuda/_grouped_conv.py` builds the CUDA pair. The loop
bodies are `_grouped_conv_bodies`'s. Single-threaded like every CPU kernel
(see `_cpu`'s docstring).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
from numba.extending import register_jitable

from . import _grouped_conv_bodies as bodies, _numba_cache
from ._checks import check_float_array

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "GroupedConvPrimitives",
    "grouped_conv2d_backward",
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


def _plan(
    x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair, groups: int
) -> tuple[Pair, Array, Array, Array]:
    """Check the geometry; return the output's (height, width), `geom`, `ylim` and `xlim` (host arrays)."""
    c, h, wd = x.shape[1], x.shape[2], x.shape[3]
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
            f"Kernel arguments give an empty output ({oh}, {ow}) for input {x.shape}."
        )
    geom = np.array([*stride, padding[0], padding[2], *dilation, groups], np.int64)
    ylim = bodies.tap_ranges(h, oh, kh, stride[0], padding[0], dilation[0])
    xlim = bodies.tap_ranges(wd, ow, kw, stride[1], padding[2], dilation[1])
    return (oh, ow), geom, ylim, xlim


def grouped_conv_kernels(
    prim: GroupedConvPrimitives,
) -> tuple[Callable[..., Array], Callable[..., tuple[Array | None, Array]]]:
    """Build a target's (grouped_conv2d_forward, grouped_conv2d_backward) from its primitives."""

    def forward(
        x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair, groups: int
    ) -> Array:
        """Direct grouped cross-correlation: x (N, C, H, W), w (O, C/groups, KH, KW) -> (N, O, OH, OW)."""
        x, w = prim.arg("x", x), prim.arg("w", w)
        (oh, ow), *host = _plan(x, w, stride, padding, dilation, groups)
        geom, ylim, xlim = (prim.small(a) for a in host)
        y = prim.empty((x.shape[0], w.shape[0], oh, ow), x.dtype)
        prim.planes(x, y, w, geom, ylim, xlim, False, x.shape[0] * w.shape[0])
        return y

    def backward(
        dy: Array, x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair,
        groups: int, need_dx: bool,
    ) -> tuple[Array | None, Array]:  # fmt: skip
        """Return (dx or None, dw) of the forward."""
        dy, x, w = prim.arg("dy", dy), prim.arg("x", x), prim.arg("w", w)
        _, *host = _plan(x, w, stride, padding, dilation, groups)
        geom, ylim, xlim = (prim.small(a) for a in host)
        dwt = prim.empty(w.shape, w.dtype)
        prim.filters(x, dy, dwt, geom, ylim, xlim, False, w.shape[0])
        if not need_dx:
            return None, dwt
        dx = prim.empty(x.shape, x.dtype)
        prim.planes(dx, dy, w, geom, ylim, xlim, True, x.shape[0] * x.shape[1])
        return dx, dwt

    return forward, backward


# --- the CPU pair --------------------------------------------------------------------------
# Cached on disk, keyed on this file and the bodies' (see `_numba_cache`).
_CACHE = _numba_cache.install(__file__, bodies.__file__)


def _cpu_loop(body: Any) -> Any:
    # register_jitable: a cached closure must close over what pickles by name (see `_optim_cpu`).
    inlined = register_jitable(error_model="numpy", inline="always")(body)

    def run(image: Array, out: Array, w: Array, geom: Array, ylim: Array, xlim: Array,
            to_image: bool, count: int) -> None:  # fmt: skip
        for p in range(count):
            inlined(image, out, w, geom, ylim, xlim, to_image, p)

    return numba.jit(nogil=True, cache=_CACHE, error_model="numpy")(run)


def _cpu_arg(name: str, a: Array) -> Array:
    check_float_array(name, a, 4)
    return a


grouped_conv2d_forward, grouped_conv2d_backward = grouped_conv_kernels(
    GroupedConvPrimitives(
        arg=_cpu_arg,
        small=lambda a: a,
        empty=np.empty,
        planes=_cpu_loop(bodies.grouped_conv_plane),
        filters=_cpu_loop(bodies.grouped_conv_filter_grad),
    )
)
