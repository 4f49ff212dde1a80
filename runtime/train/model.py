"""MindSpore's `mindspore.train.model` path (`from mindspore.train.model import Model`)."""

from __future__ import annotations

from ..training._model import Model

__all__ = ["Model"]
