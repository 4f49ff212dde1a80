"""MindSpore 2.x's function forms around `Tensor`: `from_numpy`, `tensor` and `is_tensor`.

Layer rule: builds on the compute package only (as the rest of `cadence.common`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..compute._context import current_target
from ..compute._tensor import Tensor

if TYPE_CHECKING:
    import numpy as np

    from ..compute._dtype import Type

__all__ = ["from_numpy", "is_tensor", "tensor"]


def from_numpy(array: np.ndarray[Any, Any]) -> Tensor:
    """Return a Tensor over `array`'s memory, as `mindspore.from_numpy`: writes through either show in both.

    The dtype is the array's (float64 stays float64, unlike `Tensor([1.0])`). On a device
    target the first operation copies the data to the device, as any host tensor.

    The same as `Tensor.from_numpy`.

    Raises:
        TypeError: If `array` is not a numpy array, or its dtype has no cadence type.

    Example:
        >>> import numpy as np
        >>> import cadence as ms
        >>> a = np.zeros(2, np.float32)
        >>> t = ms.from_numpy(a)
        >>> a[0] = 5.0
        >>> t
        Tensor(shape=[2], dtype=Float32, value= [ 5.00000000e+00,  0.00000000e+00])
    """
    return Tensor.from_numpy(array)


def tensor(
    input_data: Any = None,
    dtype: Type | None = None,
    shape: Any = None,
    init: Any = None,
    const_arg: bool = False,
    device: str | None = None,
) -> Tensor:
    """Make a Tensor, as MindSpore 2.x's `mindspore.tensor` (the function form of `Tensor(...)`).

    Args:
        input_data: The data, as `Tensor`'s.
        dtype: The element type, as `Tensor`'s.
        shape: With `init`, the shape, as `Tensor`'s.
        init: With `shape`, an initializer, as `Tensor`'s.
        const_arg: As `Tensor`'s (accepted; cadence compiles no graphs).
        device: None, or the name of the context's device target (case-insensitive):
            a cadence tensor lives where the context computes.

    Raises:
        TypeError: For data or a `dtype` `Tensor` refuses, or a `device` that is not a str.
        ValueError: For a `device` other than the context's target.

    Example:
        >>> import cadence as ms
        >>> ms.tensor([1, 2], ms.float32)
        Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])
    """
    if device is not None:
        if not isinstance(device, str):
            raise TypeError(
                f"For 'tensor', the argument 'device' must be a str or None, "
                f"but got {device!r} of type {type(device).__name__!r}."
            )
        target = current_target().name
        if device.upper() != target.upper():
            raise ValueError(
                f"For 'tensor', the argument 'device' must be None or the context's device target "
                f"{target!r} (set it with `set_device`), but got {device!r}."
            )
    return Tensor(input_data, dtype, shape, init, const_arg=const_arg)


def is_tensor(obj: Any) -> bool:
    """Return whether `obj` is a Tensor (a Parameter is one), as `mindspore.is_tensor`.

    Example:
        >>> import numpy as np
        >>> import cadence as ms
        >>> ms.is_tensor(ms.Tensor(1)), ms.is_tensor(np.ones(1))
        (True, False)
    """
    return isinstance(obj, Tensor)
