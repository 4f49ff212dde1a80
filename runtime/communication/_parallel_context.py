"""The auto-parallel context: `set_auto_parallel_context`, `get_auto_parallel_context`, `ParallelMode`.

One module holds the parallel settings so that every facade (`cadence`,
`cadence.context`, `cadence.train`) re-exports the same functions. cadence
trains data-parallel only: `DATA_PARALLEL` reduces gradients across the ranks
started by `cadence.communication.init()`; `STAND_ALONE` (the default) is one
process. The other MindSpore modes split a model across devices, which a
numpy/numba runtime has no reason to do; asking for them fails at once.
"""

from __future__ import annotations

import threading
from typing import Any, Final

from . import _world

__all__ = [
    "ParallelMode",
    "device_number",
    "get_auto_parallel_context",
    "is_data_parallel",
    "parallel_mode",
    "reset_auto_parallel_context",
    "set_auto_parallel_context",
]


class ParallelMode:
    """MindSpore's parallel mode names (plain strings, so they compare with `"data_parallel"`)."""

    STAND_ALONE: Final = "stand_alone"
    DATA_PARALLEL: Final = "data_parallel"
    HYBRID_PARALLEL: Final = "hybrid_parallel"
    SEMI_AUTO_PARALLEL: Final = "semi_auto_parallel"
    AUTO_PARALLEL: Final = "auto_parallel"
    MODE_LIST: Final = (
        "stand_alone",
        "data_parallel",
        "hybrid_parallel",
        "semi_auto_parallel",
        "auto_parallel",
    )


_SUPPORTED_MODES: Final = (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL)

# Keys cadence acts on, then MindSpore keys that are recorded so that scripts
# setting them run unchanged (they tune model-parallel features cadence lacks).
_DEFAULTS: Final[dict[str, Any]] = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": 1,
    "global_rank": 0,
    "parameter_broadcast": False,
    "full_batch": False,
    "gradient_fp32_sync": True,
    "loss_repeated_mean": True,
    "enable_parallel_optimizer": False,
    "all_reduce_fusion_config": [],
    "pipeline_stages": 1,
    "grad_accumulation_step": 1,
    "search_mode": "recursive_programming",
    "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "",
    "dataset_strategy": "data_parallel",
}


def _fresh_defaults() -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, list) else v) for k, v in _DEFAULTS.items()}


_lock = threading.Lock()
_values: dict[str, Any] = _fresh_defaults()
# device_num follows the group size until a script sets it.
_device_num_set = False


def _received(value: Any) -> str:
    return f"{value!r} of type {type(value).__name__!r}"


def _check(key: str, value: Any) -> Any:
    where = "For 'set_auto_parallel_context'"
    if key == "parallel_mode":
        if not isinstance(value, str):
            raise TypeError(
                f"{where}, the argument 'parallel_mode' must be a str (a ParallelMode name), but got {_received(value)}."
            )
        if value not in ParallelMode.MODE_LIST:
            raise ValueError(
                f"{where}, the argument 'parallel_mode' must be one of {list(ParallelMode.MODE_LIST)}, but got {value!r}."
            )
        if value not in _SUPPORTED_MODES:
            raise ValueError(
                f"{where}, the argument 'parallel_mode' must be {ParallelMode.STAND_ALONE!r} or "
                f"{ParallelMode.DATA_PARALLEL!r}: cadence trains data-parallel only, but got {value!r}."
            )
        return value
    if key in ("gradients_mean", "parameter_broadcast", "full_batch"):
        if not isinstance(value, bool):
            raise TypeError(
                f"{where}, the argument {key!r} must be a bool, but got {_received(value)}."
            )
        return value
    if key in ("device_num", "global_rank"):
        low = 1 if key == "device_num" else 0
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(
                f"{where}, the argument {key!r} must be an int >= {low}, but got {_received(value)}."
            )
        if value < low:
            raise ValueError(
                f"{where}, the argument {key!r} must be an int >= {low}, but got {value!r}."
            )
        return value
    return value


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set parallel settings, as `mindspore.set_auto_parallel_context`.

    Args:
        **kwargs: `parallel_mode` (`ParallelMode.STAND_ALONE` or
            `ParallelMode.DATA_PARALLEL`), `gradients_mean` (average the reduced
            gradients instead of summing them), `device_num` (the number of ranks
            gradients are averaged over; default the group size), `global_rank`,
            `parameter_broadcast`, and MindSpore's other keys, which are recorded.

    Raises:
        ValueError: For an unknown key, a model-parallel mode or a bad value.
        TypeError: For a value of the wrong type.

    Example:
        >>> import cadence as ms
        >>> ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        >>> ms.get_auto_parallel_context("parallel_mode")
        'data_parallel'
        >>> ms.reset_auto_parallel_context()
    """
    global _device_num_set
    checked = {}
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(
                f"For 'set_auto_parallel_context', the keyword argument {key!r} is not recognized; "
                f"valid keys: {sorted(_DEFAULTS)}."
            )
        checked[key] = _check(key, value)
    with _lock:
        _values.update(checked)
        if "device_num" in checked:
            _device_num_set = True


def get_auto_parallel_context(attr_key: str) -> Any:
    """Return one parallel setting, as `mindspore.get_auto_parallel_context`.

    `device_num` and `global_rank` follow `cadence.communication.init()` until
    they are set explicitly.

    Raises:
        ValueError: If `attr_key` is not a parallel setting.
    """
    key: Any = attr_key  # checked at run time: callers may pass anything
    if not isinstance(key, str) or key not in _DEFAULTS:
        raise ValueError(
            f"For 'get_auto_parallel_context', the argument 'attr_key' must be one of {sorted(_DEFAULTS)}, "
            f"but got {attr_key!r}."
        )
    with _lock:
        value = _values[attr_key]
        explicit = _device_num_set
    if attr_key in ("device_num", "global_rank") and not (
        attr_key == "device_num" and explicit
    ):
        world = _world.current()
        if world is not None:
            return world.size if attr_key == "device_num" else world.rank
    return list(value) if isinstance(value, list) else value


def reset_auto_parallel_context() -> None:
    """Restore every parallel setting to its default, as `mindspore.reset_auto_parallel_context`."""
    global _values, _device_num_set
    with _lock:
        _values = _fresh_defaults()
        _device_num_set = False


def is_data_parallel() -> bool:
    """Return whether gradients are reduced across ranks: data-parallel mode after `init()`."""
    if _values["parallel_mode"] != ParallelMode.DATA_PARALLEL:
        return False
    return _world.current() is not None


def device_number() -> int:
    """Return `cb_params.device_number` as MindSpore computes it: 1 stand-alone, else `device_num`."""
    if _values["parallel_mode"] == ParallelMode.STAND_ALONE:
        return 1
    return int(get_auto_parallel_context("device_num"))


def parallel_mode() -> str:
    """Return the parallel mode (`cb_params.parallel_mode`)."""
    return str(_values["parallel_mode"])
