"""MindSpore's `mindspore.train` import path: `Model`, `Callback`, `RunContext` and the built-in callbacks."""

from __future__ import annotations

from typing import Any

from .._callback import Callback
from .._model import Model
from .._run_context import RunContext
from .._serialization import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = [
    "Callback",
    "Model",
    "RunContext",
    "load_checkpoint",
    "load_param_into_net",
    "save_checkpoint",
]


def __getattr__(name: str) -> Any:
    import cadence.callbacks as _callbacks

    if name in _callbacks.__all__:
        return getattr(_callbacks, name)
    raise AttributeError(f"module 'cadence.train' has no attribute {name!r}")
