"""MindSpore's `mindspore.context` import path: `from cadence import context`.

Older MindSpore code configures the run through this module
(`context.set_context(mode=context.GRAPH_MODE, device_target="CPU")`); the same
functions are at the top level as `cadence.set_context` and friends.
"""

from __future__ import annotations

from .communication._parallel_context import (
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)
from .communication._ps_context import (
    get_ps_context,
    reset_ps_context,
    set_ps_context,
)
from .compute._context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context

__all__ = [
    "GRAPH_MODE",
    "PYNATIVE_MODE",
    "ParallelMode",
    "get_auto_parallel_context",
    "get_context",
    "get_ps_context",
    "reset_auto_parallel_context",
    "reset_ps_context",
    "set_auto_parallel_context",
    "set_context",
    "set_ps_context",
]
