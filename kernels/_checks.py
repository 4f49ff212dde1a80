"""Argument checks run in Python before a JIT call, so errors name arguments, not LLVM types."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_float_array", "check_same_shape", "check_shape", "is_pointwise"]


def check_float_array(name: str, a: Any, ndim: int | None = None) -> None:
    """Raise unless `a` is a C-contiguous float32/float64 array (of `ndim` dimensions).

    Device arrays (classes marked `__cadence_device__`) pass as arrays.
    """
    if not isinstance(a, np.ndarray) and not getattr(
        type(a), "__cadence_device__", False
    ):
        raise TypeError(
            f"Kernel argument `{name}` must be a numpy array, but got {type(a).__name__}."
        )
    if a.dtype not in (np.float32, np.float64):
        raise TypeError(
            f"Kernel argument `{name}` must be float32 or float64, but got {a.dtype}."
        )
    if ndim is not None and a.ndim != ndim:
        raise ValueError(
            f"Kernel argument `{name}` must have {ndim} dimensions, but got shape {a.shape}."
        )
    if not a.flags.c_contiguous:
        raise ValueError(f"Kernel argument `{name}` must be C-contiguous.")


def check_same_shape(names: tuple[str, ...], *arrays: Any) -> None:
    """Raise unless all arrays have the same shape."""
    shapes = [a.shape for a in arrays]
    if any(s != shapes[0] for s in shapes):
        listed = ", ".join(f"`{n}` {s}" for n, s in zip(names, shapes, strict=True))
        raise ValueError(
            f"Kernel arguments must have the same shape, but got {listed}."
        )


def check_shape(name: str, a: Any, shape: tuple[int, ...]) -> None:
    """Raise unless `a` has exactly `shape`."""
    if a.shape != shape:
        raise ValueError(
            f"Kernel argument `{name}` must have shape {shape}, but got {a.shape}."
        )


def is_pointwise(
    w_shape: tuple[int, ...], stride: tuple[int, int], padding: tuple[int, ...]
) -> bool:
    """Whether `_pointwise_conv` computes this convolution: 1x1 filters, stride 1, no padding (dilation is moot).

    Here, not in that module, so the runtime can ask without importing numba.
    """
    return tuple(w_shape[2:]) == (1, 1) and tuple(stride) == (1, 1) and not any(padding)
