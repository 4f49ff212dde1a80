"""Device targets: a name, an availability probe and a kernel table loaded on first use.

`CPU` is built in. A later issue adds entry-point plugins (`cadence.targets`) for
GPU and Ascend; they register `Target` subclasses here with `register_target`.
Kernel modules (and numba) are imported only when a target's kernels are first
asked for, never when `cadence` is imported.
"""

from __future__ import annotations

import abc
import os
import threading
from typing import Any

__all__ = [
    "CPUTarget",
    "Target",
    "TargetUnavailableError",
    "get_target",
    "known_targets",
    "register_target",
]


class TargetUnavailableError(ValueError):
    """No target has the requested name, or the target cannot run on this machine."""


class Target(abc.ABC):
    """A device target; subclass it to add one.

    Subclasses set `name` (MindSpore's spelling, e.g. `"CPU"`) and implement
    `probe` and `_load_kernels`.
    """

    name: str = ""
    aliases: tuple[str, ...] = ()

    def __init__(self) -> None:
        self._kernels: Any = None
        self._lock = threading.Lock()

    @abc.abstractmethod
    def probe(self) -> str | None:
        """Return why the target cannot run here, or None when it can. Must not import native code."""

    @abc.abstractmethod
    def _load_kernels(self) -> Any:
        """Import and return the kernel table (a module or object with the kernel functions)."""

    @property
    def kernels(self) -> Any:
        """The kernel table, imported on first access."""
        kernels = self._kernels
        if kernels is None:
            with self._lock:
                if self._kernels is None:
                    self._kernels = self._load_kernels()
                kernels = self._kernels
        return kernels

    def configure_threads(self, num_threads: int) -> None:  # noqa: B027 - optional hook
        """Limit the threads the target's kernels use together (default: nothing to do)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class CPUTarget(Target):
    """The built-in CPU target: numba kernels plus numpy's BLAS for matmuls.

    The numba kernels run serially on the calling thread and BLAS runs between
    them, so at most `num_threads` threads compute at any time.
    """

    name = "CPU"

    def probe(self) -> str | None:
        """Return None: the CPU is always available."""
        return None

    def _load_kernels(self) -> Any:
        from cadence.kernels import cpu_kernels

        return cpu_kernels()

    def configure_threads(self, num_threads: int) -> None:
        """Limit BLAS to `num_threads` threads (numba kernels are single-threaded)."""
        try:
            from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency
            os.environ["OPENBLAS_NUM_THREADS"] = str(num_threads)
            return
        global _BLAS_LIMIT
        _BLAS_LIMIT = threadpool_limits(limits=num_threads, user_api="blas")


_BLAS_LIMIT: Any = None
_REGISTRY: dict[str, Target] = {}
_REGISTRY_LOCK = threading.Lock()


def register_target(target: Target) -> None:
    """Add `target` under its name and aliases (case-insensitive); a later registration replaces one."""
    if not isinstance(target, Target):
        raise TypeError(f"`target` must be a cadence Target, but got {target!r}.")
    with _REGISTRY_LOCK:
        for key in (target.name, *target.aliases):
            _REGISTRY[key.lower()] = target


def known_targets() -> list[str]:
    """Return the names of the registered targets, sorted."""
    return sorted({t.name for t in _REGISTRY.values()})


def get_target(name: str) -> Target:
    """Return the target called `name` (case-insensitive) after checking it can run here.

    Raises:
        TargetUnavailableError: If no target has that name, or its probe says it cannot run.
    """
    if not isinstance(name, str):
        raise TypeError(
            f"`device_target` must be a str such as 'CPU', but got {name!r}."
        )
    target = _REGISTRY.get(name.lower())
    if target is None:
        known = ", ".join(repr(n) for n in known_targets())
        raise TargetUnavailableError(
            f"No device target named {name!r}. Known targets: {known}."
        )
    reason = target.probe()
    if reason is not None:
        raise TargetUnavailableError(
            f"The device target {target.name!r} is not available on this machine: {reason}"
        )
    return target


register_target(CPUTarget())
