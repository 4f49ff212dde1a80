"""The parameter-server context: `set_ps_context`, `get_ps_context`, `reset_ps_context`.

MindSpore's parameter-server mode keeps (embedding) parameters on separate
server processes that workers push gradients to and pull values from. cadence
has no parameter server: it trains data-parallel, every rank holding the whole
model and gradients averaged by all-reduce (`nn.DistributedGradReducer`). So the
settings are type-checked and recorded, and turning the mode on fails at once
with that reason, rather than training silently without servers.
"""

from __future__ import annotations

import threading
from typing import Any, Final

__all__ = ["PS_UNAVAILABLE", "get_ps_context", "reset_ps_context", "set_ps_context"]

PS_UNAVAILABLE: Final = (
    "cadence has no parameter server: it trains data-parallel, each rank holding every "
    "parameter and gradients averaged by all-reduce (set_auto_parallel_context("
    "parallel_mode=ParallelMode.DATA_PARALLEL) and nn.DistributedGradReducer)"
)

# MindSpore 2.10's keys and defaults; the passwords can be set but not read back.
_DEFAULTS: Final[dict[str, Any]] = {
    "server_mode": "",
    "ms_role": "MS_WORKER",
    "enable_ps": False,
    "worker_num": 0,
    "server_num": 0,
    "scheduler_ip": "",
    "scheduler_port": 0,
    "enable_ssl": False,
    "config_file_path": "",
}
_WRITE_ONLY: Final = ("client_password", "server_password")
_lock = threading.Lock()
_settings: dict[str, Any] = dict(_DEFAULTS)


def set_ps_context(**kwargs: Any) -> None:
    """Record parameter-server settings (MindSpore's keys); `enable_ps=True` raises NotImplementedError.

    Raises:
        ValueError: For an unknown key.
        TypeError: For a value of the wrong type (`worker_num="2"`).
        NotImplementedError: For `enable_ps=True` (see the module's docstring).
    """
    for key, value in kwargs.items():
        if key not in _DEFAULTS and key not in _WRITE_ONLY:
            raise ValueError(
                f"For 'set_ps_context', the argument '{key}' is not a parameter-server setting; "
                f"expected one of {sorted([*_DEFAULTS, *_WRITE_ONLY])}."
            )
        kind = type(_DEFAULTS.get(key, ""))
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(
                f"For 'set_ps_context', the argument '{key}' must be of type {kind.__name__!r}, "
                f"but got {value!r} of type {type(value).__name__!r}."
            )
    if kwargs.get("enable_ps"):
        raise NotImplementedError(
            f"For 'set_ps_context', enable_ps=True: {PS_UNAVAILABLE}."
        )
    with _lock:
        _settings.update((k, v) for k, v in kwargs.items() if k in _DEFAULTS)


def get_ps_context(attr_key: str) -> Any:
    """The recorded value of one parameter-server setting."""
    if attr_key not in _DEFAULTS:
        raise ValueError(
            f"For 'get_ps_context', the argument 'attr_key' must be one of {sorted(_DEFAULTS)}, "
            f"but got {attr_key!r}."
        )
    with _lock:
        return _settings[attr_key]


def reset_ps_context() -> None:
    """Restore every parameter-server setting to its default."""
    with _lock:
        _settings.clear()
        _settings.update(_DEFAULTS)
