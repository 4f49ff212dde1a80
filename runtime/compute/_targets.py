"""Device targets: the `Target` base class, the built-in `CPUTarget` and `CUDATarget`, the registry.

A target is a name (MindSpore's spelling: `"CPU"`, `"GPU"`, `"Ascend"`), an
availability probe, a kernel table loaded on first use and host <-> device
transfers. Targets reach the registry through the `cadence.devices` entry-point
group (`_plugins`), cadence's own included, or through `register_target`.
The group is read once, on the first lookup of a name the registry lacks.

Nothing here imports numba, numba's CUDA support or a vendor runtime at import
time; `CUDATarget.probe` imports `numba.cuda` only when it is called.
"""

from __future__ import annotations

import abc
import importlib.util
import os
import threading
from typing import Any

import numpy as np

from .._errors import CadenceError

__all__ = [
    "CPUTarget",
    "CUDATarget",
    "Target",
    "TargetUnavailableError",
    "get_target",
    "register_target",
]


class TargetUnavailableError(CadenceError, ValueError):
    """No target has the requested name, or the named target cannot run on this machine.

    A `ValueError`, as MindSpore raises for a bad `device_target`.
    """


class Target(abc.ABC):
    """A device target; subclass it (in a plugin) to add one.

    Set `name` (MindSpore's spelling, e.g. `"Ascend"`) and optionally `aliases`,
    `install_hint` and `description`; implement `probe` and `load_kernels`.
    A target whose arrays live off the host sets `on_host = False` and
    overrides `to_device` and `to_host`; tensors then hold the target's device
    arrays and only `Tensor.asnumpy()` (and the loss the loop reports) copy to
    the host.

    Example:
        >>> import cadence
        >>> from cadence.kernels import reference_kernels
        >>> class NumpyTarget(cadence.Target):
        ...     name = "Numpy"
        ...
        ...     def probe(self):
        ...         return None
        ...
        ...     def load_kernels(self):
        ...         return reference_kernels()
        >>> NumpyTarget()
        <NumpyTarget 'Numpy'>
    """

    name: str = ""
    aliases: tuple[str, ...] = ()
    description: str = ""
    """One line for `cadence targets`."""
    install_hint: str = ""
    """How to make the target available, appended to "unavailable" errors."""
    on_host: bool = True
    """Whether the target computes on numpy arrays in host memory."""
    has_kernels: bool = True
    """False for a target that can probe its hardware but has no kernel table yet."""

    def __init__(self) -> None:
        self._kernels: Any = None
        self._lock = threading.Lock()

    @abc.abstractmethod
    def probe(self) -> str | None:
        """Return why the target cannot run here, or None when it can.

        Called when the target is selected and by `cadence targets`; keep it
        cheap and import no native code unless the cheap checks pass.
        """

    @abc.abstractmethod
    def load_kernels(self) -> Any:
        """Import and return the kernel table: an object with one function per `KERNEL_NAMES` entry."""

    @property
    def kernels(self) -> Any:
        """The kernel table, loaded on first access."""
        kernels = self._kernels
        if kernels is None:
            with self._lock:
                if self._kernels is None:
                    self._kernels = self.load_kernels()
                kernels = self._kernels
        return kernels

    def devices(self) -> tuple[str, ...]:
        """Return the names of the devices the probe found (empty when unknown)."""
        return ()

    def to_device(self, array: np.ndarray[Any, Any]) -> Any:
        """Return `array` as this target's array (host targets: the array itself)."""
        return array

    def to_host(self, data: Any) -> np.ndarray[Any, Any]:
        """Return this target's array `data` as a numpy array (a copy for device targets)."""
        return np.asarray(data)

    def configure_threads(self, num_threads: int) -> None:  # noqa: B027 - optional hook
        """Limit the threads the target's kernels use together (default: nothing to do)."""

    def sum_gradients(self, acc: Any, grad: Any, reuse: bool) -> Any:
        """Return acc + grad, two gradients of one tensor the backward pass accumulates.

        `reuse`: acc belongs to the caller alone (a sum it made before), so the
        result may be written into it. The default adds with `+`.
        """
        return acc + grad

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class CPUTarget(Target):
    """The built-in CPU target: numba kernels plus numpy's BLAS for matmuls.

    The numba kernels run between BLAS calls, on the calling thread, or split by
    rows over as many threads as BLAS is allowed with BLAS on one thread
    meanwhile (`cadence.kernels._parallel`), so at most `num_threads` threads
    compute at any time.
    """

    name = "CPU"
    description = "numba kernels and numpy's BLAS on the host"

    def probe(self) -> str | None:
        """Return None: the CPU is always available."""
        return None

    def load_kernels(self) -> Any:
        """Return `cadence.kernels.cpu_kernels()` (imports numba); keep freed host memory for reuse."""
        from cadence.kernels import cpu_kernels

        from ._host_memory import keep_freed_memory

        keep_freed_memory()
        return cpu_kernels()

    def sum_gradients(self, acc: Any, grad: Any, reuse: bool) -> Any:
        """Return acc + grad, the rows split over the kernel threads (written into acc when `reuse`).

        ResNet-18's shortcuts sum two gradients of every block input (8 MiB each in
        its first stage at batch 32): added with `+`, they ran on one thread.
        """
        same = (
            isinstance(acc, np.ndarray)
            and isinstance(grad, np.ndarray)
            and acc.shape == grad.shape
            and acc.dtype == grad.dtype
        )
        if not same:
            return acc + grad
        from cadence.kernels._parallel import add_into

        out = acc if reuse and acc.flags.writeable else np.empty_like(acc)
        return add_into(acc, grad, out)

    def devices(self) -> tuple[str, ...]:
        """Return one entry naming the host's logical CPU count."""
        return (f"host ({os.cpu_count() or 1} logical CPUs)",)

    def configure_threads(self, num_threads: int) -> None:
        """Limit BLAS to `num_threads` threads (the numba loops split over threads read the same limit)."""
        try:
            from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
        except ImportError:  # pragma: no cover - threadpoolctl is a dependency
            os.environ["OPENBLAS_NUM_THREADS"] = str(num_threads)
            return
        # Loads scipy's BLAS too (the one numba's loops call), so that the limit covers it.
        import cadence.kernels._parallel  # noqa: F401

        global _BLAS_LIMIT
        _BLAS_LIMIT = threadpool_limits(limits=num_threads, user_api="blas")


class CUDATarget(Target):
    """The built-in GPU target: `numba.cuda` kernels; tensors hold device arrays.

    Available when numba's CUDA support finds a GPU and driver, or when
    numba's CUDA simulator is on (`NUMBA_ENABLE_CUDASIM=1` set before numba
    is imported), which runs the same kernels slowly on the CPU for testing.
    """

    name = "GPU"
    aliases = ("cuda",)
    description = "numba.cuda kernels on an NVIDIA GPU (or numba's CUDA simulator)"
    install_hint = (
        "install cadence[cuda] (numba-cuda) and an NVIDIA driver; "
        "for tests without a GPU set NUMBA_ENABLE_CUDASIM=1 before starting Python"
    )
    on_host = False

    def __init__(self) -> None:
        super().__init__()
        self._probed: tuple[str | None, tuple[str, ...]] | None = None

    def probe(self) -> str | None:
        """Return None when numba's CUDA support sees a GPU (or runs the simulator), else why not.

        Imports `numba.cuda` (not at `import cadence`, only here); the result is cached.
        """
        if self._probed is None:
            self._probed = _probe_cuda()
        return self._probed[0]

    def devices(self) -> tuple[str, ...]:
        """Return the GPU names numba reports (`"simulator"` under the CUDA simulator)."""
        if self._probed is None:
            self.probe()
        assert self._probed is not None
        return self._probed[1]

    def load_kernels(self) -> Any:
        """Return `cadence.kernels.cuda_kernels()` (imports numba.cuda)."""
        from cadence.kernels import cuda_kernels

        return cuda_kernels()

    def to_device(self, array: np.ndarray[Any, Any]) -> Any:
        """Copy `array` to the GPU."""
        return self.kernels.to_device(array)

    def to_host(self, data: Any) -> np.ndarray[Any, Any]:
        """Copy a device array to the host (numpy arrays pass through)."""
        return self.kernels.to_host(data)  # type: ignore[no-any-return]


def _probe_cuda() -> tuple[str | None, tuple[str, ...]]:
    if (
        importlib.util.find_spec("numba") is None
    ):  # pragma: no cover - numba is a dependency
        return "numba is not installed.", ()
    try:
        config: Any = importlib.import_module("numba").config
        cuda: Any = importlib.import_module("numba.cuda")  # untyped
    except Exception as exc:  # pragma: no cover - depends on the CUDA stack
        return f"importing numba.cuda failed ({type(exc).__name__}: {exc}).", ()
    if config.ENABLE_CUDASIM:
        return None, ("CUDA simulator",)
    try:
        if not cuda.is_available():
            where = (
                "numba-cuda"
                if importlib.util.find_spec("numba_cuda") is not None
                else "numba's built-in CUDA support (numba-cuda is not installed)"
            )
            return f"{where} found no usable GPU or CUDA driver.", ()
        return None, tuple(
            str(g.name.decode() if isinstance(g.name, bytes) else g.name)
            for g in cuda.gpus
        )
    except Exception as exc:  # pragma: no cover - needs a broken driver
        return (
            f"numba.cuda failed while looking for a GPU ({type(exc).__name__}: {exc}).",
            (),
        )


_BLAS_LIMIT: Any = None
# Lower-cased name or alias -> target. Filled by `_plugins` (entry points) and `register_target`.
_REGISTRY: dict[str, Target] = {}
# Lower-cased target name -> where it came from, for messages and `cadence targets`.
_ORIGINS: dict[str, str] = {}
_REGISTRY_LOCK = threading.RLock()


def register_target(target: Target, *, origin: str = "register_target()") -> None:
    """Add `target` under its name and aliases (case-insensitive); a later registration replaces one.

    Plugins normally do not call this: they declare an entry point in the
    `cadence.devices` group, which cadence loads on the first lookup of an
    unknown name. Call it to add a target by hand (e.g. with plugin autoload off).

    Raises:
        TypeError: If `target` is not a `Target` instance.
        ValueError: If its `name` is empty or not a str.
    """
    if not isinstance(target, Target):
        raise TypeError(
            f"`target` must be a cadence Target instance, but got {target!r}."
        )
    name: Any = target.name
    if not isinstance(name, str) or not name:
        raise ValueError(
            f"A Target needs a non-empty str `name`, but {target!r} has {target.name!r}."
        )
    with _REGISTRY_LOCK:
        for key in (target.name, *target.aliases):
            _REGISTRY[key.lower()] = target
        _ORIGINS[target.name.lower()] = origin


def registered_targets() -> list[tuple[Target, str]]:
    """Return (target, origin) for each registered target, sorted by name (no plugin loading)."""
    with _REGISTRY_LOCK:
        unique = {t.name.lower(): t for t in _REGISTRY.values()}
        return [(unique[k], _ORIGINS.get(k, "?")) for k in sorted(unique)]


def lookup(name: str) -> Target | None:
    """Return the target registered under `name` (case-insensitive), loading plugins on a miss."""
    target = _REGISTRY.get(name.lower())
    if target is None:
        from ._plugins import load_plugins

        load_plugins()
        target = _REGISTRY.get(name.lower())
    return target


def get_target(name: str) -> Target:
    """Return the target called `name` (case-insensitive) after checking it can run here.

    Raises:
        TypeError: If `name` is not a str.
        TargetUnavailableError: If no target has that name (the message lists the
            known ones and plugins that failed to load), or the target cannot run
            here (the message says what is missing and how to get it).
    """
    if not isinstance(name, str):
        raise TypeError(
            f"`device_target` must be a str such as 'CPU', but got {name!r}."
        )
    target = lookup(name)
    if target is None:
        raise TargetUnavailableError(_unknown_message(name))
    reason = target.probe()
    if reason is not None:
        hint = f" To use it: {target.install_hint}." if target.install_hint else ""
        raise TargetUnavailableError(
            f"The device target {target.name!r} is not available on this machine: {reason}{hint}"
        )
    if not target.has_kernels:
        found = ", ".join(target.devices()) or "its devices"
        raise TargetUnavailableError(
            f"The device target {target.name!r} found {found}, but it has no kernel table yet, "
            "so nothing can run on it; see docs/targets.md."
        )
    return target


def _unknown_message(name: str) -> str:
    from ._plugins import GROUP, plugin_failures

    known = ", ".join(repr(t.name) for t, _ in registered_targets()) or "none"
    msg = (
        f"No device target named {name!r}. Known targets: {known}. Device plugins register "
        f"through the {GROUP!r} entry point group; is the plugin installed?"
    )
    failures = plugin_failures()
    if failures:
        msg += (
            " Plugins that failed to load: "
            + "; ".join(f.describe() for f in failures)
            + "."
        )
    return msg
