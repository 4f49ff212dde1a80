"""1-D pooling over (N, C, L) or (C, L): `ops.avg_pool1d` and the computation of `nn.AvgPool1d` / `nn.MaxPool1d`.

Composed (no new loop): the input is padded once, each output's window is gathered
as one advanced index of shape (L_out, kernel), and the windows are averaged or
their maximum taken with `ops.max` (so the gradient goes to the first maximum, as
MindSpore's, and the index comes for free). Windows are short, so the gathered
copy is kernel times the output: small next to the convolutions around it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_bool, check_choice, check_int, check_type
from . import _functional as f
from ._gather_elements import max as max_with_index

__all__ = ["Window1d", "avg_pool1d", "pool1d", "window1d"]


class Window1d:
    """A checked 1-D pooling window: size, stride, dilation, padding mode and padding."""

    __slots__ = ("ceil_mode", "dilation", "kernel", "pad_mode", "padding", "stride")

    def __init__(
        self,
        kernel: int,
        stride: int,
        dilation: int,
        pad_mode: str,
        padding: int,
        ceil_mode: bool,
    ) -> None:
        self.kernel, self.stride, self.dilation = kernel, stride, dilation
        self.pad_mode, self.padding, self.ceil_mode = pad_mode, padding, ceil_mode

    def plan(self, length: int) -> tuple[int, int, int]:
        """(left pad, right pad, output length) for an input of `length`."""
        span = self.dilation * (self.kernel - 1) + 1
        if self.pad_mode == "same":
            out = -(-length // self.stride)
            total = max((out - 1) * self.stride + span - length, 0)
            return total // 2, total - total // 2, out
        pad = self.padding if self.pad_mode == "pad" else 0
        room = length + 2 * pad - span
        if room < 0:
            return pad, pad, 0
        out = (-(-room // self.stride) if self.ceil_mode else room // self.stride) + 1
        if self.ceil_mode and (out - 1) * self.stride >= length + pad:
            out -= 1  # a last window starting in the right padding is dropped
        return pad, max((out - 1) * self.stride + span - length - pad, pad), out


def _size(owner: str, name: str, value: Any, minimum: int) -> int:
    """An int, or a tuple of one int (MindSpore takes both for the 1-D cells)."""
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    return check_int(value, name, owner, minimum=minimum)


def window1d(
    owner: str,
    kernel_size: Any,
    stride: Any,
    pad_mode: Any = "valid",
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: Any = False,
) -> Window1d:
    """Check a 1-D pooling cell's arguments; padding applies in 'pad' mode only."""
    mode = check_choice(
        pad_mode.lower() if isinstance(pad_mode, str) else pad_mode,
        "pad_mode",
        ("valid", "same", "pad"),
        owner,
    )
    kernel = _size(owner, "kernel_size", kernel_size, 1)
    pad = _size(owner, "padding", padding, 0)
    if mode != "pad" and pad:
        raise ValueError(
            f"For '{owner}', the argument 'padding' must be 0 unless pad_mode is 'pad', but got {pad}."
        )
    if pad > kernel // 2:
        raise ValueError(
            f"For '{owner}', the argument 'padding' must be at most half the kernel ({kernel // 2}), "
            f"but got {pad}."
        )
    return Window1d(
        kernel,
        _size(owner, "stride", stride, 1),
        _size(owner, "dilation", dilation, 1),
        mode,
        pad,
        check_bool(ceil_mode, "ceil_mode", owner),
    )


def pool1d(
    owner: str,
    x: Any,
    window: Window1d,
    *,
    average: bool,
    count_include_pad: bool = True,
) -> tuple[Tensor, Tensor]:
    """Pool the last axis of (N, C, L) or (C, L) input: (values, Int64 input positions of the maxima).

    The positions are those of max pooling; average pooling returns its divisors instead.
    """
    t = check_type(x, "x", Tensor, owner)
    if t.ndim not in (2, 3):
        raise ValueError(
            f"For '{owner}', the input must be 2-D (C, L) or 3-D (N, C, L), but got shape {t.shape}."
        )
    length = t.shape[-1]
    left, right, out = window.plan(length)
    if out <= 0:
        raise ValueError(
            f"For '{owner}', the input length {length} is shorter than the window "
            f"({window.dilation * (window.kernel - 1) + 1} with dilation), so there is no output."
        )
    fill = 0.0 if average else -math.inf
    padded = f.pad(t, ((0, 0),) * (t.ndim - 1) + ((left, right),), value=fill)
    where = (
        np.arange(out)[:, None] * window.stride
        + np.arange(window.kernel)[None, :] * window.dilation
    )
    windows = f.getitem(padded, (Ellipsis, where))  # (..., out, kernel)
    if not average:
        values, picked = max_with_index(windows, -1)
        positions = (where - left)[np.arange(out), np.asarray(picked.asnumpy())]
        return values, Tensor._wrap(positions.astype(np.int64))
    # What a window counts: the input, and in 'pad' mode with `count_include_pad` the
    # padding too (never the extra room `ceil_mode` adds, nor 'same' mode's padding).
    lo, hi = left, left + length
    if count_include_pad and window.pad_mode == "pad":
        lo, hi = lo - window.padding, hi + window.padding
    inside = np.zeros(left + length + right, t._data.dtype)
    inside[lo:hi] = 1
    divisor = inside[where].sum(axis=1)
    return f.div(f.sum(windows, -1), Tensor._wrap(divisor)), Tensor._wrap(divisor)


def avg_pool1d(
    input_x: Any,
    kernel_size: int = 1,
    stride: int = 1,
    padding: int = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """Average of each window along the last axis of (N, C, L) input, `padding` zeros on both sides."""
    owner = "avg_pool1d"
    window = window1d(owner, kernel_size, stride, "pad", padding, 1, ceil_mode)
    check_bool(count_include_pad, "count_include_pad", owner)
    return pool1d(
        owner, input_x, window, average=True, count_include_pad=count_include_pad
    )[0]
