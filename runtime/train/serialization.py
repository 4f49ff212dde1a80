"""MindSpore's `mindspore.train.serialization` path: checkpoint saving and loading."""

from __future__ import annotations

from ..checkpoint._serialization import (
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)

__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]
