"""`ops.einsum` / `ops.Einsum`: sums of products named by subscripts ("ij,jk->ik"), differentiable.

Letters stand for axes (an ellipsis becomes letters, its operands broadcast
first with `broadcast_to`, whose gradient sums the copies). Without a repeated
letter in an operand, the operands are folded pairwise into batched matrix
products after transposes and sums (BLAS on the CPU, the batched kernel on
devices), so the gradients are those ops'. A repeated letter (a diagonal) takes
numpy's `einsum`, each operand's gradient another einsum onto its letters: a
letter only that operand has is broadcast back, a diagonal scattered onto itself.
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


def _letter_sizes(ts: list[Tensor], terms: list[str]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for t, term in zip(ts, terms, strict=True):
        if len(term) != t.ndim:
            raise ValueError(f"{term!r} names {len(term)} axes of a {t.ndim}-D operand")
        for c, n in zip(term, t.shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"'{c}' has sizes {sizes[c]} and {n}")
    return sizes


def _sum_away(t: Tensor, term: str, keep: set[str]) -> tuple[Tensor, str]:
    """Sum the axes of letters not in `keep`."""
    gone = tuple(i for i, c in enumerate(term) if c not in keep)
    if not gone:
        return t, term
    return f.sum(t, gone), "".join(c for c in term if c in keep)


def _pair(
    a: Tensor, sa: str, b: Tensor, sb: str, needed: set[str]
) -> tuple[Tensor, str]:
    """The product of two operands over their shared letters not `needed` later, as one batched matmul."""
    a, sa = _sum_away(a, sa, needed | set(sb))
    b, sb = _sum_away(b, sb, needed | set(sa))
    batch = [c for c in sa if c in sb and c in needed]
    shared = [c for c in sa if c in sb and c not in needed]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]
    size = dict(zip(sa, a.shape, strict=True)) | dict(zip(sb, b.shape, strict=True))

    def count(letters: list[str]) -> int:
        return int(np.prod([size[c] for c in letters]))

    def arranged(
        t: Tensor, term: str, order: list[str], shape: tuple[int, ...]
    ) -> Tensor:
        return f.reshape(f.transpose(t, tuple(term.index(c) for c in order)), shape)

    a3 = arranged(
        a, sa, batch + left + shared, (count(batch), count(left), count(shared))
    )
    b3 = arranged(
        b, sb, batch + shared + right, (count(batch), count(shared), count(right))
    )
    product = f.matmul(a3, b3)
    letters = batch + left + right
    return f.reshape(product, tuple(size[c] for c in letters)), "".join(letters)


def _contract(ts: list[Tensor], terms: list[str], out: str) -> Tensor:
    """Fold the operands left to right pairwise, then sum and order the output's letters."""
    t, term = ts[0], terms[0]
    for k in range(1, len(ts)):
        needed = set(out).union(*terms[k + 1 :])
        t, term = _pair(t, term, ts[k], terms[k], needed)
    t, term = _sum_away(t, term, set(out))
    return f.transpose(t, tuple(term.index(c) for c in out)) if term != out else t


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
        result = (
            np.einsum(f"{','.join(terms)}->{out}", *data)
            if not all(len(set(term)) == len(term) for term in terms)
            else None
        )
        if result is None:
            _letter_sizes(ts, terms)
    except ValueError as e:
        raise _invalid(
            equation, f"match the operands' shapes {[t.shape for t in ts]} ({e})"
        ) from None
    if result is None:  # no diagonal: transposes, sums and (batched) matrix products
        return _contract(ts, terms, out)

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
