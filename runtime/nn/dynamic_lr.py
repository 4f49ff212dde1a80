"""MindSpore's `mindspore.nn.dynamic_lr` path: the per-step learning-rate lists of `cadence.nn`."""

from __future__ import annotations

from ._lr import cosine_decay_lr, exponential_decay_lr, piecewise_constant_lr, warmup_lr

__all__ = [
    "cosine_decay_lr",
    "exponential_decay_lr",
    "piecewise_constant_lr",
    "warmup_lr",
]
