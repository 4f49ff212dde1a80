"""`ops.einsum` / `ops.Einsum`: sums of products named by subscripts ("ij,jk->ik"), differentiable.

The forward pass is numpy's `einsum` on explicit letters (an ellipsis becomes
letters, its operands broadcast first with `broadcast_to`, whose gradient sums
the copies). Each operand's gradient is another einsum: the output's gradient
times the other operands, onto that operand's letters; a letter only that
operand has is broadcast back, and a repeated letter (a diagonal) is scattered
onto its diagonal.
"""

from __future__ import annotations

import string
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _functional as f
from ._expanding import broadcast_to

if TYPE_CHECKING:
    from ..compute._tensor import Tensor

__all__ = ["einsum", "einsum_op"]


def _invalid(equation: str, why: str) -> ValueError:
    return ValueError(
        f"For 'einsum', the argument 'equation' must {why}, but got {equation!r}."
    )


def _explicit(equation: str, ndims: list[int]) -> tuple[list[str], str, str]:
    """The equation with letters for each ellipsis: (operand subscripts, output subscripts, the ellipsis letters)."""
    text = equation.replace(" ", "")
    left, arrow, right = text.partition("->")
    terms = left.split(",")
    if len(terms) != len(ndims):
        raise _invalid(equation, f"name one term per operand ({len(ndims)})")
    named = set(text) - set(",->.")
    if not all(c in string.ascii_letters for c in named):
        raise _invalid(equation, "use only letters, ',', '->' and '...'")
    spare = [c for c in string.ascii_letters if c not in named]
    ranks = [
        n - len(t.replace("...", "")) if "..." in t else 0
        for t, n in zip(terms, ndims, strict=True)
    ]
    width = max(ranks, default=0)
    if min(ranks, default=0) < 0 or len(spare) < width:
        raise _invalid(
            equation, "have as many subscripts as each operand has dimensions"
        )
    dots = "".join(spare[:width])
    terms = [
        t.replace("...", dots[width - r :]) for t, r in zip(terms, ranks, strict=True)
    ]
    if not arrow:  # implicit output: the ellipsis, then the letters used once, sorted
        once = sorted(c for c in named if left.count(c) == 1)
        return terms, dots + "".join(once), dots
    return terms, right.replace("...", dots), dots


def _diagonal_scatter(g: Any, term: str, shape: tuple[int, ...]) -> Any:
    """An array of `shape` (subscripts `term`, letters repeated) holding `g` (letters once) on its diagonals."""
    unique = "".join(dict.fromkeys(term))
    if unique == term:
        return g
    out = np.zeros(shape, g.dtype)
    grids = np.indices(g.shape, sparse=True)
    out[tuple(grids[unique.index(c)] for c in term)] = g
    return out


def _operand_grad(g: Any, k: int, terms: list[str], out: str, data: list[Any]) -> Any:
    term = terms[k]
    unique = "".join(dict.fromkeys(term))
    others = [t for i, t in enumerate(terms) if i != k]
    present = set(out).union(*others)
    kept = "".join(c for c in unique if c in present)
    sizes = dict(zip(term, data[k].shape, strict=True))
    grad = np.einsum(
        f"{','.join([out, *others])}->{kept}",
        g,
        *(d for i, d in enumerate(data) if i != k),
    )
    # A letter only this operand has was summed away: every element got the same gradient.
    grad = np.broadcast_to(
        grad.reshape([sizes[c] if c in kept else 1 for c in unique]),
        [sizes[c] for c in unique],
    )
    return _diagonal_scatter(np.ascontiguousarray(grad), term, data[k].shape)


def einsum(equation: str, *operands: Any) -> Tensor:
    """The sum of products `equation` names, as numpy's `einsum` (with '...' broadcasting)."""
    if not isinstance(equation, str):
        raise TypeError(
            f"For 'einsum', the argument 'equation' must be a str, but got {equation!r}."
        )
    ts = [f.as_tensor(o) for o in operands]
    terms, out, dots = _explicit(equation, [t.ndim for t in ts])
    if dots:  # an ellipsis axis of size 1 broadcasts, so each letter has one size
        sizes: dict[str, int] = {}
        for t, term in zip(ts, terms, strict=True):
            for c, n in zip(term, t.shape, strict=True):
                sizes[c] = max(sizes.get(c, 1), n)
        ts = [
            broadcast_to(
                t,
                tuple(
                    sizes[c] if c in dots else n
                    for c, n in zip(term, t.shape, strict=True)
                ),
            )
            for t, term in zip(ts, terms, strict=True)
        ]
    data = [t._data for t in ts]
    try:
        result = np.einsum(f"{','.join(terms)}->{out}", *data)
    except ValueError as e:
        raise _invalid(
            equation, f"match the operands' shapes {[t.shape for t in ts]} ({e})"
        ) from None

    def grad_fn() -> f.GradFn:
        def backward(g: Any) -> list[Any]:
            return [
                _operand_grad(g, k, terms, out, data) if t._tracked else None
                for k, t in enumerate(ts)
            ]

        return backward

    return f.record(np.asarray(result), tuple(ts), grad_fn)


def einsum_op(operands: Any, *, equation: str) -> Tensor:
    """`ops.Einsum(equation)(operands)`: the operands come as one tuple or list."""
    if not isinstance(operands, tuple | list):
        raise TypeError(
            f"For 'Einsum', the input must be a tuple or list of tensors, but got {type(operands).__name__}."
        )
    return einsum(equation, *operands)
