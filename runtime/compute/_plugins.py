"""Device plugins: targets from the `cadence.devices` entry-point group, loaded once and lazily.

An entry point names a `Target` subclass, a `Target` instance, or a callable
taking no arguments that returns one:

    [project.entry-points."cadence.devices"]
    ascend = "cadence_ascend:AscendTarget"

cadence's own `CPU` and `GPU` targets are declared the same way in its
`pyproject.toml`. The group is read on the first lookup of a target name the
registry lacks, never at `import cadence`. A plugin that fails to load (import
error, wrong object, raising constructor) is recorded, not raised: lookups and
`cadence targets` show the failure, and `import cadence` never breaks.

`CADENCE_TARGET_AUTOLOAD=0` turns third-party plugins off: only cadence's own
entry points load (register other targets with `register_target`).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._targets import CPUTarget, Target, register_target, registered_targets

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["AUTOLOAD_ENV", "GROUP", "PluginFailure", "load_plugins", "plugin_failures"]

GROUP = "cadence.devices"
AUTOLOAD_ENV = "CADENCE_TARGET_AUTOLOAD"
_OWN_DISTRIBUTION = "cadence"


@dataclass(frozen=True)
class PluginFailure:
    """An entry point of the `cadence.devices` group that did not yield a target."""

    entry_point: str
    """`name = module:attr`, as declared."""
    distribution: str
    """`name version` of the distribution that declared it."""
    error: str
    """`ExceptionType: message`."""

    def describe(self) -> str:
        """Return a one-line description for error messages."""
        return f"{self.entry_point!r} from {self.distribution} ({self.error})"


_lock = threading.Lock()
_done = threading.Event()
_failures: list[PluginFailure] = []


def autoload_enabled() -> bool:
    """Return whether third-party plugins load (`CADENCE_TARGET_AUTOLOAD` is not "0"/"false"/"no")."""
    return os.environ.get(AUTOLOAD_ENV, "1").strip().lower() not in (
        "0",
        "false",
        "no",
        "off",
    )


def load_plugins() -> None:
    """Register the targets of every entry point in the group; runs once per process."""
    if _done.is_set():
        return
    with _lock:
        if _done.is_set():
            return
        try:
            _load_all()
        finally:
            _done.set()


def plugin_failures() -> list[PluginFailure]:
    """Return the entry points that failed to load, in discovery order."""
    return list(_failures)


def _load_all() -> None:
    from importlib.metadata import entry_points

    everyone = autoload_enabled()
    seen: set[tuple[str, str, str]] = set()
    for ep in sorted(entry_points(group=GROUP), key=_own_first):
        dist = _distribution(ep)
        if not everyone and dist.split(" ")[0] != _OWN_DISTRIBUTION:
            continue
        if (dist, ep.name, ep.value) in seen:  # one distribution seen twice on sys.path
            continue
        seen.add((dist, ep.name, ep.value))
        declared = f"{ep.name} = {ep.value}"
        try:
            target = _resolve(ep.load())
        except Exception as exc:  # a broken plugin must not break cadence
            _failures.append(
                PluginFailure(declared, dist, f"{type(exc).__name__}: {exc}")
            )
            continue
        register_target(target, origin=f"{dist}, entry point {declared!r}")
    if not any(t.name == "CPU" for t, _ in registered_targets()):
        # cadence's own metadata is missing (e.g. run from a source tree): keep CPU usable.
        register_target(
            CPUTarget(), origin="built in (cadence's entry points were not found)"
        )


def _own_first(ep: EntryPoint) -> tuple[bool, str]:
    # cadence's entry points first, so a third-party target with the same name replaces it.
    return (_distribution(ep).split(" ")[0] != _OWN_DISTRIBUTION, ep.name)


def _distribution(ep: EntryPoint) -> str:
    dist = ep.dist
    if dist is None:
        return "an unknown distribution"
    return f"{dist.metadata['Name']} {dist.version}"


def _resolve(obj: Any) -> Target:
    if (isinstance(obj, type) and issubclass(obj, Target)) or (
        not isinstance(obj, Target) and callable(obj)
    ):
        obj = obj()
    if not isinstance(obj, Target):
        raise TypeError(
            f"the entry point must name a cadence Target subclass, instance, or a callable "
            f"returning one, but it gave {obj!r}"
        )
    return obj
