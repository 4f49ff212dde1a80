"""`ops.interpolate`: resize the spatial axes of (N, C, ...) input, one axis at a time.

Every mode cadence offers is separable, so each spatial axis is resized on its
own with differentiable ops: 'nearest' and 'nearest-exact' gather source rows,
'linear'/'bilinear'/'trilinear' blend the two neighbouring rows and 'bicubic'
the four nearest with constant weights, 'area' averages windows by a product with a constant window matrix
(adaptive average pooling). The gradients are those ops' gradients.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _functional as f
from ._spatial import _window_matrix

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["interpolate", "resize"]

# mode -> the input ranks it takes (MindSpore 2.10's), and whether it blends neighbours.
_MODES = {
    "bicubic": (4,),
    "nearest": (3, 4, 5),
    "nearest-exact": (3, 4, 5),
    "area": (3, 4, 5),
    "linear": (3,),
    "bilinear": (4,),
    "trilinear": (5,),
}
_BLENDING = ("linear", "bilinear", "trilinear", "bicubic")
# MindSpore's bicubic resize (TensorFlow's): Keys' kernel with a = -0.5 and taps outside
# the image dropped (the rest renormalized) for pixel centres, a = -0.75 and taps clamped
# to the edge with `align_corners`; the weights read from a table of 1024 steps.
_CUBIC_TABLE_STEPS = 1024


def _source(size: int, out: int, grid: str) -> np.ndarray[Any, Any]:
    """The source coordinate of each output position.

    'centres' maps pixel centres onto pixel centres, 'corners' the corner pixels
    onto each other (`align_corners`), 'asymmetric' output i onto i * size / out
    (MindSpore's `ResizeBilinearV2` and `ResizeNearestNeighbor` default).
    """
    i = np.arange(out, dtype=np.float64)
    if grid == "corners":
        return i * ((size - 1) / (out - 1)) if out > 1 else np.zeros(out)
    if grid == "asymmetric":
        return i * (size / out)
    return (i + 0.5) * (size / out) - 0.5


def _cubic_weights(frac: np.ndarray[Any, Any], a: float) -> list[np.ndarray[Any, Any]]:
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 from the floor."""

    def near(d: Any) -> Any:  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d: Any) -> Any:  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return [far(frac + 1), near(frac), near(1 - frac), far(2 - frac)]


def _cubic_taps(
    pos: np.ndarray[Any, Any], size: int, align_corners: bool
) -> list[tuple[Any, Any]]:
    """The four (index, weight) taps of each output position (see `_CUBIC_TABLE_STEPS`)."""
    pos = pos.astype(np.float32)  # MindSpore locates the samples in float32
    floor = np.floor(pos)
    frac = np.rint((pos - floor) * _CUBIC_TABLE_STEPS) / _CUBIC_TABLE_STEPS
    weights = _cubic_weights(frac.astype(np.float64), -0.75 if align_corners else -0.5)
    index = [floor + k for k in range(-1, 3)]
    if not align_corners:
        weights = [
            w * ((i >= 0) & (i <= size - 1))
            for w, i in zip(weights, index, strict=True)
        ]
        total = sum(weights)
        weights = [w / total for w in weights]
    return [(np.clip(i, 0, size - 1), w) for i, w in zip(index, weights, strict=True)]


def _take_sorted(t: Tensor, index: np.ndarray[Any, Any], axis: int) -> Tensor:
    """`gather` of the non-decreasing `index` along `axis`, its gradient summed over runs.

    A resize reads each source row for a run of neighbouring outputs, so on the host
    the gradient is one `add.reduceat` over those runs, not `add.at`'s element-wise
    scatter (ten times slower); a device array scatter-adds as `gather` does.
    """
    data = t._data
    out = np.take(data, index, axis)
    starts = np.flatnonzero(np.diff(index, prepend=-1))  # where each run begins

    def grad_fn() -> f.GradFn:
        def backward(g: Any) -> tuple[Any]:
            gx = np.zeros_like(data)
            at = (slice(None),) * axis + (index[starts],)
            if type(g) is np.ndarray and type(gx) is np.ndarray:
                gx[at] = np.add.reduceat(g, starts, axis)
            else:
                spots: Any = (slice(None),) * axis + (index,)
                np.add.at(gx, spots, g)
            return (gx,)

        return backward

    return f.record(out, (t,), grad_fn)


def _blend(t: Tensor, axis: int, taps: list[tuple[Any, Any]]) -> Tensor:
    """The sum of weight * (the rows at index) over the (index, weight) taps, along `axis`."""
    shape = (-1,) + (1,) * (t.ndim - axis - 1)
    out: Tensor | None = None
    for index, weight in taps:
        rows = _take_sorted(t, index.astype(np.int64), axis)
        term = f.mul(rows, weight.astype(t._data.dtype).reshape(shape))
        out = term if out is None else f.add(out, term)
    assert out is not None
    return out


def _resize_axis(t: Tensor, axis: int, out: int, mode: str, grid: str) -> Tensor:
    """Resize `axis` to `out` with 'nearest', 'area', 'linear' or 'bicubic' on the `grid` (see `_source`)."""
    size = t.shape[axis]
    if size == out:
        return t
    if mode == "area":
        # The axis last, as the columns of a 2-D matrix (a product device arrays have
        # a kernel for), times the (size, out) window matrix, and back.
        moved = f.transpose(t, _swap(t.ndim, axis))
        rows = _times_windows(f.reshape(moved, (-1, size)), size, out)
        return f.transpose(
            f.reshape(rows, (*moved.shape[:-1], out)), _swap(t.ndim, axis)
        )
    pos = _source(size, out, grid)
    if (
        mode == "nearest"
    ):  # the pixel the coordinate falls in (rounded off the asymmetric grid)
        shift = 0.0 if grid == "asymmetric" else 0.5
        src = np.clip(np.floor(pos + shift), 0, size - 1)
        return _take_sorted(t, src.astype(np.int64), axis)
    if mode == "bicubic":
        return _blend(t, axis, _cubic_taps(pos, size, grid == "corners"))
    pos = np.maximum(pos, 0.0)  # the linear modes clamp the coordinate, not the taps
    lo = np.minimum(np.floor(pos), size - 1)
    hi = np.minimum(lo + 1, size - 1)
    return _blend(t, axis, [(lo, 1 - (pos - lo)), (hi, pos - lo)])


def resize(t: Tensor, sizes: tuple[int, ...], mode: str, grid: str) -> Tensor:
    """Resize the trailing `len(sizes)` axes of `t`, one at a time (see `_resize_axis`)."""
    for axis, out in enumerate(sizes, start=t.ndim - len(sizes)):
        t = _resize_axis(t, axis, out, mode, grid)
    return t


def _times_windows(x: Tensor, size: int, out: int) -> Tensor:
    """(rows, size) @ the (size, out) window matrix; both products of 2-D C-contiguous arrays."""
    windows = _window_matrix(size, out, x._data.dtype)  # (out, size)
    forward = np.ascontiguousarray(windows.T)
    return f.record(x._data @ forward, (x,), lambda: lambda g: (g @ windows,))


def _swap(ndim: int, axis: int) -> tuple[int, ...]:
    """The permutation that exchanges `axis` and the last axis (its own inverse)."""
    perm = list(range(ndim))
    perm[-1], perm[axis] = axis, ndim - 1
    return tuple(perm)


def _sizes(t: Tensor, size: Any, scale_factor: Any) -> tuple[int, ...]:
    spatial = t.shape[2:]
    if (size is None) == (scale_factor is None):
        raise ValueError(
            "For 'interpolate', exactly one of the arguments 'size' and 'scale_factor' must be "
            f"given, but got size={size!r} and scale_factor={scale_factor!r}."
        )
    given, name = (size, "size") if size is not None else (scale_factor, "scale_factor")
    items = given if isinstance(given, tuple | list) else (given,) * len(spatial)
    kind = int if name == "size" else (int, float)
    if len(items) != len(spatial) or not all(
        isinstance(v, kind) and not isinstance(v, bool) and v > 0 for v in items
    ):
        what = "a positive int" if name == "size" else "a positive number"
        raise ValueError(
            f"For 'interpolate', the argument '{name}' must be {what} or {len(spatial)} of them "
            f"(one per spatial axis of the input of shape {t.shape}), but got {given!r}."
        )
    if name == "size":
        return tuple(items)
    return tuple(max(math.floor(n * s), 1) for n, s in zip(spatial, items, strict=True))


def interpolate(
    input: Any,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
) -> Tensor:
    """Resize the spatial axes (all but N and C) of `input` to `size`, or by `scale_factor`, with `mode`.

    Modes: 'nearest' (3-D to 5-D input), 'nearest-exact', 'area', 'linear' (3-D),
    'bilinear', 'bicubic' (4-D), 'trilinear' (5-D); `align_corners` (blending modes only)
    maps the corner pixels' centres onto each other. A `scale_factor` gives the
    size floor(n * scale) and the coordinates are those of that size.
    """
    t = f.as_tensor(input)
    if mode not in _MODES:
        raise ValueError(
            f"For 'interpolate', the argument 'mode' must be one of {list(_MODES)}, but got {mode!r}."
        )
    if t.ndim not in _MODES[mode]:
        raise ValueError(
            f"For 'interpolate', mode {mode!r} takes {' or '.join(f'{n}-D' for n in _MODES[mode])} "
            f"input, but got shape {t.shape}."
        )
    if t._data.dtype.kind != "f":
        raise TypeError(
            f"For 'interpolate', the input must be a float tensor, but got dtype {t.dtype!r}."
        )
    if align_corners is not None and not isinstance(align_corners, bool):
        raise TypeError(
            f"For 'interpolate', the argument 'align_corners' must be a bool or None, but got {align_corners!r}."
        )
    if align_corners and mode not in _BLENDING:
        raise ValueError(
            f"For 'interpolate', the argument 'align_corners' applies to the modes {list(_BLENDING)} "
            f"only, but got align_corners=True with mode {mode!r}."
        )
    if recompute_scale_factor is not None and not isinstance(
        recompute_scale_factor, bool
    ):
        raise TypeError(
            "For 'interpolate', the argument 'recompute_scale_factor' must be a bool or None, "
            f"but got {recompute_scale_factor!r}."
        )
    grid = (
        "corners" if align_corners else "asymmetric" if mode == "nearest" else "centres"
    )
    kind = {"nearest-exact": "nearest", "bilinear": "linear", "trilinear": "linear"}
    return resize(t, _sizes(t, size, scale_factor), kind.get(mode, mode), grid)
