"""Compute kernels per device target (`cadence.kernels`).

`reference` holds the plain-numpy spec of every kernel; `cpu_kernels()` returns
the CPU kernel table (numba) and `cuda_kernels()` the CUDA one (numba.cuda),
each importing its module on the first call. Importing this package does not
import numba.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from types import ModuleType

__all__ = [
    "KERNEL_NAMES",
    "KernelSet",
    "cpu_kernels",
    "cuda_kernels",
    "memory_kernels",
    "reference_kernels",
]

# Every kernel table provides these names, with `reference`'s signatures.
KERNEL_NAMES: tuple[str, ...] = (
    "adam_update",
    "avg_pool2d_backward",
    "avg_pool2d_forward",
    "batch_norm_backward",
    "batch_norm_forward",
    "bias_act_backward",
    "bias_act_forward",
    "conv2d_backward",
    "conv2d_forward",
    "dense_backward",
    "dense_forward",
    "log_softmax_backward",
    "log_softmax_forward",
    "max_pool2d_backward",
    "max_pool2d_forward",
    "momentum_update",
    "relu_backward",
    "relu_forward",
    "sgd_update",
    "sigmoid_backward",
    "sigmoid_forward",
    "softmax_backward",
    "softmax_cross_entropy_dense",
    "softmax_cross_entropy_sparse",
    "softmax_forward",
    "tanh_backward",
    "tanh_forward",
)


class KernelSet(Protocol):
    """What a target's kernel table provides: one attribute per name in `KERNEL_NAMES`."""

    def __getattr__(self, name: str) -> Any: ...


def cpu_kernels() -> ModuleType:
    """Return the CPU kernel table, importing it (and numba) on the first call."""
    return importlib.import_module("cadence.kernels._cpu")


def cuda_kernels() -> ModuleType:
    """Return the CUDA kernel table, importing it (numba.cuda) on the first call.

    Besides the kernels it provides `to_device`, `to_host` and `DeviceArray`,
    the array type tensors hold on the GPU target.
    """
    return importlib.import_module("cadence.kernels._cuda")


def memory_kernels() -> ModuleType:
    """Return the host-memory kernels (`stream_copy`), importing them (and numba) on the first call."""
    return importlib.import_module("cadence.kernels._memory")


def reference_kernels() -> ModuleType:
    """Return the plain-numpy reference kernels (usable as a slow kernel table)."""
    return importlib.import_module("cadence.kernels.reference")
