"""`ops.pad` with MindSpore 2.x's signature: `pad(input_x, padding, mode='constant', value=None)`.

`padding` is MindSpore's flat form: (before, after) widths for the last axis first, then
the axis before it, and so on; a negative width crops. cadence's own form, one
(before, after) pair per axis from the first, is also accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from . import _functional as f

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["pad"]

# MindSpore's mode names -> numpy.pad's names for the index arrays.
_MODES = {
    "constant": "constant",
    "reflect": "reflect",
    "replicate": "edge",
    "circular": "wrap",
}


def _widths(padding: Any, ndim: int) -> list[tuple[int, int]]:
    """One (before, after) per axis, from MindSpore's flat form or cadence's pairs."""
    if (
        isinstance(padding, (tuple, list))
        and all(isinstance(p, (tuple, list)) and len(p) == 2 for p in padding)
        and len(padding) == ndim
    ):
        return [(int(a), int(b)) for a, b in padding]
    if not isinstance(padding, (tuple, list)) or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in padding
    ):
        raise TypeError(
            f"For 'pad', the argument 'padding' must be a tuple or list of ints, but got {padding!r}."
        )
    if len(padding) % 2 or len(padding) // 2 > ndim:
        raise ValueError(
            f"For 'pad', the argument 'padding' must hold an even number of ints, at most "
            f"{2 * ndim} for a {ndim}-d input, but got {len(padding)}."
        )
    pairs = [(padding[i], padding[i + 1]) for i in range(0, len(padding), 2)]
    return [(0, 0)] * (ndim - len(pairs)) + pairs[::-1]


def _reads(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """The input index each output position of one axis reads, for the non-constant modes."""
    if mode != "replicate" and max(before, after) > n - (mode == "reflect"):
        limit = "less than" if mode == "reflect" else "at most"
        raise ValueError(
            f"For 'pad', {mode!r} mode needs each width {limit} the axis length {n}, but got ({before}, {after})."
        )
    return np.pad(np.arange(n), (before, after), mode=_MODES[mode])  # type: ignore[call-overload, no-any-return]


def pad(
    input_x: Any, padding: Any, mode: str = "constant", value: Any = None
) -> Tensor:
    """Pad (or, with negative widths, crop) `input_x`; 'constant' fills with `value` (0 when None).

    Composed of differentiable ops (so also of ONNX-convertible ones): a slice crops,
    `_functional.pad` fills a constant, and the other modes gather each padded axis.
    """
    if mode not in _MODES:
        raise ValueError(
            f"For 'pad', the argument 'mode' must be one of {sorted(_MODES)}, but got {mode!r}."
        )
    if value is not None and mode != "constant":
        raise ValueError(
            f"For 'pad', 'value' applies to mode 'constant' only, but mode is {mode!r}."
        )
    t = f.as_tensor(input_x)
    widths = _widths(padding, t.ndim)
    if any(b < 0 or a < 0 for b, a in widths):
        t = f.getitem(
            t,
            tuple(
                slice(max(-b, 0), n - max(-a, 0))
                for n, (b, a) in zip(t.shape, widths, strict=True)
            ),
        )
        widths = [(max(b, 0), max(a, 0)) for b, a in widths]
    if mode == "constant":
        return (
            f.pad(t, widths, 0.0 if value is None else value)
            if any(b or a for b, a in widths)
            else t
        )
    for axis, (b, a) in enumerate(widths):
        if b or a:
            t = f.getitem(
                t, (slice(None),) * axis + (_reads(t.shape[axis], b, a, mode),)
            )
    return t
