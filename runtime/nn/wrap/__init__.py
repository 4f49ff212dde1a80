"""MindSpore's `mindspore.nn.wrap` path: the training wrappers of `cadence.nn` under their submodule names.

Model-zoo scripts import them from there (`from mindspore.nn.wrap.grad_reducer
import DistributedGradReducer`, `from mindspore.nn.wrap.cell_wrapper import
TrainOneStepCell`, `from mindspore.nn.wrap.loss_scale import ...`); the objects
are `cadence.nn`'s own.

Layer rule: part of `cadence.nn` (imports only `cadence.nn`'s own modules).
"""

from __future__ import annotations

from .cell_wrapper import *  # noqa: F403
from .cell_wrapper import __all__ as _cells
from .grad_reducer import *  # noqa: F403
from .grad_reducer import __all__ as _reducers
from .loss_scale import *  # noqa: F403
from .loss_scale import __all__ as _scaling

__all__ = [*_cells, *_reducers, *_scaling]
