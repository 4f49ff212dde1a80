"""The `Ascend` target: a device plugin that finds Huawei's CANN runtime, registered by entry point.

cadence declares it in its own `pyproject.toml` exactly as a third-party plugin
would (`ascend = "cadence.compute._ascend:AscendTarget"`) and it builds only on
what a plugin uses, `Target` and `TargetUnavailableError` (imported from their
module here, to keep the compute package's imports inside the package).
Importing this module imports nothing of CANN.

The probe runs in cheap steps and stops at the first that fails, naming what
is missing:

1. the CANN environment variables (`ASCEND_HOME_PATH` or `ASCEND_TOOLKIT_HOME`,
   set by `source <cann>/set_env.sh`);
2. a module named `acl` on the path, found without importing it;
3. only then `import acl`, checking it really is CANN's pyACL (`acl.init`,
   `acl.rt.get_device_count`): the unrelated PyPI package `acl` has the
   same module name;
4. `acl.init()` and `acl.rt.get_device_count()`, whose results give the
   device count and names (`acl.get_soc_name()`), reported by `devices()`.

There is no Ascend kernel table: no compute path has run on Ascend hardware,
so selecting the target fails even where CANN is found (see docs/targets.md,
"What an Ascend kernel table needs").
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import threading
from typing import Any

from ._targets import Target, TargetUnavailableError

__all__ = ["ENV_VARS", "AscendTarget"]

ENV_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
# pyACL return code of a second `acl.init()` in one process ("repeat initialize").
_ACL_REPEAT_INIT = 100002
_SET_ENV = "source <CANN install dir>/set_env.sh (e.g. /usr/local/Ascend/ascend-toolkit/set_env.sh)"


class AscendTarget(Target):
    """Huawei Ascend NPUs through CANN's pyACL; probes only (no kernel table yet)."""

    name = "Ascend"
    aliases = ("npu",)
    description = "Huawei Ascend NPU through CANN (probe only: no kernels yet)"
    install_hint = f"install Huawei's CANN toolkit and driver, then {_SET_ENV}"
    on_host = False
    has_kernels = False

    def __init__(self) -> None:
        super().__init__()
        self._probe_lock = threading.Lock()
        self._result: tuple[str | None, tuple[str, ...]] | None = None

    def probe(self) -> str | None:
        """Return None when CANN is usable with at least one device, else what is missing (cached)."""
        with self._probe_lock:
            if self._result is None:
                self._result = _probe()
            return self._result[0]

    def devices(self) -> tuple[str, ...]:
        """Return one name per Ascend device the probe found."""
        self.probe()
        assert self._result is not None
        return self._result[1]

    def load_kernels(self) -> Any:
        """Raise: cadence has no Ascend kernels (nothing here can run them)."""
        raise TargetUnavailableError(
            "cadence has no Ascend kernel table yet; see docs/targets.md, "
            "'What an Ascend kernel table needs'."
        )


def _probe() -> tuple[str | None, tuple[str, ...]]:
    home = next((os.environ[v] for v in ENV_VARS if os.environ.get(v)), None)
    if home is None:
        return (
            f"the CANN environment is not set up ({' and '.join(ENV_VARS)} are unset).",
            (),
        )
    if not _findable("acl"):
        return (
            f"CANN's Python module 'acl' (pyACL) is not importable although {home!r} is set; "
            f"{_SET_ENV} adds its python/site-packages folder to PYTHONPATH.",
            (),
        )
    try:
        acl = importlib.import_module("acl")
    except Exception as exc:
        return (
            f"importing CANN's 'acl' module failed ({type(exc).__name__}: {exc}).",
            (),
        )
    if not _is_pyacl(acl):
        where = getattr(acl, "__file__", None) or "an unknown location"
        return (
            f"the module 'acl' found at {where} is not CANN's pyACL (it lacks `acl.init` and "
            "`acl.rt.get_device_count`); the unrelated PyPI package 'acl' has the same name: "
            f"`pip uninstall acl`, then {_SET_ENV}.",
            (),
        )
    return _count_devices(acl)


def _findable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module in sys.modules without __spec__
        return module in sys.modules


def _is_pyacl(acl: Any) -> bool:
    rt = getattr(acl, "rt", None)
    return callable(getattr(acl, "init", None)) and callable(
        getattr(rt, "get_device_count", None)
    )


def _count_devices(acl: Any) -> tuple[str | None, tuple[str, ...]]:
    try:
        ret = acl.init()
        if ret not in (0, _ACL_REPEAT_INIT):
            return (
                f"`acl.init()` failed with error code {ret}; check the driver and CANN versions.",
                (),
            )
        count, ret = acl.rt.get_device_count()
    except Exception as exc:
        return f"pyACL raised while counting devices ({type(exc).__name__}: {exc}).", ()
    if ret != 0:
        return (
            f"`acl.rt.get_device_count()` failed with error code {ret}; is the Ascend driver loaded?",
            (),
        )
    if count < 1:
        return "CANN is installed but found no Ascend device.", ()
    soc = _soc_name(acl)
    return None, tuple(f"{soc} #{i}" for i in range(count))


def _soc_name(acl: Any) -> str:
    get = getattr(acl, "get_soc_name", None)
    try:
        name = get() if callable(get) else None
    except Exception:
        name = None
    return str(name) if name else "Ascend"
