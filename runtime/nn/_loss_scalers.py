"""MindSpore 2.x's functional loss scaling: the `LossScaler` classes of `mindspore.amp`.

A functional training step (`value_and_grad` over a forward function) scales the loss
itself: `loss_scaler.scale(loss)` inside the forward function, `loss_scaler.unscale(grads)`
after it, `amp.all_finite(grads)` (`cadence.nn._amp`) to decide whether to update, and `loss_scaler.adjust(finite)`
to move the scale. `DynamicLossScaler` follows MindSpore's counter rule: `scale_window`
finite steps in a row multiply the scale by `scale_factor` (kept when the product would
overflow), a non-finite step divides it (not below 1) and restarts the count.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ..compute._tensor import Parameter, Tensor
from ..ops import _functional as f
from ..validation import check_number, check_positive_int

__all__ = ["DynamicLossScaler", "LossScaler", "StaticLossScaler"]

_FLOAT32_MAX = float(np.finfo(np.float32).max)  # a larger scale would be inf in float32


def _times(inputs: Any, factor: Tensor) -> Any:
    """`inputs` (a Tensor or a nested tuple/list of them) times `factor`, each in its own dtype."""
    if isinstance(inputs, tuple | list):
        return type(inputs)(_times(item, factor) for item in inputs)
    tensor = f.as_tensor(inputs)
    return f.mul(tensor, f.cast(factor, tensor.dtype))


class LossScaler(ABC):
    """The interface of MindSpore's loss scalers: `scale`, `unscale`, `adjust`."""

    @abstractmethod
    def scale(self, inputs: Any) -> Any:
        """Multiply `inputs` by the loss scale."""

    @abstractmethod
    def unscale(self, inputs: Any) -> Any:
        """Divide `inputs` by the loss scale."""

    @abstractmethod
    def adjust(self, grads_finite: Any) -> bool:
        """Update the loss scale from whether this step's gradients were finite."""


class StaticLossScaler(LossScaler):
    """Scales by a constant `scale_value` (a number >= 1), kept as the Parameter `scale_value`."""

    def __init__(self, scale_value: Any) -> None:
        owner = type(self).__name__
        value = check_number(scale_value, "scale_value", owner, minimum=1.0)
        self.scale_value = Parameter(
            np.asarray(value, np.float32), name="scale_value", requires_grad=False
        )

    def scale(self, inputs: Any) -> Any:
        """`inputs` times the scale (differentiable, so a forward function may scale its loss)."""
        return _times(inputs, self.scale_value)

    def unscale(self, inputs: Any) -> Any:
        """`inputs` times 1 / scale, each in its own dtype."""
        return _times(inputs, Tensor(np.float32(1.0) / self.scale_value.asnumpy()))

    def adjust(self, grads_finite: Any) -> bool:
        """The scale is fixed: return False."""
        return False


class DynamicLossScaler(StaticLossScaler):
    """Grows the scale by `scale_factor` after `scale_window` finite steps in a row, shrinks it on any other.

    Args:
        scale_value: The initial scale, a number >= 1.
        scale_factor: An int > 0.
        scale_window: An int > 0.
    """

    def __init__(self, scale_value: Any, scale_factor: Any, scale_window: Any) -> None:
        super().__init__(scale_value)
        owner = type(self).__name__
        self.scale_window = check_positive_int(scale_window, "scale_window", owner)
        self.scale_factor = check_positive_int(scale_factor, "scale_factor", owner)
        self.counter = Parameter(
            np.asarray(0, np.int32), name="counter", requires_grad=False
        )

    def adjust(self, grads_finite: Any) -> bool:
        """Update `scale_value` and `counter` from `grads_finite` (a bool or bool Tensor); return True."""
        finite = bool(
            np.all(np.asarray(grads_finite))
        )  # a Tensor converts through __array__
        scale, count = float(self.scale_value.asnumpy()), int(self.counter.asnumpy())
        if not finite:
            scale, count = max(1.0, scale / self.scale_factor), 0
        else:
            if (
                count == self.scale_window - 1
                and scale * self.scale_factor <= _FLOAT32_MAX
            ):
                scale *= self.scale_factor
            count = (count + 1) % self.scale_window
        self.scale_value.set_data(np.asarray(scale, np.float32))
        self.counter.set_data(np.asarray(count, np.int32))
        return True
