"""Grouped, depthwise and transposed 2-D convolution (NCHW), differentiable, on the current target's kernels.

`nn.Conv2d`, `nn.Conv1d`, `nn.Conv2dTranspose` and `ops.Conv2D` call these;
`_nn.conv2d` stays the plain (group 1) convolution.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _functional as f, _nn as n
from ._functional import Array, GradFn, as_tensor, record
from ._slicing import split

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["conv2d_grouped", "conv2d_transpose", "transpose_output_size"]

# Above this many input channels per group, one im2col + GEMM per group beats the
# direct kernel (whose inner loop is one tap over one row): the direct kernel is for
# depthwise and narrow groups, where a GEMM's inner dimension would be 9 or 18.
_DIRECT_MAX_CHANNELS_PER_GROUP = 8


def conv2d_grouped(
    x: Any, weight: Tensor, stride: tuple[int, int], padding: tuple[int, int, int, int],
    dilation: tuple[int, int], group: int,
) -> Tensor:  # fmt: skip
    """Cross-correlation of NCHW `x` with `weight` (O, C / group, KH, KW) in `group` independent channel groups."""
    if group == 1:
        return n.conv2d(x, weight, stride, padding, dilation)
    tx = as_tensor(x)
    if weight.shape[1] > _DIRECT_MAX_CHANNELS_PER_GROUP:
        parts = zip(split(tx, 1, group), split(weight, 0, group), strict=True)
        return f.concat(
            [n.conv2d(xg, wg, stride, padding, dilation) for xg, wg in parts], 1
        )
    k = n._k()
    xd, w = n._float(tx), n._float(weight)
    y = k.grouped_conv2d_forward(xd, w, stride, padding, dilation, group)

    def grad_fn() -> GradFn:
        def backward(g: Array) -> tuple[Array | None, Array]:
            return k.grouped_conv2d_backward(  # type: ignore[no-any-return]
                n._contig(g), xd, w, stride, padding, dilation, group, tx._tracked
            )

        return backward

    return record(y, (tx, weight), grad_fn)


def transpose_output_size(
    size: int, kernel: int, stride: int, dilation: int, mode: str, pads: tuple[int, int]
) -> int:
    """The output length of a transposed convolution along one axis ('same', 'valid' or 'pad')."""
    if mode == "same":
        return size * stride
    span = (size - 1) * stride + dilation * (kernel - 1) + 1
    return span - (pads[0] + pads[1] if mode == "pad" else 0)


def conv2d_transpose(
    x: Any, weight: Tensor, out_hw: tuple[int, int], stride: tuple[int, int],
    padding: tuple[int, int, int, int], dilation: tuple[int, int], group: int = 1,
) -> Tensor:  # fmt: skip
    """The adjoint of `conv2d_grouped`: NCHW `x` (N, C_in, H, W), `weight` (C_in, C_out / group, KH, KW) -> (N, C_out, *out_hw).

    It is exactly the input gradient of the (grouped) convolution from an
    (N, C_out, *out_hw) image with the same weight, stride, padding, dilation
    and groups, so it runs on the convolution kernels: the forward is that
    input gradient, the backward is the convolution itself (for x) and its
    weight gradient (for the weight, with the roles of image and output
    gradient swapped). Wide groups go group by group through the plain
    kernels, as `conv2d_grouped` does.
    """
    tx = as_tensor(x)
    if group > 1 and weight.shape[1] > _DIRECT_MAX_CHANNELS_PER_GROUP:
        parts = zip(split(tx, 1, group), split(weight, 0, group), strict=True)
        return f.concat(
            [
                conv2d_transpose(xg, wg, out_hw, stride, padding, dilation)
                for xg, wg in parts
            ],
            1,
        )
    k = n._k()
    xd, w = n._float(tx), n._float(weight)
    # The grouped kernels take the group count after the geometry; group 1 runs the plain ones.
    geometry = (stride, padding, dilation, *((group,) if group > 1 else ()))
    forward = k.grouped_conv2d_forward if group > 1 else k.conv2d_forward
    backward = k.grouped_conv2d_backward if group > 1 else k.conv2d_backward
    image_shape = (xd.shape[0], w.shape[1] * group, *out_hw)
    y = _convolution_input_grad(k, xd, w, image_shape, geometry, group)

    def grad_fn() -> GradFn:
        # Only the gradients the tape asks for: a frozen weight or a constant input costs nothing.
        def backward_fn(g: Array) -> tuple[Array | None, Array | None]:
            gc = n._contig(g)
            dx = forward(gc, w, *geometry) if tx._tracked else None
            dw = backward(xd, gc, w, *geometry, False)[1] if weight._tracked else None
            return dx, dw

        return backward_fn

    return record(y, (tx, weight), grad_fn)


def _convolution_input_grad(
    k: Any, dy: Array, w: Array, image_shape: tuple[int, ...], geometry: tuple[Any, ...],
    group: int,
) -> Array:  # fmt: skip
    """The input gradient of the convolution producing `dy` from an image of `image_shape`."""
    name = "grouped_conv2d_backward_input" if group > 1 else "conv2d_backward_input"
    dx: Array = getattr(k, name)(dy, w, image_shape, *geometry)
    return dx
