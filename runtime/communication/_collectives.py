"""Collectives over the world's communicator, each guarded by the watchdog.

Arrays are numpy (device arrays are brought to the host first). Every function
here is a no-op copy on a world of one rank, so callers need no special case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._world import require

if TYPE_CHECKING:
    from ._world import World

__all__ = [
    "REDUCE_OPS",
    "allgather",
    "allreduce",
    "allreduce_flags",
    "barrier",
    "broadcast",
    "host_array",
]

Array = np.ndarray[Any, Any]

# MindSpore's ReduceOp names -> MPI operation names.
REDUCE_OPS: Final = {"sum": "SUM", "max": "MAX", "min": "MIN", "prod": "PROD"}


def host_array(value: Any) -> Array:
    """Return `value` (a Tensor, device array or array-like) as a C-contiguous numpy array."""
    data = value._data if hasattr(value, "_data") else value
    if hasattr(data, "copy_to_host"):
        data = data.copy_to_host()
    return np.ascontiguousarray(data)


def _op(world: World, op: str) -> Any:
    return getattr(world.mpi, REDUCE_OPS[op])


def allreduce(value: Any, op: str = "sum", *, where: str = "AllReduce") -> Array:
    """Return the element-wise reduction of `value` over all ranks (a new array)."""
    world = require(where)
    send = host_array(value)
    out = np.empty_like(send)
    with world.watchdog.guard(where):
        world.comm.Allreduce(send, out, op=_op(world, op))
    return out


def allgather(value: Any, *, where: str = "AllGather") -> Array:
    """Return every rank's `value` concatenated along axis 0, in rank order."""
    world = require(where)
    send = host_array(value)
    if send.ndim == 0:
        send = send.reshape(1)
    out = np.empty((world.size * send.shape[0], *send.shape[1:]), send.dtype)
    with world.watchdog.guard(where):
        world.comm.Allgather(send, out)
    return out


def broadcast(value: Any, root: int = 0, *, where: str = "Broadcast") -> Array:
    """Return rank `root`'s `value` on every rank (a new array; shapes must match)."""
    world = require(where)
    if not 0 <= root < world.size:
        raise ValueError(
            f"For '{where}', the argument 'root_rank' must be in [0, {world.size - 1}], but got {root!r}."
        )
    buf = host_array(value).copy()
    with world.watchdog.guard(where):
        world.comm.Bcast(buf, root=root)
    return buf


def allreduce_flags(flags: Array, *, where: str) -> Array:
    """Return the element-wise maximum of small int flags over the ranks (stop votes, ...)."""
    return allreduce(np.asarray(flags, np.int64), "max", where=where)


def barrier(*, where: str = "barrier") -> None:
    """Wait until every rank arrives."""
    world = require(where)
    with world.watchdog.guard(where):
        world.comm.Barrier()
