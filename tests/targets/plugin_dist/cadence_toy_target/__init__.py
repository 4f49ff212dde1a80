"""A toy device target: cadence's numpy reference kernels, counting each call.

Everything a plugin needs: a `Target` subclass with a name, a probe and a
kernel table, declared in the `cadence.devices` entry-point group.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import cadence
from cadence.kernels import KERNEL_NAMES, reference_kernels

CALLS: Counter[str] = Counter()


class ToyKernels:
    """The reference kernels, each call counted in `CALLS`."""

    def __getattr__(self, name: str) -> Any:
        if name not in KERNEL_NAMES:
            raise AttributeError(name)
        kernel = getattr(reference_kernels(), name)

        def counted(*args: Any) -> Any:
            CALLS[name] += 1
            return kernel(*args)

        return counted


class ToyTarget(cadence.Target):
    """Runs anywhere unless TOY_TARGET_OFF is set."""

    name = "Toy"
    aliases = ("toy-device",)
    description = "numpy reference kernels (a test plugin)"
    install_hint = "unset TOY_TARGET_OFF"

    def probe(self) -> str | None:
        return "TOY_TARGET_OFF is set." if os.environ.get("TOY_TARGET_OFF") else None

    def load_kernels(self) -> Any:
        return ToyKernels()
