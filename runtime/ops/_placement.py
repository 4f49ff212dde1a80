"""Where tensor data lives: host numpy arrays, or the current target's device arrays.

A tensor keeps the array it was made with. Kernel ops move their inputs to the
current target; a `Parameter` moves for good (its data is replaced), so
weights and optimizer state stay on the device across steps, while inputs
are copied each time they are used. numpy-style ops on device arrays run on
the device through the array type's numpy protocols (`DeviceArray`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute._tensor import Parameter

if TYPE_CHECKING:
    from ..compute._targets import Target
    from ..compute._tensor import Tensor

__all__ = ["is_device_array", "on_target", "to_target"]


def is_device_array(a: Any) -> bool:
    """Return whether `a` is a device array (its class sets `__cadence_device__`)."""
    return bool(getattr(type(a), "__cadence_device__", False))


def to_target(a: Any, target: Target) -> Any:
    """Return the array `a` as `target`'s array (a copy when it has to move)."""
    if target.on_host:
        return a if isinstance(a, np.ndarray) else np.asarray(a)
    return a if is_device_array(a) else target.to_device(np.asarray(a))


def on_target(t: Tensor, target: Target) -> Any:
    """Return `t`'s data as `target`'s array; a `Parameter`'s data is replaced by the moved copy."""
    d: Any = t._data
    if target.on_host:
        if isinstance(d, np.ndarray):
            return d
        d = np.asarray(d)
    elif is_device_array(d):
        return d
    else:
        d = target.to_device(d)
    if isinstance(t, Parameter):  # move it for good
        t._data = d
    return d
