"""The auto-parallel context: `ParallelMode` and `set/get/reset_auto_parallel_context`.

This module holds the names and the single-process behaviour: every key MindSpore
documents is validated and recorded, and in one process every mode trains as
`stand_alone` does (one process holds the whole batch, so there is nothing to
reduce). Data-parallel training over several processes reads these values.
"""

from __future__ import annotations

import threading
from typing import Any, Final

__all__ = [
    "ParallelMode",
    "get_auto_parallel_context",
    "reset_auto_parallel_context",
    "set_auto_parallel_context",
]


class ParallelMode:
    """The parallel modes, as strings, with MindSpore's names (`ParallelMode.DATA_PARALLEL`)."""

    STAND_ALONE: Final = "stand_alone"
    DATA_PARALLEL: Final = "data_parallel"
    HYBRID_PARALLEL: Final = "hybrid_parallel"
    SEMI_AUTO_PARALLEL: Final = "semi_auto_parallel"
    AUTO_PARALLEL: Final = "auto_parallel"
    MODE_LIST: Final = (
        STAND_ALONE,
        DATA_PARALLEL,
        HYBRID_PARALLEL,
        SEMI_AUTO_PARALLEL,
        AUTO_PARALLEL,
    )


# key: (default, accepted types). The keys of MindSpore 2.x's documentation.
_KEYS: Final[dict[str, tuple[Any, tuple[type, ...]]]] = {
    "device_num": (1, (int,)),
    "global_rank": (0, (int,)),
    "gradients_mean": (False, (bool,)),
    "gradient_fp32_sync": (True, (bool,)),
    "loss_repeated_mean": (True, (bool,)),
    "parallel_mode": (ParallelMode.STAND_ALONE, (str,)),
    "search_mode": ("recursive_programming", (str,)),
    "auto_parallel_search_mode": ("recursive_programming", (str,)),
    "parameter_broadcast": (False, (bool,)),
    "strategy_ckpt_load_file": ("", (str,)),
    "strategy_ckpt_save_file": ("", (str,)),
    "strategy_ckpt_config": (None, (dict,)),
    "full_batch": (False, (bool,)),
    "dataset_strategy": ("data_parallel", (str, tuple)),
    "enable_parallel_optimizer": (False, (bool,)),
    "parallel_optimizer_config": (None, (dict,)),
    "enable_alltoall": (False, (bool,)),
    "all_reduce_fusion_config": ((), (list, tuple)),
    "pipeline_stages": (1, (int,)),
    "pipeline_config": (None, (dict,)),
    "grad_accumulation_step": (1, (int,)),
    "comm_fusion": (None, (dict,)),
    "optimizer_weight_shard_size": (-1, (int,)),
    "optimizer_weight_shard_aggregated_save": (False, (bool,)),
    "sharding_propagation": (False, (bool,)),
    "group_ckpt_save_file": ("", (str,)),
}
_POSITIVE: Final = ("device_num", "pipeline_stages", "grad_accumulation_step")

_lock = threading.Lock()
_values: dict[str, Any] = {key: default for key, (default, _) in _KEYS.items()}


def _check(key: str, value: Any) -> None:
    if key not in _KEYS:
        raise ValueError(
            f"For 'set_auto_parallel_context', the keyword argument {key!r} is not recognized. "
            f"Valid keys: {sorted(_KEYS)}."
        )
    types = _KEYS[key][1]
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        expected = " or ".join(
            "a bool" if t is bool else "an int" if t is int else f"a {t.__name__}"
            for t in types
        )
        raise TypeError(
            f"For 'set_auto_parallel_context', the argument {key!r} must be {expected}, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
    if key == "parallel_mode" and value not in ParallelMode.MODE_LIST:
        raise ValueError(
            f"For 'set_auto_parallel_context', the argument 'parallel_mode' must be one of "
            f"{list(ParallelMode.MODE_LIST)}, but got {value!r}."
        )
    if key in _POSITIVE and isinstance(value, int) and value < 1:
        raise ValueError(
            f"For 'set_auto_parallel_context', the argument {key!r} must be an int >= 1, but got {value!r}."
        )


def set_auto_parallel_context(**kwargs: Any) -> None:
    """Set auto-parallel attributes, as `mindspore.set_auto_parallel_context`.

    Args:
        **kwargs: `parallel_mode` (a `ParallelMode` value), `gradients_mean`,
            `device_num`, `global_rank` and the other keys MindSpore documents.
            All are validated, then recorded; nothing is set if one is wrong.

    Raises:
        ValueError: For an unknown key, an unknown mode or a count < 1.
        TypeError: For a value of the wrong type.

    Example:
        >>> from cadence import context
        >>> context.set_auto_parallel_context(parallel_mode=context.ParallelMode.DATA_PARALLEL, gradients_mean=True)
        >>> context.get_auto_parallel_context("parallel_mode")
        'data_parallel'
        >>> context.reset_auto_parallel_context()
    """
    for key, value in kwargs.items():
        _check(key, value)
    with _lock:
        _values.update(kwargs)


def get_auto_parallel_context(attr_key: str) -> Any:
    """Return one auto-parallel attribute, as `mindspore.get_auto_parallel_context`.

    Raises:
        ValueError: If `attr_key` is not an auto-parallel attribute.
    """
    if attr_key not in _values:
        raise ValueError(
            f"For 'get_auto_parallel_context', the argument 'attr_key' must be one of "
            f"{sorted(_values)}, but got {attr_key!r}."
        )
    return _values[attr_key]


def reset_auto_parallel_context() -> None:
    """Restore every auto-parallel attribute to its default (`stand_alone`, one device)."""
    with _lock:
        _values.clear()
        _values.update({key: default for key, (default, _) in _KEYS.items()})
