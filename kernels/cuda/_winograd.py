"""CUDA kernels of the Winograd convolution (F(4x4, 3x3) and F(2x2, 3x3)): one thread per transformed plane or filter.

The transform bodies are `_winograd4_bodies`' and `_winograd_bodies`', compiled as device functions;
the planning, checks and product order are `_winograd.winograd_kernels`'s,
shared with the CPU table. The whole batch is one block (device arrays are
not sliced into views here) and the 36 or 16 products are `batch_matmul`'s kernel.
"""

from __future__ import annotations

from typing import Any

from .._winograd import TRANSFORMS, WinogradPrimitives, winograd_kernels
from ._array import device_empty
from ._attention import batch_matmul
from ._device import cuda, launch
from ._matmul import device_arg, raw

__all__ = ["conv2d_winograd_backward", "conv2d_winograd_forward"]


@cuda.jit
def _pad(x: Any, top: int, left: int, xp: Any) -> None:
    # One thread per element of xp: x's pixel where it lies, else 0.
    h, w = x.shape[2], x.shape[3]
    rows, cols = xp.shape[2], xp.shape[3]
    for e in range(cuda.grid(1), xp.size, cuda.gridsize(1)):
        j = e % cols
        i = (e // cols) % rows
        bc = e // (cols * rows)
        c = bc % xp.shape[1]
        b = bc // xp.shape[1]
        iy, ix = i - top, j - left
        inside = 0 <= iy < h and 0 <= ix < w
        xp[b, c, i, j] = x[b, c, iy, ix] if inside else 0.0


def _padded(x: Any, top: int, left: int, rows: int, cols: int) -> Any:
    xp = device_empty((x.shape[0], x.shape[1], rows, cols), x.dtype)
    _pad[launch(xp.size)](raw(x), top, left, raw(xp))
    return xp


def _compiled(body: Any, flip: bool) -> Any:
    device_body = cuda.jit(device=True)(body)
    if flip:

        @cuda.jit
        def run_flip(src: Any, dst: Any, flag: bool, inner: int, count: int) -> None:
            for p in range(cuda.grid(1), count, cuda.gridsize(1)):
                i = p // inner
                device_body(src, dst, flag, i, p - i * inner)

        return run_flip

    @cuda.jit
    def run(src: Any, dst: Any, count: int) -> None:
        for p in range(cuda.grid(1), count, cuda.gridsize(1)):
            device_body(src, dst, p)

    return run


_PLANES = {
    body: _compiled(body, False)
    for ts in TRANSFORMS.values()
    for body in (ts.input_plane, ts.output_plane, ts.output_grad_plane)
}
_FILTERS = {
    body: _compiled(body, True)
    for ts in TRANSFORMS.values()
    for body in (ts.filter, ts.filter_grad)
}


def _planes(body: Any, src: Any, dst: Any, count: int) -> None:
    _PLANES[body][launch(count)](raw(src), raw(dst), count)


def _filters(body: Any, src: Any, dst: Any, flip: bool, rows: int, inner: int) -> None:
    count = rows * inner
    _FILTERS[body][launch(count)](raw(src), raw(dst), flip, inner, count)


conv2d_winograd_forward, conv2d_winograd_backward = winograd_kernels(
    WinogradPrimitives(
        arg=lambda name, a: device_arg(name, a, 4),
        empty=device_empty,
        tiles_empty=device_empty,
        pad=_padded,
        images=lambda n, per_image_bytes, tiles_per_image: n,
        planes=_planes,
        filters=_filters,
        batch_matmul=lambda a, b, ta, tb, as_tiles: batch_matmul(a, b, ta, tb),
        add=lambda acc, part: acc + part,
        threads=lambda: 1,
        run=lambda tasks: [task() for task in tasks],
    )
)
