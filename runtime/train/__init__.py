"""MindSpore's `mindspore.train` import path: `Model`, `Callback`, `RunContext`, the metrics and the built-in callbacks.

The callbacks are also importable from `cadence.train.callback`, as from
`mindspore.train.callback`.

Layer rule: a facade for MindSpore's import path, so it may re-export from
any layer (the training core, checkpoint I/O, `cadence.nn`, `cadence.callbacks`);
nothing in cadence imports it.
"""

from __future__ import annotations

from typing import Any

from ..checkpoint._serialization import (
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)
from ..nn import _metrics
from ..nn._metrics import *  # noqa: F403  (every metric, `names`, `get_metric_fn`, `auc`, ...)
from ..onnx._export import export
from ..training._callback import Callback
from ..training._model import Model
from ..training._run_context import RunContext

__all__ = [
    "Callback",
    "Model",
    "RunContext",
    "export",
    "load_checkpoint",
    "load_param_into_net",
    "save_checkpoint",
    *_metrics.__all__,
]


def __getattr__(name: str) -> Any:
    if name in _metrics.__all__:  # `Accuracy`, `Loss`, ...: the metrics of `cadence.nn`
        return getattr(_metrics, name)
    import cadence.callbacks as _callbacks

    if name in _callbacks.__all__:
        return getattr(_callbacks, name)
    raise AttributeError(f"module 'cadence.train' has no attribute {name!r}")
