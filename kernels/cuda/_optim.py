"""CUDA loops for the `_optim_updates` optimizers: each `_optim_elements` body in a grid-stride loop.

Hyperparameters are converted to the parameter's dtype (float32 arithmetic on
the device); state arrays must already live on the device, as for the other
updates. Lamb's norms reduce on the device through `DeviceArray`'s sum.
"""

from __future__ import annotations

from typing import Any

from .._optim_updates import OptimizerTarget, optimizer_updates
from ._array import DeviceArray, device_empty
from ._dense import _grad, _run, _state
from ._device import cuda

__all__ = [
    "LOOPS",
    "adadelta_update",
    "adagrad_update",
    "adam_amsgrad_update",
    "adam_weight_decay_update",
    "asgd_update",
    "ftrl_update",
    "lamb_update",
    "proximal_adagrad_update",
    "rmsprop_update",
    "rprop_update",
]

LOOPS: dict[str, Any] = {}
"""The compiled loops by body name (for the lowering check in tests/targets)."""


def _loop(body: Any) -> Any:
    element = cuda.jit(device=True)(body)

    @cuda.jit
    def loop(p: Any, g: Any, a: Any, b: Any, c: Any, h: Any) -> None:
        for i in range(cuda.grid(1), p.size, cuda.gridsize(1)):
            element(p, g, a, b, c, h, i)

    LOOPS[body.__name__] = loop
    return loop


def _sum_of_squares(flat: Any) -> float:
    a = DeviceArray(flat)
    return float((a * a).sum())


def _scratch(param: Any) -> Any:
    return device_empty(param.shape, param.dtype)


# Hyperparameters in the parameter's dtype: float32 arithmetic on the device.
_TARGET = OptimizerTarget(
    _loop, _run, _state, _grad, lambda p: p.dtype.type, _scratch, _sum_of_squares
)
(adam_weight_decay_update, adam_amsgrad_update, rmsprop_update, adagrad_update, lamb_update,
 adadelta_update, proximal_adagrad_update, rprop_update, asgd_update, ftrl_update) = optimizer_updates(_TARGET)  # fmt: skip
