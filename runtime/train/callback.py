"""MindSpore's `mindspore.train.callback` import path: `Callback`, `RunContext` and the built-in callbacks."""

from __future__ import annotations

from typing import Any

from ..training._callback import Callback
from ..training._run_context import RunContext

__all__ = ["Callback", "RunContext"]


def __getattr__(name: str) -> Any:
    import cadence.callbacks as _callbacks  # imported on first use, as from `cadence.train`

    if name in _callbacks.__all__:
        return getattr(_callbacks, name)
    raise AttributeError(f"module 'cadence.train.callback' has no attribute {name!r}")


def __dir__() -> list[str]:
    import cadence.callbacks as _callbacks

    return sorted({*__all__, *_callbacks.__all__})
