"""Compute kernels per device target (`cadence.kernels`).

`reference` holds the plain-numpy spec of every kernel; `cpu_kernels()` returns
the CPU kernel table (numba) and `cuda_kernels()` the CUDA one (numba.cuda,
the `cuda` subpackage), each importing its module on the first call. Importing
this package does not import numba.

Layer rule: the kernels are the bottom layer. Modules here import numpy, numba
and each other, never the rest of cadence (`cadence.*` outside
`cadence.kernels`); the runtime calls in, through the tables. See
docs/architecture.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

from ._names import KERNEL_NAMES

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
    return importlib.import_module("cadence.kernels.cuda")


def memory_kernels() -> ModuleType:
    """Return the host-memory kernels (`stream_copy`), importing them (and numba) on the first call."""
    return importlib.import_module("cadence.kernels._memory")


def reference_kernels() -> ModuleType:
    """Return the plain-numpy reference kernels (usable as a slow kernel table)."""
    return importlib.import_module("cadence.kernels.reference")
