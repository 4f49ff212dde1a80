"""`cadence targets`: list the device targets, where each comes from, and whether it runs here."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ._command import Command, arg

if TYPE_CHECKING:
    import argparse

    from ..compute._targets import Target

__all__ = ["COMMAND", "collect", "run"]


def collect() -> dict[str, Any]:
    """Return `{"targets": [...], "failed_plugins": [...], "autoload": bool}` after loading plugins."""
    from ..compute._plugins import autoload_enabled, load_plugins, plugin_failures
    from ..compute._targets import registered_targets

    load_plugins()
    return {
        "targets": [_describe(t, origin) for t, origin in registered_targets()],
        "failed_plugins": [
            {
                "entry_point": f.entry_point,
                "distribution": f.distribution,
                "error": f.error,
            }
            for f in plugin_failures()
        ],
        "autoload": autoload_enabled(),
    }


def _describe(target: Target, origin: str) -> dict[str, Any]:
    try:
        reason = target.probe()
    except Exception as exc:  # a plugin's probe must not break the listing
        reason = f"its probe raised {type(exc).__name__}: {exc}"
    runs = reason is None and target.has_kernels
    if reason is None and not target.has_kernels:
        reason = "found, but the target has no kernel table yet (nothing can run on it)"
    return {
        "name": target.name,
        "aliases": list(target.aliases),
        "description": target.description,
        "origin": origin,
        "available": runs,
        "reason": reason,
        "how_to_get_it": None if runs else (target.install_hint or None),
        "devices": list(target.devices()) if reason is None or not runs else [],
    }


def run(args: argparse.Namespace) -> int:
    """Print the targets; return 0."""
    info = collect()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    for t in info["targets"]:
        aliases = (
            f" (also {', '.join(repr(a) for a in t['aliases'])})"
            if t["aliases"]
            else ""
        )
        state = "available" if t["available"] else "not available"
        print(f"{t['name']}{aliases}: {state}")
        if t["description"]:
            print(f"  what: {t['description']}")
        print(f"  from: {t['origin']}")
        if t["devices"]:
            print(f"  devices ({len(t['devices'])}): {', '.join(t['devices'])}")
        if t["reason"]:
            print(f"  why not: {t['reason']}")
        if t["how_to_get_it"]:
            print(f"  to get it: {t['how_to_get_it']}")
    for f in info["failed_plugins"]:
        print(
            f"failed plugin {f['entry_point']!r} from {f['distribution']}: {f['error']}"
        )
    if not info["autoload"]:
        print("third-party plugins are off (CADENCE_TARGET_AUTOLOAD=0)")
    return 0


COMMAND = Command(
    name="targets",
    help="list device targets (CPU, GPU, Ascend, plugins) and whether they run here",
    description="List every device target from the 'cadence.devices' entry point group: its name, "
    "the distribution and entry point it comes from, whether it is available on this machine "
    "(and if not, why and how to get it), and plugins that failed to load. Probing GPU imports "
    "numba.cuda; probing Ascend imports CANN's pyACL only if the CANN environment is set.",
    args=(
        arg(
            "--json", action="store_true", help="print one JSON object instead of text"
        ),
    ),
    run=run,
)
