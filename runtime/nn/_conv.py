"""Convolution and pooling cells (NCHW): `Conv2d`, `MaxPool2d`, `AvgPool2d`, and the base of every convolution cell."""

from __future__ import annotations

import math
from typing import Any

from .. import ops
from ..common.initializer import HeUniform, Uniform, initializer
from ..compute._tensor import Parameter, Tensor
from ..ops import _functional as ops_f, _nn as nn_ops
from ..ops._conv_variants import conv2d_grouped
from ..ops._windowed import same_pads as _same_pads
from ..validation import check_choice
from ._cell import Cell
from ._checks import check_bool, check_positive_int, pair

__all__ = ["AvgPool2d", "Conv2d", "MaxPool2d", "four_pads"]


def _check_padding(owner: str, pad_mode: Any, padding: tuple[int, ...]) -> None:
    """`pad_mode` is MindSpore's 'same', 'valid' or 'pad', and only 'pad' takes explicit `padding`."""
    check_choice(pad_mode, "pad_mode", ("same", "valid", "pad"), owner)
    if pad_mode != "pad" and any(padding):
        raise ValueError(
            f"For '{owner}', 'padding' must be 0 when pad_mode is {pad_mode!r}, but got {padding!r}."
        )


class _Conv(Cell):
    """What every convolution cell shares: argument checks, the 'same'/'valid'/'pad' geometry, the parameters.

    Subclasses give the weight's shape through `_weight_shape` (its dimension 1
    times the kernel area is the fan-in of the default bias range, as in MindSpore).
    """

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: tuple[int, int],
        stride: tuple[int, int], pad_mode: str, padding: tuple[int, int, int, int],
        dilation: tuple[int, int], group: int, has_bias: bool, weight_init: Any, bias_init: Any,
        dtype: Any,
    ) -> None:  # fmt: skip
        super().__init__()
        from ..compute import _dtype

        owner = type(self).__name__
        self.in_channels = check_positive_int(owner, "in_channels", in_channels)
        self.out_channels = check_positive_int(owner, "out_channels", out_channels)
        self.group = check_positive_int(owner, "group", group)
        self.has_bias = check_bool(owner, "has_bias", has_bias)
        if in_channels % group or out_channels % group:
            raise ValueError(
                f"For '{owner}', 'in_channels' ({in_channels}) and 'out_channels' ({out_channels}) must both "
                f"be divisible by 'group', but got group={group!r}."
            )
        _check_padding(owner, pad_mode, padding)
        self.kernel_size = kernel_size
        self.stride = stride
        self.dilation = dilation
        self.pad_mode = pad_mode
        self.padding: tuple[int, int, int, int] = padding
        dt = dtype or _dtype.float32
        shape = self._weight_shape()
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dt), name="weight")
        self.bias: Parameter | None = None
        if has_bias:
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(math.prod(shape[1:])))
            self.bias = Parameter(
                initializer(bias_init, (out_channels,), dt), name="bias"
            )

    def _weight_shape(self) -> tuple[int, ...]:
        kh, kw = self.kernel_size
        return (self.out_channels, self.in_channels // self.group, kh, kw)

    def _pads(self, h: int, w: int) -> tuple[int, int, int, int]:
        if self.pad_mode == "valid":
            return (0, 0, 0, 0)
        if self.pad_mode == "pad":
            return self.padding
        top, bottom = _same_pads(
            h, self.kernel_size[0], self.stride[0], self.dilation[0]
        )
        left, right = _same_pads(
            w, self.kernel_size[1], self.stride[1], self.dilation[1]
        )
        return (top, bottom, left, right)

    def _input(self, x: Any, ndim: int) -> Tensor:
        t = x if isinstance(x, Tensor) else Tensor(x)
        if t.ndim != ndim or t.shape[1] != self.in_channels:
            layout = "NCHW" if ndim == 4 else "NCW"
            raise ValueError(
                f"For '{type(self).__name__}', the input must be {layout} with {self.in_channels} channels, "
                f"but got shape {t.shape}."
            )
        return t

    def _add_bias(self, y: Tensor) -> Tensor:
        if self.bias is None:
            return y
        return y + ops.reshape(self.bias, (1, -1) + (1,) * (y.ndim - 2))

    def extend_repr(self) -> str:
        """Show the layer's geometry."""
        return (
            f"input_channels={self.in_channels}, output_channels={self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
            f"group={self.group}, has_bias={self.has_bias}"
        )


def four_pads(owner: str, padding: Any) -> tuple[int, int, int, int]:
    """An int or (top, bottom, left, right) of ints >= 0."""
    pads = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
    if len(pads) != 4 or any(not isinstance(p, int) or p < 0 for p in pads):
        raise ValueError(
            f"For '{owner}', the argument 'padding' must be an int or 4 ints >= 0, but got {padding!r}."
        )
    return (pads[0], pads[1], pads[2], pads[3])


class Conv2d(_Conv):
    """2-D convolution over NCHW input (im2col + BLAS; grouped and depthwise by a direct kernel).

    Args:
        in_channels: Input channels.
        out_channels: Output channels.
        kernel_size: int or (height, width).
        stride: int or (height, width).
        pad_mode: 'same' (output size ceil(input / stride)), 'valid' (no padding) or 'pad' (use `padding`).
        padding: With pad_mode 'pad': an int or (top, bottom, left, right).
        dilation: int or (height, width).
        group: Channel groups; in_channels and out_channels must be multiples (group == in_channels
            is depthwise).
        has_bias: Whether to add a per-channel `bias`.
        weight_init: Initializer of `weight` (out, in / group, kh, kw); default HeUniform(sqrt(5)).
        bias_init: Initializer of `bias`; default U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
        data_format: Only 'NCHW'.
        dtype: Parameter dtype.
    """

    def __init__(
        self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
        pad_mode: str = "same", padding: Any = 0, dilation: Any = 1, group: int = 1,
        has_bias: bool = False, weight_init: Any = None, bias_init: Any = None,
        data_format: str = "NCHW", dtype: Any = None,
    ) -> None:  # fmt: skip
        if data_format != "NCHW":
            raise ValueError(
                f"For 'Conv2d', only data_format='NCHW' is supported, but got {data_format!r}."
            )
        self.data_format = data_format
        kernel, step = (
            pair("Conv2d", "kernel_size", kernel_size),
            pair("Conv2d", "stride", stride),
        )
        pads, spread = (
            four_pads("Conv2d", padding),
            pair("Conv2d", "dilation", dilation),
        )
        super().__init__(in_channels, out_channels, kernel, step, pad_mode, pads, spread,
                         group, has_bias, weight_init, bias_init, dtype)  # fmt: skip

    def construct(self, x: Any) -> Tensor:
        """Convolve."""
        t = self._input(x, 4)
        y = conv2d_grouped(
            t,
            self.weight,
            self.stride,
            self._pads(t.shape[2], t.shape[3]),
            self.dilation,
            self.group,
        )
        return self._add_bias(y)


# The MindSpore pooling options cadence supports only at their default values.
_POOL_DEFAULTS: dict[str, Any] = {
    "padding": 0,
    "dilation": 1,
    "return_indices": False,
    "ceil_mode": False,
    "count_include_pad": True,
    "divisor_override": None,
}


def _pool_padding(
    owner: str, padding: Any, kernel_size: tuple[int, int]
) -> tuple[int, int]:
    """pad_mode='pad''s (height, width) padding: an int or one or two ints, each 0..kernel // 2."""
    values = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,)
    if len(values) == 1:
        values *= 2
    if len(values) != 2 or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= k // 2
        for v, k in zip(values, kernel_size, strict=True)
    ):
        raise ValueError(
            f"For '{owner}', the argument 'padding' must be an int or one or two ints, each from 0 "
            f"to half the kernel size {kernel_size}, but got {padding!r}."
        )
    return values[0], values[1]


class _Pool2d(Cell):
    _name = ""

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        data_format: str = "NCHW",
        **kwargs: Any,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        self.kernel_size = pair(owner, "kernel_size", kernel_size)
        self.stride = pair(owner, "stride", stride)
        mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode  # type: ignore[redundant-expr]
        if mode not in self._modes:
            raise ValueError(
                f"For '{owner}', the argument 'pad_mode' must be one of {list(self._modes)}, but got {pad_mode!r}."
            )
        if data_format != "NCHW":
            raise ValueError(
                f"For '{owner}', only data_format='NCHW' is supported, but got {data_format!r}."
            )
        for key, value in kwargs.items():
            default = _POOL_DEFAULTS[key]
            if value is not default and (isinstance(value, bool) or value != default):
                raise ValueError(
                    f"For '{owner}', the argument {key!r} must be {default!r} "
                    f"(other values are not supported), but got {value!r}."
                )
        self.pad_mode = mode

    _modes: tuple[str, ...] = ("valid",)

    def extend_repr(self) -> str:
        """Show the window."""
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode.upper()}"


class MaxPool2d(_Pool2d):
    """Max pooling over NCHW input.

    Args:
        kernel_size: int or (height, width).
        stride: int or (height, width).
        pad_mode: 'valid' (no padding), 'same' (output size ceil(input / stride)) or 'pad'.
        padding: With pad_mode='pad', an int or (height, width), each at most half the kernel.
        dilation, return_indices, ceil_mode: MindSpore options; only their defaults are supported.
        data_format: Only 'NCHW'.
    """

    _modes = ("valid", "same", "pad")

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: Any = 0,
        dilation: int = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
        data_format: str = "NCHW",
    ) -> None:
        padded = str(pad_mode).lower() == "pad"
        super().__init__(
            kernel_size,
            stride,
            pad_mode,
            data_format,
            padding=0 if padded else padding,
            dilation=dilation,
            return_indices=return_indices,
            ceil_mode=ceil_mode,
        )
        self.padding = (
            _pool_padding(type(self).__name__, padding, self.kernel_size)
            if padded
            else (0, 0)
        )

    def construct(self, x: Any) -> Tensor:
        """Pool; padded positions never win the maximum."""
        t = x if isinstance(x, Tensor) else Tensor(x)
        (kh, kw), (sh, sw) = self.kernel_size, self.stride
        if self.pad_mode == "same":
            (top, bottom), (left, right) = (
                _same_pads(t.shape[2], kh, sh, 1),
                _same_pads(t.shape[3], kw, sw, 1),
            )
        else:
            (top, left), (bottom, right) = self.padding, self.padding
        if top or bottom or left or right:
            t = ops_f.pad(
                t, ((0, 0), (0, 0), (top, bottom), (left, right)), value=-math.inf
            )
        return nn_ops.max_pool2d(t, self.kernel_size, self.stride)


class AvgPool2d(_Pool2d):
    """Average pooling over NCHW input (pad_mode 'valid').

    Args:
        kernel_size: int or (height, width).
        stride: int or (height, width).
        pad_mode: Only 'valid'.
        padding, ceil_mode, count_include_pad, divisor_override: MindSpore options; only their defaults are supported.
        data_format: Only 'NCHW'.
    """

    def __init__(
        self,
        kernel_size: Any = 1,
        stride: Any = 1,
        pad_mode: str = "valid",
        padding: int = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Any = None,
        data_format: str = "NCHW",
    ) -> None:
        super().__init__(
            kernel_size,
            stride,
            pad_mode,
            data_format,
            padding=padding,
            ceil_mode=ceil_mode,
            divisor_override=divisor_override,
        )

    def construct(self, x: Any) -> Tensor:
        """Pool."""
        return nn_ops.avg_pool2d(x, self.kernel_size, self.stride)
