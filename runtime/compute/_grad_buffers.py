"""Gradient destinations offered to ops' backward: where a parameter's gradient should be written.

Data-parallel training reduces gradients from a shared window (see
`nn/_window_plan.py`); an op whose backward can write a parameter's gradient
into a given array (a dense layer's weight-gradient GEMM, `out=`) takes that
parameter's row of the window here, and the copy into the row disappears.
Each destination is taken at most once: a parameter with two consumers has
its first gradient written there and the sum of both made elsewhere, so no
consumer overwrites another's contribution.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import numpy as np

    from ._tensor import Tensor

__all__ = ["offering_grad_buffers", "take_grad_buffer"]


class _Offer(threading.local):
    buffers: dict[int, np.ndarray[Any, Any]] | None = None


_offer = _Offer()


def take_grad_buffer(
    param: Tensor | None, like: np.ndarray[Any, Any] | None
) -> np.ndarray[Any, Any] | None:
    """Claim the array `param`'s gradient should be written into, or None.

    `like` is the array the op computes with: the destination is handed out
    only if it has `like`'s shape and dtype (a gradient written elsewhere is
    copied by whoever offered the destination, as before).
    """
    buffers = _offer.buffers
    if buffers is None or param is None or like is None:
        return None
    buf = buffers.get(id(param))
    if buf is None or buf.shape != like.shape or buf.dtype != like.dtype:
        return None
    del buffers[id(param)]
    return buf


@contextmanager
def offering_grad_buffers(
    targets: Sequence[Tensor], buffers: Sequence[np.ndarray[Any, Any] | None]
) -> Iterator[None]:
    """Offer `buffers[i]` as the gradient destination of `targets[i]` inside the block (this thread)."""
    _offer.buffers = {
        id(t): b for t, b in zip(targets, buffers, strict=False) if b is not None
    }
    try:
        yield
    finally:
        _offer.buffers = None
