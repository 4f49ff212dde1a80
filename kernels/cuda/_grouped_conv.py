"""CUDA kernels of grouped (and depthwise) convolution: one thread per destination plane or filter.

The bodies are `_grouped_conv_bodies`'s, compiled as device functions; the
planning, checks and launch order are `_grouped_conv.grouped_conv_kernels`'s,
shared with the CPU table, so both targets accept and refuse the same calls.
"""

from __future__ import annotations

from typing import Any

from .. import _grouped_conv_bodies as bodies
from .._grouped_conv import GroupedConvPrimitives, grouped_conv_kernels, plane_schedule
from ._array import device_empty, to_device
from ._device import cuda, launch
from ._matmul import device_arg, raw

__all__ = [
    "grouped_conv2d_backward",
    "grouped_conv2d_backward_input",
    "grouped_conv2d_forward",
]


def _grid_loop(body: Any) -> Any:
    device_body = cuda.jit(device=True)(body)

    @cuda.jit
    def run(*args: Any) -> None:  # the body's arguments, then the count
        count = args[-1]
        for p in range(cuda.grid(1), count, cuda.gridsize(1)):
            device_body(*args[:-1], p)

    def launch_over(*args: Any) -> None:
        count = args[-1]
        run[launch(count)](*(raw(a) if hasattr(a, "device_array") else a for a in args))

    return launch_over


_depthwise_forward, _depthwise_backward = plane_schedule(_grid_loop, device_empty)

(
    grouped_conv2d_forward,
    grouped_conv2d_backward,
    grouped_conv2d_backward_input,
) = grouped_conv_kernels(
    GroupedConvPrimitives(
        arg=lambda name, a: device_arg(name, a, 4),
        small=to_device,
        empty=device_empty,
        planes=_grid_loop(bodies.grouped_conv_plane),
        filters=_grid_loop(bodies.grouped_conv_filter_grad),
        depthwise_forward=_depthwise_forward,
        depthwise_backward=_depthwise_backward,
    )
)
