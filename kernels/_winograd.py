"""3x3 stride-1 convolution through Winograd F(4x4, 3x3) or F(2x2, 3x3): the host side shared by both targets, and the CPU pair.

`output_tile` (the spec's) picks the transform set per convolution: F(4x4, 3x3)
(`_winograd4_bodies`, 36 products per 4x4 outputs) for batches of 64 or more 4x4
output blocks (unless cut tiles waste its saving), else F(2x2, 3x3)
(`_winograd_bodies`, 16 products per 2x2 outputs).
Below, K is the set's 36 or 16 and "tile" its (m + 2) x (m + 2) input block.
All three products of a training step's convolution run in the Winograd domain:

- forward: U = G w G^T per filter, V = B^T d B per input tile, M[k] = U[k] @ V[k]
  (K products, `batch_matmul`), Y = A^T M A written straight into NCHW;
- input gradient: itself a 3x3 stride-1 correlation, of dy with the filters
  rotated by 180 degrees and transposed (O <-> C) and padding 2 - p, so it is
  the forward again (`winograd_filter(flip=True)`);
- weight gradient: dM = A dY A^T per output tile, dU[k] = dM[k] @ V[k]^T summed
  over tiles, dw = G^T dU G (the adjoints of the forward's transforms).

Each product is (K x) O x C x N*H*W/m^2 multiply-adds against im2col's O x 9C x N*H*W:
2.25 times fewer with F(2x2, 3x3), 4 times with F(4x4, 3x3). The work goes in blocks
of images (`block_images`) whose transformed tiles stay in cache between the transform
and the product; no tile matrix is kept from the forward for the backward
(recomputed per block). F(2x2, 3x3)'s coefficients are 0, +-1 and +-1/2, so its float32
results stay within a few units in the last place of im2col's; F(4x4, 3x3)'s reach 8
and round about 10 times more (both within the convolution tests' tolerance).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
from numba.extending import register_jitable

from . import _numba_cache, _winograd4_bodies as bodies4, _winograd_bodies as bodies
from ._checks import check_float_array
from ._parallel import add_into, in_spans, run_parts, thread_count
from ._split_gemm import split_matmul
from ._winograd_reference import MATRICES, output_tile

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "TRANSFORMS",
    "TransformSet",
    "WinogradPrimitives",
    "conv2d_winograd_backward",
    "conv2d_winograd_forward",
    "winograd_applies",
    "winograd_kernels",
]

Array = Any
TILE_BYTES = 512 << 10
"""Target size of one block's transformed input and output tiles (CPU): about what stays in one core's L2
next to the products. Measured at 2 threads, batch 32: 4 MiB blocks (with `MIN_TILES` 512: 8 images
of 64@32x32 through F(4x4), 9.4 MiB of tiles per block) took 1.2-1.3 times as long as these at
64@32x32 and 1.1 times at 128@16x16; no slower elsewhere."""
MIN_TILES = 64
"""Fewest tiles per block (CPU): the products' third dimension, below which BLAS runs far from its peak
and the transformed filters (K x O x C) are read again for too little work (32 ran 1.2 times slower at
512@4x4)."""


Pair = tuple[int, int]
Quad = tuple[int, int, int, int]


class TransformSet(NamedTuple):
    """One Winograd F(m x m, 3x3): its output block side and its five bodies."""

    m: int
    input_plane: Any
    output_plane: Any
    output_grad_plane: Any
    filter: Any
    filter_grad: Any

    @property
    def k(self) -> int:
        """Transformed values per tile: (m + 2) ** 2."""
        return (self.m + 2) ** 2


TRANSFORMS = {
    2: TransformSet(
        2,
        bodies.winograd_input_plane,
        bodies.winograd_output_plane,
        bodies.winograd_output_grad_plane,
        bodies.winograd_filter,
        bodies.winograd_filter_grad,
    ),
    4: TransformSet(
        4,
        bodies4.winograd4_input_plane,
        bodies4.winograd4_output_plane,
        bodies4.winograd4_output_grad_plane,
        bodies4.winograd4_filter,
        bodies4.winograd4_filter_grad,
    ),
}


def winograd_applies(
    w_shape: tuple[int, ...], stride: Pair, padding: Quad, dilation: Pair
) -> bool:
    """Whether the Winograd kernels compute this convolution: 3x3, stride 1, dilation 1, each pad 0..2."""
    return (
        tuple(w_shape[2:]) == (3, 3)
        and tuple(stride) == (1, 1)
        and tuple(dilation) == (1, 1)
        and all(0 <= p <= 2 for p in padding)
    )


class WinogradPrimitives(NamedTuple):
    """What a target supplies to `winograd_kernels`.

    `arg` checks a float NCHW argument and moves it to the target; `empty`
    allocates; `tiles_empty(shape, dtype)` allocates transformed tiles or their
    products (K, channels, tiles); `pad(x, top, left, rows, cols)` returns x inside zeros of
    (rows, cols) per plane; `images(n, per_image_bytes, tiles_per_image)` is how
    many images one block holds; `planes` / `filters` run a body
    (`_winograd_bodies`) for indices 0 .. count - 1 (`planes(body, src, dst,
    count)`), or for index pairs (i, c) of range(rows) x range(inner)
    (`filters(body, src, dst, flip, rows, inner)`); `batch_matmul(a, b, ta, tb)`
    multiplies stacks; `add(acc, part)` returns acc + part (acc may be updated in
    place); `threads()` is how many groups of blocks `run(tasks)` runs at once
    (returning their results in order).
    """

    arg: Callable[[str, Array], Array]
    empty: Callable[[tuple[int, ...], Any], Array]
    tiles_empty: Callable[[tuple[int, int, int], Any], Array]
    pad: Callable[[Array, int, int, int, int], Array]
    images: Callable[[int, int, int], int]
    planes: Callable[[Any, Array, Array, int], None]
    filters: Callable[[Any, Array, Array, bool, int, int], None]
    batch_matmul: Callable[[Array, Array, bool, bool, bool], Array]
    add: Callable[[Array, Array], Array]
    threads: Callable[[], int]
    run: Callable[[list[Callable[[], Any]]], list[Any]]


def _check(x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair) -> Pair:
    """The output's (height, width); ValueError when the Winograd kernels do not apply."""
    if (
        not winograd_applies(w.shape, stride, padding, dilation)
        or w.shape[1] != x.shape[1]
    ):
        raise ValueError(
            "Kernel arguments must describe a 3x3 convolution of stride 1, dilation 1 and "
            f"padding 0..2 with w's channels matching x's; got x {tuple(x.shape)}, w {tuple(w.shape)}, "
            f"stride {tuple(stride)}, padding {tuple(padding)}, dilation {tuple(dilation)}."
        )
    oh, ow = (
        x.shape[2] + padding[0] + padding[1] - 2,
        x.shape[3] + padding[2] + padding[3] - 2,
    )
    if oh < 1 or ow < 1:
        raise ValueError(
            f"Kernel arguments give an empty output ({oh}, {ow}) for input {tuple(x.shape)}."
        )
    return oh, ow


def _part(a: Array, n0: int, n1: int) -> Array:
    """Images n0 .. n1 - 1 of a (a itself when that is all of them: no view on a device array)."""
    return a[n0:n1] if n0 or n1 < a.shape[0] else a


def winograd_kernels(
    prim: WinogradPrimitives,
) -> tuple[Callable[..., Array], Callable[..., tuple[Array | None, Array]]]:
    """Build a target's (conv2d_winograd_forward, conv2d_winograd_backward) from its primitives."""

    def tiles(
        ts: TransformSet,
        x: Array,
        n0: int,
        n1: int,
        top: int,
        left: int,
        th: int,
        tw: int,
    ) -> Array:
        """V (K, C, (n1 - n0) * TH * TW) of images n0 .. n1 - 1 of x."""
        xp = prim.pad(_part(x, n0, n1), top, left, ts.m * th + 2, ts.m * tw + 2)
        v = prim.tiles_empty((ts.k, x.shape[1], (n1 - n0) * th * tw), x.dtype)
        prim.planes(ts.input_plane, xp, v, (n1 - n0) * x.shape[1])
        return v

    def groups(
        ts: TransformSet, x: Array, out_channels: int, th: int, tw: int
    ) -> list[list[Pair]]:
        """Blocks of images, dealt to `threads()` groups of nearly equal work."""
        n, parts = x.shape[0], min(prim.threads(), x.shape[0])
        step = prim.images(n, 4 * ts.k * (x.shape[1] + out_channels) * th * tw, th * tw)
        blocks = math.ceil(n / step)
        step = math.ceil(
            n / (math.ceil(blocks / parts) * parts)
        )  # a multiple of `parts` blocks
        spans = [(n0, min(n, n0 + step)) for n0 in range(0, n, step)]
        return [spans[i::parts] for i in range(parts) if spans[i::parts]]

    def correlate(
        ts: TransformSet, x: Array, u: Array, flip: bool, padding: Quad, y: Array
    ) -> Array:
        """Y = the 3x3 stride-1 correlation of x with the transformed filters u (K, O, C), into y.

        With `flip` (the input gradient) u holds the rotated filters and is used transposed, (K, C, O).
        """
        y_channels = u.shape[2] if flip else u.shape[1]
        th, tw = -(-y.shape[2] // ts.m), -(-y.shape[3] // ts.m)

        def work(spans: list[Pair]) -> None:
            for n0, n1 in spans:
                v = tiles(ts, x, n0, n1, padding[0], padding[2], th, tw)
                m = prim.batch_matmul(u, v, flip, False, True)
                prim.planes(
                    ts.output_plane, m, _part(y, n0, n1), (n1 - n0) * y_channels
                )

        prim.run(
            [functools.partial(work, s) for s in groups(ts, x, y_channels, th, tw)]
        )
        return y

    def transformed(ts: TransformSet, w: Array, flip: bool) -> Array:
        u = prim.empty((ts.k, w.shape[0], w.shape[1]), w.dtype)
        prim.filters(ts.filter, w, u, flip, (ts.m + 2) * w.shape[0], w.shape[1])
        return u

    def forward(
        x: Array, w: Array, stride: Pair, padding: Quad, dilation: Pair
    ) -> Array:
        """`conv2d_forward` of a 3x3 stride-1 convolution, through F(4x4, 3x3) or F(2x2, 3x3)."""
        x, w = prim.arg("x", x), prim.arg("w", w)
        oh, ow = _check(x, w, stride, padding, dilation)
        ts = TRANSFORMS[output_tile(x.shape[0], oh, ow)]
        y = prim.empty((x.shape[0], w.shape[0], oh, ow), x.dtype)
        return correlate(ts, x, transformed(ts, w, False), False, padding, y)

    def backward(
        dy: Array,
        x: Array,
        w: Array,
        stride: Pair,
        padding: Quad,
        dilation: Pair,
        need_dx: bool,
    ) -> tuple[Array | None, Array]:
        """`conv2d_backward` of `forward`: (dx or None, dw)."""
        dy, x, w = prim.arg("dy", dy), prim.arg("x", x), prim.arg("w", w)
        oh, ow = _check(x, w, stride, padding, dilation)
        ts = TRANSFORMS[output_tile(x.shape[0], oh, ow)]
        th, tw = -(-oh // ts.m), -(-ow // ts.m)
        o = w.shape[0]

        def work(spans: list[Pair]) -> Array:
            du = None
            for n0, n1 in spans:
                v = tiles(ts, x, n0, n1, padding[0], padding[2], th, tw)
                dm = prim.tiles_empty((ts.k, o, v.shape[2]), dy.dtype)
                prim.planes(ts.output_grad_plane, _part(dy, n0, n1), dm, (n1 - n0) * o)
                product = prim.batch_matmul(dm, v, False, True, False)
                du = product if du is None else prim.add(du, product)
            return du

        partial = prim.run(
            [functools.partial(work, s) for s in groups(ts, x, o, th, tw)]
        )
        du = partial[0]
        for more in partial[1:]:
            du = prim.add(du, more)
        dw = prim.empty(w.shape, w.dtype)
        prim.filters(ts.filter_grad, du, dw, False, o, w.shape[1])
        if not need_dx:
            return None, dw
        # The input gradient's output is x's size: its own transform set.
        dts = TRANSFORMS[output_tile(x.shape[0], x.shape[2], x.shape[3])]
        full: Quad = (2 - padding[0], 2 - padding[1], 2 - padding[2], 2 - padding[3])
        dx = prim.empty(x.shape, x.dtype)
        return correlate(dts, dy, transformed(dts, w, True), True, full, dx), dw

    return forward, backward


# --- the CPU pair --------------------------------------------------------------------------
_CACHE = _numba_cache.install(__file__, bodies.__file__, bodies4.__file__)


def _cpu_loop(body: Any, extra: bool) -> Any:
    """Compile `body` into a loop over its indices (with `flip` passed through when `extra`).

    Kept in numba's disk cache (F(4x4)'s bodies take seconds to compile): as in
    `_parallel.split_loop`, the loop closes over the body as a plain function, which
    pickles by its name, so each body's loop has its own cache entry.
    """
    element = register_jitable(error_model="numpy", inline="always")(body)
    if extra:

        def run_flip(
            src: Array, dst: Array, flip: bool, inner: int, start: int, stop: int
        ) -> None:
            for i in range(start, stop):
                for c in range(inner):
                    element(src, dst, flip, i, c)

        return numba.jit(nogil=True, cache=_CACHE, error_model="numpy")(run_flip)

    def run(src: Array, dst: Array, count: int) -> None:
        for p in range(count):
            element(src, dst, p)

    return numba.jit(nogil=True, cache=_CACHE, error_model="numpy")(run)


_CPU_LOOPS: dict[Any, Any] = {}


def _cpu_planes(body: Any, src: Array, dst: Array, count: int) -> None:
    loop = _CPU_LOOPS.get(body) or _CPU_LOOPS.setdefault(body, _cpu_loop(body, False))
    loop(src, dst, count)


# G^T dU G of one filter is a fixed linear map of its K values to its 9 taps:
# dw[o, c, r, s] = sum over (i, j) of G[i, r] G[j, s] du[(m + 2) i + j, o, c], i.e. kron(G, G)^T.
# F(2x2)'s coefficients are 0, +-1, +-1/2 or +-1/4 (exact in any float type).
_FILTER_GRAD_MAPS = {
    ts.filter_grad: np.kron(MATRICES[m][1], MATRICES[m][1])
    for m, ts in TRANSFORMS.items()
}  # (K, 9): row (m + 2) i + j, column 3r + s


def _cpu_filter_grad(du: Array, dw: Array, taps: Array) -> None:
    """A `*_filter_grad` body on every filter as one product (O*C, K) @ (K, 9), rows split over the threads.

    The body's loop stores each filter's 9 taps apart and does not vectorize: at
    512x512 filters F(2x2)'s took 6.8 ms of one thread's CPU time against 3.3 ms for the product.
    """
    o_c = du.shape[1] * du.shape[2]
    split_matmul(
        du.reshape(du.shape[0], o_c).T,
        taps.astype(du.dtype),
        False,
        False,
        out=dw.reshape(o_c, 9),
    )


def _cpu_filters(
    body: Any, src: Array, dst: Array, flip: bool, rows: int, inner: int
) -> None:
    taps = _FILTER_GRAD_MAPS.get(body)
    if taps is not None:  # the same map as one product (see above)
        _cpu_filter_grad(src, dst, taps)
        return
    # Split over the threads too: at 512 channels one transform is 17 MiB of filters,
    # done while the products wait (the planes are split by blocks of images instead).
    loop = _CPU_LOOPS.get(body) or _CPU_LOOPS.setdefault(body, _cpu_loop(body, True))
    in_spans(loop, rows, max(1, 65536 // inner), src, dst, flip, inner)


def _cpu_pad(x: Array, top: int, left: int, rows: int, cols: int) -> Array:
    xp = np.zeros((x.shape[0], x.shape[1], rows, cols), x.dtype)
    xp[:, :, top : top + x.shape[2], left : left + x.shape[3]] = x
    return xp


TILE_PAD = 16
"""Elements between one transformed value's (channels, tiles) matrix and the next (CPU).

The output transform reads K matrices at once, one element each: with matrices
a power-of-two size apart (64 channels x 512 tiles x 4 bytes = 128 KiB) all K
reads fall in one cache set and evict each other (F(4x4)'s 36 streams ran 3.7
times slower, F(2x2)'s 16 2.7 times). One cache line more between matrices
spreads them over the sets."""


def _cpu_tiles_empty(shape: tuple[int, int, int], dtype: Any) -> Array:
    """An uninitialized (K, channels, tiles) array, each (channels, tiles) matrix C-contiguous, TILE_PAD elements apart."""
    k, rows, cols = shape
    step = rows * cols + TILE_PAD
    flat = np.empty(k * step, dtype)
    view: Array = np.lib.stride_tricks.as_strided(
        flat,
        shape,
        (step * flat.itemsize, cols * flat.itemsize, flat.itemsize),
        writeable=True,
    )
    return view


def _cpu_batch_matmul(a: Array, b: Array, ta: bool, tb: bool, as_tiles: bool) -> Array:
    # numpy's matmul directly: the tile arrays are strided (TILE_PAD), each matrix contiguous.
    a, b = a.swapaxes(1, 2) if ta else a, b.swapaxes(1, 2) if tb else b
    out = (
        _cpu_tiles_empty((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
        if as_tiles
        else None
    )
    result: Array = np.matmul(a, b, out=out)
    return result


def _nchw_host_array(name: str, a: Array, ndim: int) -> Array:
    check_float_array(name, a, ndim)
    return a


def _cpu_images(n: int, per_image_bytes: int, tiles_per_image: int) -> int:
    by_cache = TILE_BYTES // per_image_bytes
    return max(1, min(n, max(by_cache, -(-MIN_TILES // tiles_per_image))))


conv2d_winograd_forward, conv2d_winograd_backward = winograd_kernels(
    WinogradPrimitives(
        arg=functools.partial(_nchw_host_array, ndim=4),
        empty=np.empty,
        tiles_empty=_cpu_tiles_empty,
        pad=_cpu_pad,
        images=_cpu_images,
        planes=_cpu_planes,
        filters=_cpu_filters,
        batch_matmul=_cpu_batch_matmul,
        add=add_into,
        threads=lambda: thread_count(),  # looked up per call: tests replace it
        run=run_parts,
    )
)
