"""`Conv1d` and `Conv2dTranspose`: the other convolution cells, on the 2-D convolution kernels."""

from __future__ import annotations

from typing import Any

from .. import ops
from ..compute._tensor import Tensor
from ..ops import _functional as ops_f
from ..ops._conv_variants import conv2d_grouped, conv2d_transpose, transpose_output_size
from ._checks import check_positive_int, pair
from ._conv import _Conv, four_pads

__all__ = ["Conv1d", "Conv2dTranspose"]


class Conv1d(_Conv):
    """1-D convolution over (N, C, L) input: a 2-D convolution of height 1 (MindSpore's 4-D weight).

    Args:
        in_channels: Input channels.
        out_channels: Output channels.
        kernel_size: Width of the kernel (int).
        stride: int.
        pad_mode: 'same', 'valid' or 'pad' (use `padding`).
        padding: With pad_mode 'pad': an int, added on both sides.
        dilation: int.
        group: Channel groups (in_channels and out_channels multiples of it).
        has_bias: Whether to add a per-channel `bias`.
        weight_init: Initializer of `weight` (out, in / group, 1, kernel_size), or a 3-D tensor without the 1;
            default HeUniform(sqrt(5)).
        bias_init: Initializer of `bias`.
        dtype: Parameter dtype.
    """

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
        pad_mode: str = "same", padding: Any = 0, dilation: int = 1, group: int = 1,
        has_bias: bool = False, weight_init: Any = None, bias_init: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        if not isinstance(padding, int) or isinstance(padding, bool) or padding < 0:
            raise TypeError(
                f"For 'Conv1d', the argument 'padding' must be an int >= 0, but got {padding!r}."
            )
        if isinstance(weight_init, Tensor):
            # MindSpore takes a 3-D (out, in / group, kernel_size) tensor and adds the height axis itself.
            if weight_init.ndim != 3:
                raise ValueError(
                    f"For 'Conv1d', a Tensor 'weight_init' must be 3-D (out, in / group, kernel_size), "
                    f"but got shape {weight_init.shape}."
                )
            weight_init = ops.expand_dims(weight_init, 2)
        width = (1, check_positive_int("Conv1d", "kernel_size", kernel_size))
        step = (1, check_positive_int("Conv1d", "stride", stride))
        spread = (1, check_positive_int("Conv1d", "dilation", dilation))
        super().__init__(in_channels, out_channels, width, step, pad_mode, (0, 0, padding, padding), spread,
                         group, has_bias, weight_init, bias_init, dtype)  # fmt: skip

    def construct(self, x: Any) -> Tensor:
        """Convolve along the last axis."""
        t = ops.expand_dims(self._input(x, 3), 2)
        y = conv2d_grouped(
            t,
            self.weight,
            self.stride,
            self._pads(1, t.shape[3]),
            self.dilation,
            self.group,
        )
        return self._add_bias(ops.squeeze(y, 2))


class Conv2dTranspose(_Conv):
    """Transposed 2-D convolution over NCHW input (the adjoint of `Conv2d` with the same geometry).

    Args:
        in_channels, out_channels: Input and output channels.
        kernel_size, stride: An int or (height, width) each.
        pad_mode: 'same' (output size input * stride), 'valid' (the full adjoint, (input - 1) * stride +
            dilation * (kernel - 1) + 1) or 'pad' (that size minus `padding`).
        padding: With pad_mode 'pad': an int or (top, bottom, left, right).
        output_padding: With pad_mode 'pad': rows and columns of zeros appended at the bottom and right
            (after the bias), an int or (height, width) below max(stride, dilation).
        dilation: int or (height, width).
        group: Channel groups; in_channels and out_channels must be multiples (group == in_channels
            is depthwise).
        has_bias: Whether to add a per-channel `bias`.
        weight_init: Initializer of `weight` (in, out / group, kh, kw); default HeUniform(sqrt(5)).
        bias_init: Initializer of `bias`.
        dtype: Parameter dtype.
    """

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
        pad_mode: str = "same", padding: Any = 0, output_padding: Any = 0, dilation: Any = 1,
        group: int = 1, has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
        dtype: Any = None,
    ) -> None:  # fmt: skip
        steps = pair("Conv2dTranspose", "stride", stride)
        spread = pair("Conv2dTranspose", "dilation", dilation)
        extra = (
            (output_padding,) * 2
            if isinstance(output_padding, int)
            else tuple(output_padding)
        )
        if len(extra) != 2 or any(
            not isinstance(e, int) or not 0 <= e < max(s, d)
            for e, s, d in zip(extra, steps, spread, strict=False)
        ):
            raise ValueError(
                f"For 'Conv2dTranspose', the argument 'output_padding' must be an int or 2 ints in "
                f"[0, max(stride, dilation)), but got {output_padding!r}."
            )
        if any(extra) and pad_mode != "pad":
            raise ValueError(
                f"For 'Conv2dTranspose', a nonzero 'output_padding' needs pad_mode 'pad', but got {pad_mode!r}."
            )
        self.output_padding = (int(extra[0]), int(extra[1]))
        kernel = pair("Conv2dTranspose", "kernel_size", kernel_size)
        pads = four_pads("Conv2dTranspose", padding)
        super().__init__(in_channels, out_channels, kernel, steps, pad_mode, pads, spread,
                         group, has_bias, weight_init, bias_init, dtype)  # fmt: skip

    def _weight_shape(self) -> tuple[int, ...]:
        kh, kw = self.kernel_size
        return (self.in_channels, self.out_channels // self.group, kh, kw)

    def geometry(
        self, h: int, w: int
    ) -> tuple[tuple[int, int], tuple[int, int, int, int]]:
        """The output (height, width) for an h x w input, and the padding of the convolution it is the adjoint of."""
        pads = self.padding
        out_h, out_w = (
            transpose_output_size(
                size, self.kernel_size[a], self.stride[a], self.dilation[a], self.pad_mode,
                (pads[2 * a], pads[2 * a + 1]),
            )
            for a, size in ((0, h), (1, w))
        )  # fmt: skip
        if min(out_h, out_w) < 1:
            raise ValueError(
                f"For 'Conv2dTranspose', an input of {h}x{w} gives an empty output {(out_h, out_w)}."
            )
        return (out_h, out_w), self._pads(out_h, out_w)

    def construct(self, x: Any) -> Tensor:
        """Apply the transposed convolution."""
        t = self._input(x, 4)
        out_hw, conv_pads = self.geometry(t.shape[2], t.shape[3])
        y = self._add_bias(
            conv2d_transpose(
                t,
                self.weight,
                out_hw,
                self.stride,
                conv_pads,
                self.dilation,
                self.group,
            )
        )
        if any(self.output_padding):
            y = ops_f.pad(
                y,
                (
                    (0, 0),
                    (0, 0),
                    (0, self.output_padding[0]),
                    (0, self.output_padding[1]),
                ),
            )
        return y
