"""MindSpore's resize operator classes: `ops.ResizeNearestNeighbor` and `ops.ResizeBilinearV2` (NCHW).

The model zoo's detection and segmentation networks (FPN, YOLO, DeepLab, UNet)
call these rather than `ops.interpolate`; both resize with `_interpolate.resize`,
on TensorFlow's grids: output i at i * in / out by default, corners onto
corners with `align_corners`, pixel centres with `half_pixel_centers`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from . import _functional as f
from ._interpolate import resize

__all__ = ["resize_bilinear_v2", "resize_nearest_neighbor"]


def _grid(op: str, align_corners: bool, half_pixel_centers: bool) -> str:
    if align_corners and half_pixel_centers:
        raise ValueError(
            f"For '{op}', the arguments 'align_corners' and 'half_pixel_centers' cannot both "
            f"be True, but got align_corners=True and half_pixel_centers=True."
        )
    return (
        "corners"
        if align_corners
        else "centres"
        if half_pixel_centers
        else "asymmetric"
    )


def _image(x: Any, op: str) -> Tensor:
    t = f.as_tensor(x)
    if t.ndim != 4 or t._data.dtype.kind != "f":
        raise ValueError(
            f"For '{op}', the input must be a 4-D (N, C, H, W) float tensor, but got dtype "
            f"{t.dtype!r} and shape {t.shape}."
        )
    return t


def _pair(size: Any, op: str) -> tuple[int, int]:
    if isinstance(size, Tensor):
        size = tuple(int(v) for v in np.asarray(size.asnumpy()).ravel())
    if (
        not isinstance(size, tuple | list)
        or len(size) != 2
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size
        )
    ):
        raise TypeError(
            f"For '{op}', the argument 'size' must be a tuple, list or Tensor of two positive "
            f"ints (height, width), but got {size!r}."
        )
    return (size[0], size[1])


def resize_nearest_neighbor(
    input_x: Any, *, size: Any, align_corners: bool, half_pixel_centers: bool
) -> Tensor:
    """`ops.ResizeNearestNeighbor(size, align_corners, half_pixel_centers)(input_x)`.

    As MindSpore 2.10 on the CPU, `half_pixel_centers` is checked (not with
    `align_corners`) but picks the same pixels as the default.
    """
    _grid("ResizeNearestNeighbor", align_corners, half_pixel_centers)
    t = _image(input_x, "ResizeNearestNeighbor")
    grid = "corners" if align_corners else "asymmetric"
    return resize(t, _pair(size, "ResizeNearestNeighbor"), "nearest", grid)


def resize_bilinear_v2(
    x: Any, size: Any, *, align_corners: bool, half_pixel_centers: bool
) -> Tensor:
    """`ops.ResizeBilinearV2(align_corners, half_pixel_centers)(x, size)`."""
    grid = _grid("ResizeBilinearV2", align_corners, half_pixel_centers)
    t = _image(x, "ResizeBilinearV2")
    return resize(t, _pair(size, "ResizeBilinearV2"), "linear", grid)
