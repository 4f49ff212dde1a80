"""MindSpore's `mindspore.nn.optim` path: the optimizers (`Momentum`, `SGD`, `Adam`, `Optimizer`) of `cadence.nn`.

The submodules `optimizer` and `momentum` are MindSpore's `mindspore.nn.optim.optimizer`
and `mindspore.nn.optim.momentum`, which code defining its own optimizer imports from.

Layer rule: part of `cadence.nn` (imports only `cadence.nn`'s own modules).
"""

from __future__ import annotations

from .._optim import *  # noqa: F403 (the same objects as `cadence.nn`, under MindSpore's submodule name)
from .._optim import __all__ as __all__
