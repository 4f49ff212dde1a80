"""Collective primitives with MindSpore's names: `AllReduce`, `AllGather`, `Broadcast`, `ReduceOp`.

They work on the job started by `cadence.communication.init()`; every rank must
call the same primitives in the same order (as with any collective). `AllReduce`
with `ReduceOp.SUM` and `AllGather` are differentiable: their backward passes
are collectives too, so every rank must also run the backward pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ..communication import _world
from ..communication._collectives import REDUCE_OPS, allgather, allreduce, broadcast
from ..communication.management import GlobalComm, check_group
from ..compute._tensor import Tensor
from ._functional import record

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["AllGather", "AllReduce", "Broadcast", "ReduceOp"]

Array = np.ndarray[Any, Any]


class ReduceOp:
    """The reductions `AllReduce` offers (MindSpore's names; plain strings)."""

    SUM: Final = "sum"
    MAX: Final = "max"
    MIN: Final = "min"
    PROD: Final = "prod"


def _tensor_arg(value: Any, name: str, where: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"For '{where}', the argument '{name}' must be a Tensor, but got {value!r} of type {type(value).__name__!r}."
        )
    return value


class AllReduce:
    """Reduce a tensor element-wise over all ranks; every rank gets the result.

    Args:
        op: `ReduceOp.SUM` (default), `MAX`, `MIN` or `PROD`.
        group: The world group.

    Raises:
        RuntimeError: If `init()` was not called.
        TypeError, ValueError: For a bad argument.

    Example:
        >>> import numpy as np, cadence as ms
        >>> from cadence import ops
        >>> from cadence.communication import init, release
        >>> init()
        >>> ops.AllReduce()(ms.Tensor(np.array([1.0, 2.0], np.float32)))
        Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])
        >>> release()
    """

    def __init__(
        self, op: str = ReduceOp.SUM, group: str = GlobalComm.WORLD_COMM_GROUP
    ) -> None:
        given: Any = op  # checked at run time: callers may pass anything
        if not isinstance(given, str) or given not in REDUCE_OPS:
            raise ValueError(
                f"For 'AllReduce', the argument 'op' must be one of {sorted(REDUCE_OPS)} (ReduceOp), but got {op!r}."
            )
        check_group(group, "AllReduce")
        _world.require("AllReduce")
        self.op = op
        self.group = group

    def __call__(self, x: Tensor) -> Tensor:
        """Return `x` reduced over the ranks."""
        t = _tensor_arg(x, "input_x", "AllReduce")
        out = allreduce(t, self.op, where="AllReduce")

        def grad_fn() -> Any:
            if self.op != ReduceOp.SUM:
                raise NotImplementedError(
                    f"AllReduce with op={self.op!r} has no gradient in cadence; only ReduceOp.SUM is differentiable."
                )
            return lambda g: (allreduce(g, "sum", where="AllReduce backward"),)

        return record(out, (t,), grad_fn)


class AllGather:
    """Concatenate every rank's tensor along axis 0, in rank order.

    Args:
        group: The world group.

    Raises:
        RuntimeError: If `init()` was not called.
    """

    def __init__(self, group: str = GlobalComm.WORLD_COMM_GROUP) -> None:
        check_group(group, "AllGather")
        self.rank = _world.require("AllGather").rank
        self.group = group

    def __call__(self, x: Tensor) -> Tensor:
        """Return the ranks' tensors concatenated along axis 0."""
        t = _tensor_arg(x, "input_x", "AllGather")
        out = allgather(t, where="AllGather")
        rows = max(1, t.ndim and t.shape[0])

        def grad_fn() -> Any:
            # Every rank's output depends on this rank's slice: sum the slices' gradients.
            def backward(g: Array) -> tuple[Array]:
                total = allreduce(g, "sum", where="AllGather backward")
                part = total[self.rank * rows : (self.rank + 1) * rows]
                return (part.reshape(t.shape),)

            return backward

        return record(out, (t,), grad_fn)


class Broadcast:
    """Send rank `root_rank`'s tensors to every rank (shapes and dtypes must match).

    Args:
        root_rank: The rank whose values everyone receives.
        group: The world group.

    `__call__` takes a tuple of tensors and returns a tuple, as MindSpore's.

    Raises:
        RuntimeError: If `init()` was not called.
        TypeError, ValueError: For a bad argument.
    """

    def __init__(
        self, root_rank: int, group: str = GlobalComm.WORLD_COMM_GROUP
    ) -> None:
        world = _world.require("Broadcast")
        given: Any = root_rank  # checked at run time: callers may pass anything
        if not isinstance(given, int) or isinstance(given, bool):
            raise TypeError(
                f"For 'Broadcast', the argument 'root_rank' must be an int, but got {root_rank!r}."
            )
        if not 0 <= root_rank < world.size:
            raise ValueError(
                f"For 'Broadcast', the argument 'root_rank' must be in [0, {world.size - 1}], but got {root_rank!r}."
            )
        check_group(group, "Broadcast")
        self.root_rank = root_rank
        self.group = group

    def __call__(self, input_x: Sequence[Tensor]) -> tuple[Tensor, ...]:
        """Return rank `root_rank`'s values of `input_x`."""
        if not isinstance(input_x, tuple | list):
            raise TypeError(
                f"For 'Broadcast', the argument 'input_x' must be a tuple of Tensors, but got {input_x!r}."
            )
        return tuple(
            Tensor._wrap(
                broadcast(
                    _tensor_arg(t, "input_x", "Broadcast"),
                    self.root_rank,
                    where="Broadcast",
                )
            )
            for t in input_x
        )
