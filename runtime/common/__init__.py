"""MindSpore's `mindspore.common` namespace: tensors, parameters, dtypes, seeds, `jit`, initializers.

Each MindSpore submodule path has its module here (`common.dtype`, `common.tensor`,
`common.parameter`, `common.api`, `common.initializer`), holding the same objects
as the top level of `cadence`.

Layer rule: builds on the compute package only.
"""

from __future__ import annotations

from ..compute._context import get_seed, set_seed
from ..compute._tensor import Parameter, ParameterTuple, Tensor
from . import api, dtype, initializer, jit_config, parameter, tensor
from .api import jit, jit_class, ms_function
from .jit_config import JitConfig

__all__ = [
    "JitConfig",
    "Parameter",
    "ParameterTuple",
    "Tensor",
    "api",
    "dtype",
    "get_seed",
    "initializer",
    "jit",
    "jit_class",
    "jit_config",
    "ms_function",
    "parameter",
    "set_seed",
    "tensor",
]
