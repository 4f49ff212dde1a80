"""MindSpore's `mindspore.common` namespace: tensors, parameters, dtypes, seeds, `jit`, initializers.

Also the functions MindSpore exports here: `from_numpy`, `is_tensor`, `mutable`,
`recompute`, `jit_class` (`tensor` stays the `common.tensor` module path).

Each MindSpore submodule path has its module here (`common.dtype`, `common.tensor`,
`common.parameter`, `common.api`, `common.initializer`), holding the same objects
as the top level of `cadence`.

Layer rule: builds on the compute package (and, inside `recompute` and `jit_class`, on
`nn.Cell`, of the same layer).
"""

from __future__ import annotations

from ..compute._context import get_seed, set_seed
from ..compute._tensor import Parameter, ParameterTuple, Tensor
from . import api, dtype, initializer, jit_config, parameter, tensor
from ._mutable import mutable
from ._recompute import recompute
from ._tensor_functions import from_numpy, is_tensor
from .api import jit, jit_class, ms_function
from .jit_config import JitConfig

__all__ = [
    "JitConfig",
    "Parameter",
    "ParameterTuple",
    "Tensor",
    "api",
    "dtype",
    "from_numpy",
    "get_seed",
    "initializer",
    "is_tensor",
    "jit",
    "jit_class",
    "jit_config",
    "ms_function",
    "mutable",
    "parameter",
    "recompute",
    "set_seed",
    "tensor",
]
