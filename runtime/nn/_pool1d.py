"""1-D pooling cells over (N, C, L) or (C, L) input: `AvgPool1d`, `MaxPool1d` (see `ops._pool1d`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops._pool1d import pool1d, window1d
from ..validation import check_bool
from ._cell import Cell

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["AvgPool1d", "MaxPool1d"]


class AvgPool1d(Cell):
    """Average pooling along the last axis.

    Args:
        kernel_size: Window length, an int (or a tuple of one).
        stride: Step between windows.
        pad_mode: 'valid' (no padding), 'same' (output ceil(L / stride); padding not
            counted) or 'pad' (`padding` zeros on each side).
        padding: Zeros on each side in 'pad' mode, at most half the kernel.
        ceil_mode: Round the output length up (a last partial window).
        count_include_pad: Whether 'pad' mode's zeros count in the divisor.
    """

    def __init__(
        self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
        ceil_mode: bool = False, count_include_pad: bool = True,
    ) -> None:  # fmt: skip
        super().__init__()
        self.window = window1d(
            "AvgPool1d", kernel_size, stride, pad_mode, padding, 1, ceil_mode
        )
        self.count_include_pad = check_bool(
            count_include_pad, "count_include_pad", "AvgPool1d"
        )

    def construct(self, x: Any) -> Tensor:
        """Pool."""
        return pool1d(
            "AvgPool1d",
            x,
            self.window,
            average=True,
            count_include_pad=self.count_include_pad,
        )[0]


class MaxPool1d(Cell):
    """Max pooling along the last axis; the gradient goes to each window's first maximum.

    Args:
        kernel_size: Window length, an int (or a tuple of one).
        stride: Step between windows.
        pad_mode: 'valid', 'same' or 'pad' (-inf padding).
        padding, dilation, return_indices, ceil_mode: 'pad' mode only, as MindSpore's:
            `padding` on each side (at most half the kernel), the spacing of a window's
            elements, also return the Int64 input position of each maximum, round the
            output length up.
    """

    def __init__(
        self, kernel_size: Any = 1, stride: Any = 1, pad_mode: str = "valid", padding: Any = 0,
        dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False,
    ) -> None:  # fmt: skip
        super().__init__()
        owner = "MaxPool1d"
        self.window = window1d(
            owner, kernel_size, stride, pad_mode, padding, dilation, ceil_mode
        )
        self.return_indices = check_bool(return_indices, "return_indices", owner)
        if self.window.pad_mode != "pad" and (
            self.window.dilation != 1 or return_indices or ceil_mode
        ):
            raise ValueError(
                f"For '{owner}', 'dilation', 'return_indices' and 'ceil_mode' need pad_mode 'pad', "
                f"but got pad_mode {pad_mode!r}."
            )

    def construct(self, x: Any) -> Any:
        """Pool; with `return_indices`, (values, positions)."""
        values, positions = pool1d("MaxPool1d", x, self.window, average=False)
        return (values, positions) if self.return_indices else values
