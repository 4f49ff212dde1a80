"""Convolution, pooling and batch normalization, written once for every target from its primitives.

Like `_wrappers`, this holds what the CPU and CUDA tables share: the public
name and signature, the output geometry, the allocation of results and the
order of arguments to the compiled loops. A target supplies the loops
(built from `_rowwise`'s bodies) and how it checks, allocates, launches and
multiplies (`SpatialPrimitives`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "ConvGeometry",
    "SpatialKernels",
    "SpatialPrimitives",
    "conv_geometry",
    "spatial_kernels",
]

Array = Any


class ConvGeometry(NamedTuple):
    """Kernel size, stride, padding (top, bottom, left, right), dilation and output size of a convolution.

    The compiled loops take it as a plain tuple in this order (see `_rowwise.conv_source`).
    """

    kh: int
    kw: int
    sh: int
    sw: int
    pt: int
    pb: int
    pl: int
    pr: int
    dh: int
    dw: int
    oh: int
    ow: int


def conv_geometry(
    x_shape: tuple[int, ...],
    w_shape: tuple[int, ...],
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
) -> ConvGeometry:
    """The geometry of convolving x (N, C, H, W) with w (O, C, KH, KW); padding is (top, bottom, left, right)."""
    kh, kw = w_shape[2], w_shape[3]
    oh, ow = (
        (size + before + after - d * (k - 1) - 1) // s + 1
        for size, before, after, d, k, s in (
            (x_shape[2], padding[0], padding[1], dilation[0], kh, stride[0]),
            (x_shape[3], padding[2], padding[3], dilation[1], kw, stride[1]),
        )
    )
    return ConvGeometry(kh, kw, *stride, *padding, *dilation, oh, ow)


class SpatialPrimitives(NamedTuple):
    """What a target supplies for convolution, pooling and batch normalization.

    `arg(name, a, ndim)` checks a float array argument and returns it in the
    target's array type; `indices(a)` does so for max pooling's index array;
    `empty` and `zeros` allocate; `launch(loop, n, *args)` runs a compiled loop
    over `n` items (arrays among `args` in the target's array type);
    `matmul(a, b, ta, tb)` multiplies, transposing either side;
    `contiguous(a)` returns a C-contiguous copy unless `a` already is one;
    `columns(x, w, geometry, reuse)` returns x's im2col matrix (`reuse`: the
    backward pass may return the forward's matrix of the same live array);
    `col2im(dcols, geometry, dx)` adds the columns' gradient into dx;
    `max_pool`, `avg_pool` and `batch_norm` are each operation's compiled
    (forward, backward) loops, taking the arguments `spatial_kernels` passes them.
    """

    arg: Callable[[str, Array, int], Array]
    indices: Callable[[Array], Array]
    empty: Callable[[tuple[int, ...], Any], Array]
    zeros: Callable[[tuple[int, ...], Any], Array]
    launch: Callable[..., None]
    matmul: Callable[[Array, Array, bool, bool], Array]
    contiguous: Callable[[Array], Array]
    columns: Callable[[Array, Array, ConvGeometry, bool], Array]
    col2im: Callable[[Array, ConvGeometry, Array], None]
    max_pool: tuple[Any, Any]
    avg_pool: tuple[Any, Any]
    batch_norm: tuple[Any, Any]


class SpatialKernels(NamedTuple):
    """The public convolution, pooling and batch-normalization kernels, as (forward, backward) pairs.

    A target binds each pair to its `<operation>_forward` and `<operation>_backward` names,
    and `conv2d_backward_input` (dx of conv2d alone, from x's shape: a transposed
    convolution's forward) and `batch_norm_residual_backward` (the batch norm's
    backward with a residual added before its clip) to their own names.
    """

    conv2d: tuple[Callable[..., Array], Callable[..., tuple[Array | None, Array]]]
    max_pool2d: tuple[Callable[..., tuple[Array, Array]], Callable[..., Array]]
    avg_pool2d: tuple[Callable[..., Array], Callable[..., Array]]
    batch_norm: tuple[
        Callable[..., tuple[Array, Array, Array]],
        Callable[..., tuple[Array, Array, Array]],
    ]
    conv2d_backward_input: Callable[..., Array]
    batch_norm_residual_backward: Callable[..., tuple[Array, Array, Array, Array]]


def _pool_shape(
    x_shape: tuple[int, ...], kh: int, kw: int, sh: int, sw: int
) -> tuple[int, int, int, int]:
    n, c, h, w = x_shape
    return n, c, (h - kh) // sh + 1, (w - kw) // sw + 1


def spatial_kernels(p: SpatialPrimitives) -> SpatialKernels:
    """Build the kernels from a target's primitives."""

    def conv2d_forward(
        x: Array,
        w: Array,
        stride: tuple[int, int],
        padding: tuple[int, int, int, int],
        dilation: tuple[int, int],
    ) -> Array:
        """im2col, one matmul with the flattened filters, then NHWC -> NCHW."""
        x, w = p.arg("x", x, 4), p.arg("w", w, 4)
        g = conv_geometry(x.shape, w.shape, stride, padding, dilation)
        o = w.shape[0]
        y = p.matmul(p.columns(x, w, g, False), w.reshape(o, -1), False, True)
        return p.contiguous(y.reshape(x.shape[0], g.oh, g.ow, o).transpose(0, 3, 1, 2))

    def conv2d_backward(
        dy: Array,
        x: Array,
        w: Array,
        stride: tuple[int, int],
        padding: tuple[int, int, int, int],
        dilation: tuple[int, int],
        need_dx: bool,
    ) -> tuple[Array | None, Array]:
        """Return (dx or None, dw): products over the im2col columns, col2im for dx.

        A target that reuses the forward's columns needs `x` unmodified in place
        between the forward and the backward call.
        """
        dy, x, w = p.arg("dy", dy, 4), p.arg("x", x, 4), p.arg("w", w, 4)
        g = conv_geometry(x.shape, w.shape, stride, padding, dilation)
        o = w.shape[0]
        dyr = p.contiguous(dy.transpose(0, 2, 3, 1)).reshape(-1, o)
        dw = p.matmul(dyr, p.columns(x, w, g, True), True, False).reshape(w.shape)
        return (_input_grad(dyr, w, x.shape, g) if need_dx else None), dw

    def _input_grad(
        dyr: Array, w: Array, x_shape: tuple[int, ...], g: ConvGeometry
    ) -> Array:
        dcols = p.matmul(dyr, w.reshape(w.shape[0], -1), False, False)
        dx = p.zeros(tuple(x_shape), dyr.dtype)
        p.col2im(dcols, g, dx)
        return dx

    def conv2d_backward_input(
        dy: Array, w: Array, x_shape: tuple[int, int, int, int],
        stride: tuple[int, int], padding: tuple[int, int, int, int], dilation: tuple[int, int],
    ) -> Array:  # fmt: skip
        """Return dx of `conv2d_forward` alone: no columns of x, no dw."""
        dy, w = p.arg("dy", dy, 4), p.arg("w", w, 4)
        g = conv_geometry(tuple(x_shape), w.shape, stride, padding, dilation)
        dyr = p.contiguous(dy.transpose(0, 2, 3, 1)).reshape(-1, w.shape[0])
        return _input_grad(dyr, w, x_shape, g)

    def max_pool2d_forward(
        x: Array, kh: int, kw: int, sh: int, sw: int
    ) -> tuple[Array, Array]:
        """Max over windows (no padding), and the flat (H*W) index of each maximum."""
        x = p.arg("x", x, 4)
        shape = _pool_shape(x.shape, kh, kw, sh, sw)
        y, idx = p.empty(shape, x.dtype), p.empty(shape, "int64")
        p.launch(p.max_pool[0], y.size, x, (kh, kw, sh, sw), y, idx)
        return y, idx

    def max_pool2d_backward(
        dy: Array, idx: Array, x_shape: tuple[int, int, int, int]
    ) -> Array:
        """Route each output gradient to the input element that was the maximum."""
        dy, idx = p.arg("dy", dy, 4), p.indices(idx)
        n, c, h, w = x_shape
        dx = p.zeros((n, c, h * w), dy.dtype)
        p.launch(p.max_pool[1], dy.size, dy, idx, dx)
        return dx.reshape(tuple(x_shape))

    def avg_pool2d_forward(x: Array, kh: int, kw: int, sh: int, sw: int) -> Array:
        """Mean over windows (no padding)."""
        x = p.arg("x", x, 4)
        y = p.empty(_pool_shape(x.shape, kh, kw, sh, sw), x.dtype)
        p.launch(p.avg_pool[0], y.size, x, (kh, kw, sh, sw), y)
        return y

    def avg_pool2d_backward(
        dy: Array,
        x_shape: tuple[int, int, int, int],
        kh: int,
        kw: int,
        sh: int,
        sw: int,
    ) -> Array:
        """Spread each output gradient evenly over its window."""
        dy = p.arg("dy", dy, 4)
        dx = p.zeros(tuple(x_shape), dy.dtype)
        p.launch(p.avg_pool[1], dy.size, dy, (kh, kw, sh, sw), dx)
        return dx

    def batch_norm_forward(
        x: Array, gamma: Array, beta: Array, eps: float, low: float = -math.inf,
        high: float = math.inf, residual: Array | None = None,
    ) -> tuple[Array, Array, Array]:  # fmt: skip
        """Normalize x (N, C, M) per channel with batch statistics, add `residual`, clip to [low, high]; return (y, mean, biased var).

        The clip fuses a following ReLU (low 0) or ReLU6 (low 0, high 6); `residual`
        (x's shape) a residual block's shortcut, added before the clip.
        """
        x = p.arg("x", x, 3)
        gamma, beta = p.arg("gamma", gamma, 1), p.arg("beta", beta, 1)
        # Without a residual the body never reads it: x stands in for it.
        res = x if residual is None else _same_shape("residual", residual, x)
        c = x.shape[1]
        y, mean, var = (p.empty(s, x.dtype) for s in (x.shape, (c,), (c,)))
        p.launch(p.batch_norm[0], c, x, res, residual is not None, gamma, beta,
                 float(eps), float(low), float(high), y, mean, var)  # fmt: skip
        return y, mean, var

    def _same_shape(name: str, a: Array, like: Array) -> Array:
        a = p.arg(name, a, 3)
        if tuple(a.shape) != tuple(like.shape):
            raise ValueError(
                f"Kernel argument `{name}` must have shape {tuple(like.shape)}, but got {tuple(a.shape)}."
            )
        return a

    def _bn_backward(
        dy: Array, x: Array, y: Array | None, gamma: Array, mean: Array, var: Array,
        eps: float, beta: Array | None, low: float, high: float,
    ) -> tuple[Array, Array, Array, Array]:  # fmt: skip
        dy, x = p.arg("dy", dy, 3), p.arg("x", x, 3)
        gamma, mean, var = (
            p.arg(name, a, 1)
            for name, a in (("gamma", gamma), ("mean", mean), ("var", var))
        )
        # Without a clip, or with the mask read from y, the body never reads beta: gamma stands in.
        shift = gamma if beta is None else p.arg("beta", beta, 1)
        c = x.shape[1]
        dx, dgamma, dbeta = (p.empty(s, x.dtype) for s in (x.shape, (c,), (c,)))
        # Without y the body neither reads y nor writes dres: x and dx stand in for them.
        out, dres = (
            (x, dx)
            if y is None
            else (_same_shape("y", y, x), p.empty(x.shape, x.dtype))
        )
        p.launch(p.batch_norm[1], c, dy, x, out, y is not None, gamma, shift, mean, var,
                 float(eps), float(low), float(high), dx, dres, dgamma, dbeta)  # fmt: skip
        return dx, dres, dgamma, dbeta

    def batch_norm_backward(
        dy: Array, x: Array, gamma: Array, mean: Array, var: Array, eps: float,
        beta: Array | None = None, low: float = -math.inf, high: float = math.inf,
    ) -> tuple[Array, Array, Array]:  # fmt: skip
        """Return (dx, dgamma, dbeta) of `batch_norm_forward` without a residual; a clip needs the forward's `beta`."""
        if beta is None and (low > -math.inf or high < math.inf):
            raise ValueError(
                f"Kernel argument `beta` is needed with a clip to [{low}, {high}], but got None."
            )
        dx, _, dgamma, dbeta = _bn_backward(
            dy, x, None, gamma, mean, var, eps, beta, low, high
        )
        return dx, dgamma, dbeta

    def batch_norm_residual_backward(
        dy: Array, x: Array, y: Array, gamma: Array, mean: Array, var: Array, eps: float,
        low: float = -math.inf, high: float = math.inf,
    ) -> tuple[Array, Array, Array, Array]:  # fmt: skip
        """Return (dx, dresidual, dgamma, dbeta) of `batch_norm_forward` with a residual, from its output y.

        One pass over the data: the clip's mask is read from y, and the gradient it
        passes is both the residual's and the one the normalization's backward takes.
        """
        return _bn_backward(dy, x, y, gamma, mean, var, eps, None, low, high)

    return SpatialKernels(
        (conv2d_forward, conv2d_backward),
        (max_pool2d_forward, max_pool2d_backward),
        (avg_pool2d_forward, avg_pool2d_backward),
        (batch_norm_forward, batch_norm_backward),
        conv2d_backward_input,
        batch_norm_residual_backward,
    )
