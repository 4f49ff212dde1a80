"""MindSpore's `mindspore.train` import path: `Model`, `Callback`, `RunContext`, the metrics and the built-in callbacks.

The callbacks are also importable from `cadence.train.callback`, as from
`mindspore.train.callback`.
"""

from __future__ import annotations

from typing import Any

from .._callback import Callback
from .._model import Model
from .._run_context import RunContext
from .._serialization import load_checkpoint, load_param_into_net, save_checkpoint
from ..nn._metrics import (
    F1,
    Accuracy,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
)

__all__ = [
    "F1",
    "Accuracy",
    "Callback",
    "Fbeta",
    "Loss",
    "Metric",
    "Model",
    "Precision",
    "Recall",
    "RunContext",
    "Top1CategoricalAccuracy",
    "Top5CategoricalAccuracy",
    "TopKCategoricalAccuracy",
    "get_metric_fn",
    "load_checkpoint",
    "load_param_into_net",
    "save_checkpoint",
]


def __getattr__(name: str) -> Any:
    import cadence.callbacks as _callbacks

    if name in _callbacks.__all__:
        return getattr(_callbacks, name)
    raise AttributeError(f"module 'cadence.train' has no attribute {name!r}")
