"""Spatial cells of the convolutional networks: `AdaptiveAvgPool2d`, `Dropout2d`, `Pad`, `PixelShuffle`, `Upsample`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops import _functional as f
from ..ops._interpolate import _MODES, interpolate
from ..ops._reordering import pixel_shuffle
from ..ops._spatial import adaptive_avg_pool2d, adaptive_sizes, dropout2d, mirror_pad
from ..validation import check_choice, check_int
from ._cell import Cell

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..compute._tensor import Tensor

__all__ = ["AdaptiveAvgPool2d", "Dropout2d", "Pad", "PixelShuffle", "Upsample"]


class AdaptiveAvgPool2d(Cell):
    """Average pooling of (N, C, H, W) or (C, H, W) input to a fixed output size.

    Args:
        output_size: int (square) or (height, width); None in the pair keeps that input size.
    """

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        adaptive_sizes("AdaptiveAvgPool2d", output_size, 1, 1)
        self.output_size = output_size

    def construct(self, x: Any) -> Tensor:
        """Pool."""
        return adaptive_avg_pool2d(x, self.output_size)

    def extend_repr(self) -> str:
        """Show the output size."""
        return f"output_size={self.output_size}"


class Dropout2d(Cell):
    """While training, zero whole channels of NCHW input with probability `p` and scale the rest by 1/(1-p).

    Args:
        p: Probability of dropping a channel, in [0, 1].
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not isinstance(p, int | float) or isinstance(p, bool) or not 0 <= p <= 1:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For 'Dropout2d', the argument 'p' must be a number in range [0, 1], but got {p!r}."
            )
        self.p = float(p)

    def construct(self, x: Any) -> Tensor:
        """Drop channels when training; identity otherwise."""
        return dropout2d(x, self.p, self.training)

    def extend_repr(self) -> str:
        """Show the drop probability."""
        return f"p={self.p}"


_PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


class Pad(Cell):
    """Pad every axis by (before, after) elements: zeros ('CONSTANT') or the mirrored input.

    Args:
        paddings: One (before, after) pair of ints >= 0 per input axis.
        mode: 'CONSTANT' (zeros), 'REFLECT' (mirror without the edge, pads below the axis size) or
            'SYMMETRIC' (mirror with the edge, pads up to the axis size).
    """

    def __init__(
        self, paddings: Sequence[Sequence[int]], mode: str = "CONSTANT"
    ) -> None:
        super().__init__()
        if not isinstance(mode, str) or mode.upper() not in _PAD_MODES:  # type: ignore[redundant-expr]
            raise ValueError(
                f"For 'Pad', the argument 'mode' must be one of {list(_PAD_MODES)}, but got {mode!r}."
            )
        pairs = (
            tuple(tuple(p) for p in paddings)
            if isinstance(paddings, tuple | list)
            else ()
        )
        if not pairs or any(
            len(p) != 2
            or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in p)
            for p in pairs
        ):
            raise ValueError(
                f"For 'Pad', the argument 'paddings' must be a tuple of (before, after) pairs of ints >= 0, "
                f"but got {paddings!r}."
            )
        self.paddings: tuple[tuple[int, int], ...] = tuple((p[0], p[1]) for p in pairs)
        self.mode = mode.upper()

    def construct(self, x: Any) -> Tensor:
        """Pad."""
        t = f.as_tensor(x)
        if len(self.paddings) != t.ndim:
            raise ValueError(
                f"For 'Pad', 'paddings' must have one pair per input axis ({t.ndim}), but got "
                f"{len(self.paddings)} pairs."
            )
        if self.mode == "CONSTANT":
            return f.pad(t, self.paddings)
        return mirror_pad(t, self.paddings, self.mode)

    def extend_repr(self) -> str:
        """Show the padding."""
        return f"paddings={self.paddings}, mode={self.mode}"


class PixelShuffle(Cell):
    """Rearrange (..., C * r * r, H, W) into (..., C, H * r, W * r), as `ops.pixel_shuffle` (sub-pixel upsampling).

    Args:
        upscale_factor: r, an int > 0.
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = check_int(
            upscale_factor, "upscale_factor", "PixelShuffle", minimum=1
        )

    def construct(self, x: Any) -> Tensor:
        """Shuffle."""
        return pixel_shuffle(x, self.upscale_factor)


class Upsample(Cell):
    """Resize the spatial axes to `size` or by `scale_factor`, as `ops.interpolate` with the same arguments.

    Args:
        size: The output size (an int or one per spatial axis).
        scale_factor: A factor (or one per spatial axis); one of `size` and `scale_factor` is needed.
        mode: 'nearest' (default), 'linear', 'bilinear', 'bicubic', 'trilinear', 'area', 'nearest-exact'.
        align_corners, recompute_scale_factor: As `ops.interpolate`.
    """

    def __init__(
        self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
        align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
    ) -> None:  # fmt: skip
        super().__init__()
        if size is None and scale_factor is None:
            raise ValueError(
                "For 'Upsample', one of the arguments 'size' and 'scale_factor' must be given."
            )
        self.size, self.scale_factor = size, scale_factor
        self.mode = check_choice(mode, "mode", _MODES, "Upsample")
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x: Any) -> Tensor:
        """Resize."""
        return interpolate(
            x,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.recompute_scale_factor,
        )
