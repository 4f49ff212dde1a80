"""MindSpore's `mindspore.parallel` path: the settings of automatic (sharding) parallelism.

cadence runs data parallelism only (`cadence.communication`, `set_auto_parallel_context`);
it has no sharding planner, so `set_algo_parameters`, which tunes that planner, is
accepted and records its options. Model-zoo training scripts import and call it at
start-up on every target.

Layer rule: builds on nothing else of cadence but `cadence.validation` and `cadence._util`.
"""

from __future__ import annotations

from typing import Any

from .._util import fixup_module_metadata
from ..validation import check_bool

__all__ = ["get_algo_parameters", "set_algo_parameters"]

# MindSpore's options of the sharding planner, with their defaults.
_ALGO_DEFAULTS: dict[str, bool] = {
    "fully_use_devices": True,
    "elementwise_op_strategy_follow": False,
    "enable_algo_approxi": False,
    "tensor_slice_align_enable": False,
}
_algo = dict(_ALGO_DEFAULTS)


def set_algo_parameters(**kwargs: Any) -> None:
    """Record the sharding planner's options (`elementwise_op_strategy_follow=True`, ...); they change nothing.

    Raises:
        ValueError: An option MindSpore does not have.
        TypeError: An option that is not a bool.
    """
    for name, value in kwargs.items():
        if name not in _ALGO_DEFAULTS:
            raise ValueError(
                f"For 'set_algo_parameters', the argument {name!r} is not an option; the options "
                f"are {sorted(_ALGO_DEFAULTS)}."
            )
        check_bool(value, name, "set_algo_parameters")
    _algo.update(kwargs)


def get_algo_parameters(attr_key: str) -> bool:
    """Return the recorded value of one option of `set_algo_parameters`."""
    if attr_key not in _algo:
        raise ValueError(
            f"For 'get_algo_parameters', the argument 'attr_key' must be one of {sorted(_algo)}, "
            f"but got {attr_key!r}."
        )
    return _algo[attr_key]


fixup_module_metadata(__name__, globals())
del fixup_module_metadata
