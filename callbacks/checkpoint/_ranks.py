"""Which rank writes checkpoint files in a data-parallel job, and rank 0's backup sent to every rank.

Outside a multi-rank job (no `init()`, or a job of one rank) every function
here behaves as for a lone process: it writes, and it reads its own file.
"""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["job_rank", "load_rank0_file", "writes_here"]

T = TypeVar("T")


def job_rank() -> tuple[int, int]:
    """Return `(rank, group size)`: `(0, 1)` when this process is not part of a multi-rank job."""
    from cadence.communication import GlobalComm, get_group_size, get_rank

    if not GlobalComm.INITED:
        return 0, 1
    return get_rank(), get_group_size()


def writes_here(rank_zero_only: bool) -> bool:
    """Whether this process writes checkpoint files: always, or only rank 0 with `rank_zero_only`."""
    return not rank_zero_only or job_rank()[0] == 0


def _broadcast(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    from cadence import Tensor, ops

    (received,) = ops.Broadcast(0)((Tensor(array),))
    return np.asarray(received.asnumpy())


def load_rank0_file(path: str, load: Callable[[str], T]) -> T | None:
    """Return `load(path)` of rank 0's file `path` on every rank (None when rank 0 has none).

    In a multi-rank job rank 0 reads its file and broadcasts the bytes; the other
    ranks load them from a private temporary copy, so they need neither the file
    nor a file system shared with rank 0 (ranks on other machines). Every rank
    must call this at the same point, as any collective.
    """
    rank, size = job_rank()
    if size == 1:
        return load(path) if os.path.isfile(path) else None
    data = b""
    if rank == 0 and os.path.isfile(path):
        with open(path, "rb") as file:
            data = file.read()
    length = int(_broadcast(np.array([len(data) if rank == 0 else -1], np.int64))[0])
    if length <= 0:
        return None
    buffer = np.frombuffer(data, np.uint8) if rank == 0 else np.empty(length, np.uint8)
    received = _broadcast(buffer)
    if rank == 0:
        return load(path)
    with tempfile.TemporaryDirectory(prefix="cadence-rank0-") as directory:
        copy = os.path.join(directory, os.path.basename(path))
        with open(copy, "wb") as file:
            file.write(received.tobytes())
        return load(copy)
