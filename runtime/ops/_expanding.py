"""Ops that enlarge a tensor by copies: `broadcast_to`, `expand_as`, `meshgrid`, `repeat_interleave`, `Tensor.repeat`.

Each is differentiable: the gradient of a copy is the sum over its copies, which
`unbroadcast`, `tile` and `gather` already compute.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from ..validation import check_non_negative_int, check_type
from . import _functional as f
from ._composed import gather
from ._slicing import tile

__all__ = [
    "broadcast_to",
    "expand_as",
    "meshgrid",
    "meshgrid_op",
    "repeat",
    "repeat_interleave",
]


def _target_shape(shape_in: tuple[int, ...], shape: Any) -> tuple[int, ...]:
    """MindSpore's `BroadcastTo` shape: -1 keeps the input's size of that (aligned) axis."""
    check_type(shape, "shape", (tuple, list), "broadcast_to")
    lead = len(shape) - len(shape_in)
    bad = lead < 0 or any(
        not isinstance(n, int)
        or isinstance(n, bool)
        or (n == -1 and i < lead)
        or (n != -1 and i >= lead and shape_in[i - lead] not in (1, n))
        or n < -1
        for i, n in enumerate(shape)
    )
    if bad:
        raise ValueError(
            f"For 'broadcast_to', the argument 'shape' must be reachable from the input's shape "
            f"{shape_in} (each axis equal, the input's 1, or -1 to keep it), but got {tuple(shape)!r}."
        )
    return tuple(shape_in[i - lead] if n == -1 else n for i, n in enumerate(shape))


def broadcast_to(input: Any, shape: Any) -> Tensor:
    """Broadcast `input` to `shape` (-1 keeps an axis); the gradient sums over the copies."""
    t = f.as_tensor(input)
    target = _target_shape(t.shape, shape)
    src = t.shape
    # A copy, not numpy's read-only view: the result may be written in place.
    out = np.broadcast_to(t._data, target).copy()
    return f.record(out, (t,), lambda: lambda g: (f.unbroadcast(g, src),))


def expand_as(input: Any, other: Any) -> Tensor:
    """Broadcast `input` to `other`'s shape."""
    return broadcast_to(input, f.as_tensor(other).shape)


def repeat(input: Any, *repeats: Any) -> Tensor:
    """`Tensor.repeat` as MindSpore 2.x defines it: copies of the whole tensor per axis (numpy's `tile`).

    `repeats` are ints or one tuple/list of them, at least as many as the tensor
    has axes; the element-wise repetition is `repeat_interleave`.
    """
    t = f.as_tensor(input)
    reps = (
        repeats[0]
        if len(repeats) == 1 and isinstance(repeats[0], tuple | list)
        else repeats
    )
    for n in reps:
        check_non_negative_int(n, "repeats", "Tensor.repeat")
    if len(reps) < t.ndim:
        raise ValueError(
            f"For 'Tensor.repeat', the argument 'repeats' must have at least as many entries as the "
            f"tensor has axes ({t.ndim}), but got {tuple(reps)!r}."
        )
    return tile(t, reps)


def repeat_interleave(input: Any, repeats: Any, axis: int | None = None) -> Tensor:
    """Repeat each element (`axis` None: of the flattened input) or each slice along `axis` `repeats` times.

    `repeats` is an int, or one count per slice (a list or an integer Tensor).
    """
    t = f.as_tensor(input)
    if axis is None:
        t, axis = f.reshape(t, (-1,)), 0
    check_type(axis, "axis", int, "repeat_interleave")
    size = t.shape[axis]
    counts = np.asarray(repeats.asnumpy() if isinstance(repeats, Tensor) else repeats)
    if (
        counts.dtype.kind not in "iu"
        or counts.ndim > 1
        or (counts < 0).any()
        or (counts.ndim == 1 and counts.size not in (1, size))
    ):
        raise ValueError(
            f"For 'repeat_interleave', the argument 'repeats' must be an int >= 0 or one such int "
            f"per slice along axis {axis} ({size}), but got {repeats!r}."
        )
    index = np.repeat(np.arange(size), np.broadcast_to(counts.ravel(), (size,)))
    return gather(t, Tensor(index.astype(np.int64)), axis)


def meshgrid(*inputs: Any, indexing: str = "xy") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors: each broadcast along the others' axes.

    'xy' (Cartesian) swaps the first two output axes, 'ij' (matrix) keeps them.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(
            f"For 'meshgrid', the argument 'indexing' must be 'xy' or 'ij', but got {indexing!r}."
        )
    ts = [f.as_tensor(x) for x in inputs]
    if not ts or any(t.ndim != 1 for t in ts):
        raise ValueError(
            f"For 'meshgrid', the inputs must be one or more 1-D tensors, but got shapes "
            f"{[t.shape for t in ts]}."
        )
    sizes = [t.shape[0] for t in ts]
    if indexing == "xy" and len(ts) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, t in enumerate(ts):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(ts) > 1 else i
        shape = [1] * len(ts)
        shape[axis] = t.shape[0]
        grids.append(broadcast_to(f.reshape(t, tuple(shape)), tuple(sizes)))
    return tuple(grids)


def meshgrid_op(inputs: Any, *, indexing: str) -> tuple[Tensor, ...]:
    """`ops.Meshgrid(indexing)(inputs)`: the tensors come as one tuple or list."""
    check_type(inputs, "inputs", (tuple, list), "Meshgrid")
    return meshgrid(*inputs, indexing=indexing)
