"""MindSpore's `mindspore.nn.optim` path: the optimizers (`Momentum`, `SGD`, `Adam`, `Optimizer`) of `cadence.nn`."""

from __future__ import annotations

from ._optim import *  # noqa: F403 (the same objects as `cadence.nn`, under MindSpore's submodule name)
from ._optim import __all__ as __all__
