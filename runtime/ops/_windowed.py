"""Convolution and pooling as MindSpore's operator classes call them (`ops.Conv2D`, `ops.MaxPool`, `ops.AvgPool`).

The cells (`nn.Conv2d`, `nn.MaxPool2d`) and these classes share the kernels in
`_nn` and the 'same' padding rule here; the classes take MindSpore's primitive
arguments: sizes as an int, a pair or a 4-tuple `(1, 1, h, w)`, and `pad_mode`
in either case.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from . import _functional as f, _nn as n
from ._conv_variants import conv2d_grouped

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["avg_pool", "conv2d", "max_pool", "same_pads"]


def same_pads(
    size: int, kernel: int, stride: int, dilation: int = 1
) -> tuple[int, int]:
    """(before, after) padding that makes the output size ceil(size / stride), the extra on the after side."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def _hw(op: str, name: str, value: Any) -> tuple[int, int]:
    """An int, a pair or MindSpore's 4-tuple (1, 1, h, w) as a pair of positive ints."""
    items = (
        (value, value)
        if isinstance(value, int)
        else tuple(value)
        if isinstance(value, tuple | list)
        else ()
    )
    if len(items) == 4:
        items = items[2:]
    if len(items) != 2 or not all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in items
    ):
        raise ValueError(
            f"For '{op}', the argument '{name}' must be a positive int or a tuple of 2 or 4 positive ints, "
            f"but got {value!r}."
        )
    return items[0], items[1]


def _mode(op: str, pad_mode: Any, allowed: tuple[str, ...]) -> str:
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in allowed:
        raise ValueError(
            f"For '{op}', the argument 'pad_mode' must be one of {list(allowed)}, but got {pad_mode!r}."
        )
    return str(mode)


def _nchw(op: str, data_format: str, x: Any) -> Tensor:
    if data_format != "NCHW":
        raise ValueError(
            f"For '{op}', only data_format='NCHW' is supported, but got {data_format!r}."
        )
    t = f.as_tensor(x)
    if t.ndim != 4:
        raise ValueError(
            f"For '{op}', the input must be 4-D (N, C, H, W), but got shape {t.shape}."
        )
    return t


def conv2d(
    x: Any, weight: Any, *, out_channel: int, kernel_size: Any, mode: int, pad_mode: str,
    pad: Any, stride: Any, dilation: Any, group: int, data_format: str,
) -> Tensor:  # fmt: skip
    """2-D convolution of NCHW `x` with `weight` (out_channel, C, kh, kw), as `ops.Conv2D` computes it."""
    t, w = _nchw("Conv2D", data_format, x), f.as_tensor(weight)
    if (
        not isinstance(group, int)  # type: ignore[redundant-expr]
        or group < 1
        or t.shape[1] % group
        or out_channel % group
    ):
        raise ValueError(
            f"For 'Conv2D', the argument 'group' must be a positive int dividing the input channels "
            f"({t.shape[1]}) and 'out_channel' ({out_channel}), but got {group!r}."
        )
    if (
        w.ndim != 4
        or w.shape[0] != out_channel
        or w.shape[1] * group != t.shape[1]
        or w.shape[2:] != _hw("Conv2D", "kernel_size", kernel_size)
    ):
        raise ValueError(
            f"For 'Conv2D', 'weight' must have shape ({out_channel}, {t.shape[1] // group}, kh, kw) matching "
            f"'kernel_size' {kernel_size!r} and 'group' {group}, but got {w.shape}."
        )
    strides, dilations = (
        _hw("Conv2D", "stride", stride),
        _hw("Conv2D", "dilation", dilation),
    )
    how = _mode("Conv2D", pad_mode, ("valid", "same", "pad"))
    if how == "pad":
        pads = (pad,) * 4 if isinstance(pad, int) else tuple(pad)
    elif how == "same":
        pads = (
            *same_pads(t.shape[2], w.shape[2], strides[0], dilations[0]),
            *same_pads(t.shape[3], w.shape[3], strides[1], dilations[1]),
        )
    else:
        pads = (0, 0, 0, 0)
    return conv2d_grouped(
        t, w, strides, (pads[0], pads[1], pads[2], pads[3]), dilations, group
    )


def max_pool(
    x: Any, *, kernel_size: Any, strides: Any, pad_mode: str, data_format: str
) -> Tensor:
    """Max pooling of NCHW `x` ('valid' or 'same' padding), as `ops.MaxPool`."""
    t = _nchw("MaxPool", data_format, x)
    kernel, step = (
        _hw("MaxPool", "kernel_size", kernel_size),
        _hw("MaxPool", "strides", strides),
    )
    if _mode("MaxPool", pad_mode, ("valid", "same")) == "same":
        top, bottom = same_pads(t.shape[2], kernel[0], step[0])
        left, right = same_pads(t.shape[3], kernel[1], step[1])
        t = f.pad(t, ((0, 0), (0, 0), (top, bottom), (left, right)), value=-math.inf)
    return n.max_pool2d(t, kernel, step)


def avg_pool(
    x: Any, *, kernel_size: Any, strides: Any, pad_mode: str, data_format: str
) -> Tensor:
    """Average pooling of NCHW `x` ('valid' padding), as `ops.AvgPool`."""
    t = _nchw("AvgPool", data_format, x)
    _mode("AvgPool", pad_mode, ("valid",))
    return n.avg_pool2d(
        t,
        _hw("AvgPool", "kernel_size", kernel_size),
        _hw("AvgPool", "strides", strides),
    )
