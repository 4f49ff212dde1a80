"""Ops that read or write a tensor at positions: `index_select`, `scatter`, `masked_select`, `nonzero`.

`index_select` is a `gather` (its gradient adds back at repeated indices);
`scatter` is a gather too, from `src` where it writes and from the input
elsewhere, so the input's gradient is zero where it was overwritten and `src`'s
is the output's gradient where it was written.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor
from . import _functional as f
from ._composed import gather
from ._elementwise import select
from ._expanding import broadcast_to

__all__ = [
    "fits_off_axis",
    "index_select",
    "masked_select",
    "nonzero",
    "overwrite_at",
    "scatter",
]


def _axis(axis: Any, ndim: int, op: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise ValueError(
            f"For '{op}', the argument 'axis' must be an int in [{-ndim}, {ndim}), but got {axis!r}."
        )
    return axis % ndim


def _positions(
    index: Any, op: str, ndim: int | None, size: int
) -> np.ndarray[Any, Any]:
    """Host integer positions from an Int32/Int64 Tensor of `ndim` axes, each in [0, size)."""
    if not isinstance(index, Tensor):
        raise TypeError(
            f"For '{op}', the argument 'index' must be a Tensor, but got {type(index).__name__}: {index!r}."
        )
    pos = np.asarray(index.asnumpy())
    if pos.dtype not in (np.int32, np.int64) or (ndim is not None and pos.ndim != ndim):
        want = "" if ndim is None else f"{ndim}-D "
        raise TypeError(
            f"For '{op}', the argument 'index' must be a {want}Int32 or Int64 tensor, but got "
            f"dtype {index.dtype!r} and shape {pos.shape}."
        )
    if pos.size and (pos.min() < 0 or pos.max() >= size):
        raise ValueError(
            f"For '{op}', the values of 'index' must be in [0, {size}), but got "
            f"{pos.min()} to {pos.max()}."
        )
    return pos


def fits_off_axis(shape: tuple[int, ...], within: tuple[int, ...], axis: int) -> bool:
    """Whether `shape` has the rank of `within` and is no larger on every axis but `axis`."""
    return len(shape) == len(within) and all(
        n <= m for i, (n, m) in enumerate(zip(shape, within, strict=True)) if i != axis
    )


def index_select(input: Any, axis: int, index: Any) -> Tensor:
    """The slices of `input` at the positions of the 1-D `index` along `axis`."""
    t = f.as_tensor(input)
    dim = _axis(axis, t.ndim, "index_select")
    pos = _positions(index, "index_select", 1, t.shape[dim])
    return gather(t, Tensor._wrap(pos.astype(np.int64)), dim)


def scatter(input: Any, axis: int, index: Any, src: Any) -> Tensor:
    """A copy of `input` with `src[i][j]..` written at `index[i][j]..` along `axis` (elsewhere, the same i, j, ..).

    `index` and `src` have the same shape, with the input's rank (`src` may be
    one number); a repeated position keeps one of the values written there.
    """
    t = f.as_tensor(input)
    dim = _axis(axis, t.ndim, "scatter")
    pos = _positions(index, "scatter", t.ndim, t.shape[dim])
    if isinstance(src, int | float) and not isinstance(src, bool):
        src = Tensor._wrap(np.full(pos.shape, src))  # `Tensor.scatter`'s one value
    s = f.cast(f.as_tensor(src), t._data.dtype)
    if pos.shape != s.shape or not fits_off_axis(pos.shape, t.shape, dim):
        raise ValueError(
            f"For 'scatter', 'index' and 'src' must have the same shape, no larger than the "
            f"input's {t.shape} off axis {dim}, but got {pos.shape} and {s.shape}."
        )
    # Each output element as a gather: from `src` where written (one write of a
    # repeated position wins), from the input elsewhere. Gathers and a select run on
    # device arrays, and their gradients are the scatter's: `src` gets the gradient of
    # the elements it wrote, the input that of the elements it kept.
    where = list(np.indices(pos.shape, sparse=True))
    where[dim] = pos
    targets = np.ravel_multi_index(tuple(np.broadcast_arrays(*where)), t.shape).ravel()
    return overwrite_at(t, s, targets)


def overwrite_at(t: Tensor, values: Tensor, targets: np.ndarray[Any, Any]) -> Tensor:
    """`t` with the flattened `values` written at the flat `targets`, as a gather plus a select."""
    source = np.zeros(t.size, np.int64)
    source[targets] = np.arange(targets.size)
    written = np.zeros(t.size, bool)
    written[targets] = True
    picked = f.getitem(f.reshape(values, (-1,)), Tensor._wrap(source))
    return select(Tensor._wrap(written.reshape(t.shape)), f.reshape(picked, t.shape), t)


def masked_select(input: Any, mask: Any) -> Tensor:
    """The 1-D tensor of the elements of `input` where the Bool `mask` holds (the two broadcast)."""
    t, m = f.as_tensor(input), f.as_tensor(mask)
    if m._data.dtype != np.bool_:
        raise TypeError(
            f"For 'masked_select', the argument 'mask' must be a Bool tensor, but got dtype {m.dtype!r}."
        )
    try:
        shape = np.broadcast_shapes(t.shape, m.shape)
    except ValueError:
        raise ValueError(
            f"For 'masked_select', 'input' and 'mask' must broadcast together, but got shapes "
            f"{t.shape} and {m.shape}."
        ) from None
    keep = np.broadcast_to(np.asarray(m.asnumpy()), shape)
    # The positions chosen on the host, the elements gathered (on the input's device).
    flat = np.flatnonzero(keep)
    whole = broadcast_to(t, shape) if t.shape != shape else t
    return f.getitem(f.reshape(whole, (-1,)), Tensor._wrap(flat.astype(np.int64)))


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """The Int64 positions of the non-zero elements: one (count, ndim) tensor, or one 1-D tensor per axis."""
    if not isinstance(as_tuple, bool):
        raise TypeError(
            f"For 'nonzero', the argument 'as_tuple' must be a bool, but got {as_tuple!r}."
        )
    where = np.nonzero(np.asarray(f.as_tensor(input).asnumpy()))
    if as_tuple:
        return tuple(Tensor._wrap(w.astype(np.int64)) for w in where)
    return Tensor._wrap(np.stack(where, -1).astype(np.int64).reshape(-1, len(where)))
