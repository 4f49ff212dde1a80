"""MindSpore's `mindspore.nn.optim` path: the optimizers (`Momentum`, `SGD`, `Adam`, `AdamWeightDecay`, `RMSProp`, `Adagrad`, `Lamb`, `Adadelta`, `ProximalAdagrad`, `Rprop`, `ASGD`, `Optimizer`) of `cadence.nn`.

The submodules `optimizer` and `momentum` are MindSpore's `mindspore.nn.optim.optimizer`
and `mindspore.nn.optim.momentum`, which code defining its own optimizer imports from.

Layer rule: part of `cadence.nn` (imports only `cadence.nn`'s own modules).
"""

from __future__ import annotations

from .._lars import *  # noqa: F403
from .._lars import __all__ as _lars
from .._optim import *  # noqa: F403 (the same objects as `cadence.nn`, under MindSpore's submodule name)
from .._optim import __all__ as _base
from .._optim_adaptive import *  # noqa: F403
from .._optim_adaptive import __all__ as _adaptive
from .._optim_step_size import *  # noqa: F403
from .._optim_step_size import __all__ as _step_size

__all__ = [*_base, *_adaptive, *_step_size, *_lars]
