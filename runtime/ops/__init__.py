"""Tensor ops with MindSpore's names (`cadence.ops`): functions, operator classes, gradients.

- functions (`ops.abs`, `ops.matmul`, `ops.depend`, ...), also importable from
  `cadence.ops.functional` (MindSpore's `F`);
- operator classes built from one table (`ops.Abs()`, `ops.ReduceMean(keep_dims=True)`,
  ...), also in `cadence.ops.operations` (MindSpore's `P`);
- gradients and mapping (`ops.GradOperation`, `ops.value_and_grad`, `ops.HyperMap`,
  ...), also in `cadence.ops.composite` (MindSpore's `C`).

Everything is differentiable where the math is, through one define-by-run tape.

Layer rule: builds on the compute package only (plus `cadence._util`), and
hands its functions to `Tensor` (`bind_functional`) instead of being imported by it.
"""

from __future__ import annotations

from .._util import fixup_module_metadata
from ..compute._tensor import bind_functional
from . import (
    _functional,
    _tensor_methods,
    composite,
    functional,
    operations,
    primitive as primitive,
)
from ._comm import (
    AllGather as AllGather,
    AllReduce as AllReduce,
    Broadcast as Broadcast,
    ReduceOp as ReduceOp,
)

# `functional` re-exports these too; mypy does not follow its `__all__ +=` through a star import.
from ._functional import *  # noqa: F403
from .composite import *  # noqa: F403 (the three MindSpore submodules make up `ops`)
from .functional import *  # noqa: F403
from .operations import *  # noqa: F403
from .primitive import constexpr as constexpr

__all__ = sorted(
    {*composite.__all__, *functional.__all__, *operations.__all__}
    | {"composite", "functional", "operations", "primitive", "constexpr"}
    | {"AllGather", "AllReduce", "Broadcast", "ReduceOp"}
)

fixup_module_metadata(__name__, globals())
del fixup_module_metadata

# Tensor's operators run these functions; see `bind_functional` for why they are bound.
bind_functional(_functional, _tensor_methods)
del bind_functional
