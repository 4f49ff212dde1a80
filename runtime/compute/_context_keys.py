"""The keys `set_context` accepts: MindSpore 2.x's documented keys, their defaults and types.

Only `mode`, `device_target` and `runtime_num_threads` change what cadence does
(see `_context`). Every other key is checked for its type, recorded and readable
with `get_context`, because scripts written for MindSpore set them and some read
them back; a key that means nothing on cadence (graph dumps, Ascend tuning, memory
pools) is a documented no-op. The list is the union over MindSpore 2.0 to 2.10,
so scripts written for an older 2.x release keep running; an unknown key still
raises ValueError as in MindSpore.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["CONTEXT_KEYS", "READ_ONLY_KEYS", "check_context_value"]

# key: (default, accepted types as MindSpore checks them). None as a default means
# "not set" (MindSpore picks a value at run time).
CONTEXT_KEYS: Final[dict[str, tuple[Any, tuple[type, ...]]]] = {
    # acted on by cadence
    "mode": (1, (int,)),
    "device_target": ("CPU", (str,)),
    "runtime_num_threads": (None, (int,)),
    # system
    "device_id": (0, (int,)),
    "max_device_memory": ("1024GB", (str,)),
    "variable_memory_max_size": ("0", (str,)),
    "mempool_block_size": ("1GB", (str,)),
    "op_timeout": (900, (int,)),
    "memory_optimize_level": ("O0", (str,)),
    "memory_offload": ("OFF", (str,)),
    # debugging
    "save_graphs": (False, (bool, int)),
    "save_graphs_path": (".", (str,)),
    "enable_dump": (False, (bool,)),
    "save_dump_path": (".", (str,)),
    "deterministic": ("OFF", (str,)),
    "print_file_path": ("", (str,)),
    "env_config_path": ("", (str,)),
    "precompile_only": (False, (bool,)),
    "reserve_class_name_in_scope": (True, (bool,)),
    "pynative_synchronize": (False, (bool,)),
    "debug_level": (None, (int,)),
    "check_bprop": (False, (bool,)),
    # execution and compilation
    "enable_graph_kernel": (False, (bool,)),
    "graph_kernel_flags": ("", (str,)),
    "enable_reduce_precision": (True, (bool,)),
    "enable_auto_mixed_precision": (False, (bool,)),
    "enable_sparse": (False, (bool,)),
    "grad_for_scalar": (False, (bool,)),
    "max_call_depth": (1000, (int,)),
    "enable_compile_cache": (False, (bool,)),
    "compile_cache_path": (".", (str,)),
    "inter_op_parallel_num": (0, (int,)),
    "disable_format_transform": (False, (bool,)),
    "support_binary": (False, (bool,)),
    "jit_syntax_level": (None, (int,)),
    "jit_config": (None, (dict,)),
    "exec_order": ("bfs", (str,)),
    "enable_profiling": (False, (bool,)),
    "profiling_options": ("", (str,)),
    # device specific (Ascend / GPU tuning)
    "aoe_tune_mode": ("", (str,)),
    "aoe_config": (None, (dict,)),
    "auto_tune_mode": ("NO_TUNE", (str,)),
    "ascend_config": (None, (dict,)),
    "gpu_config": (None, (dict,)),
}

# Readable with `get_context` but not settable: `enable_ge` is False outside Ascend's
# graph engine, which is what MindSpore reports on CPU and GPU.
READ_ONLY_KEYS: Final[dict[str, Any]] = {"enable_ge": False}


def check_context_value(key: str, value: Any) -> None:
    """Raise ValueError for a key `set_context` does not know, TypeError for a value of the wrong type."""
    if key not in CONTEXT_KEYS:
        hint = (
            f" `{key}` can be read with `get_context` but not set."
            if key in READ_ONLY_KEYS
            else ""
        )
        raise ValueError(
            f"For 'set_context', the keyword argument {key!r} is not recognized.{hint} "
            f"Valid keys: {sorted(CONTEXT_KEYS)}."
        )
    types = CONTEXT_KEYS[key][1]
    # bool is an int in Python, but MindSpore's type check rejects it where only int is meant.
    wrong_bool = isinstance(value, bool) and bool not in types
    if value is not None and (wrong_bool or not isinstance(value, types)):
        expected = " or ".join(t.__name__ for t in types)
        raise TypeError(
            f"For 'set_context', the argument {key!r} must be {expected}, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
