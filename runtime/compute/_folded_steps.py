"""Optimizer steps folded into the backward pass: how a backward pass offers them to ops.

A plain SGD step needs nothing but a parameter's gradient, so an op that
computes that gradient can apply the step itself, in the same pass over
memory (a dense layer accumulates `-lr * dz.T @ x` straight into its weight:
the gradient is never written out and the optimizer never reads it back).

`backward_folding_sgd` runs `backward` while offering such steps; an op's
backward closure calls `take_sgd_step` and, if it gets a rate, updates its
parameters in place and returns None as their gradients. The offer is made
only for parameters with exactly one consumer in the graph: a parameter used
twice needs the sum of two gradients before any step, and its second consumer
would otherwise read the already-updated value. Whether an optimizer step may
be folded at all is the optimizer's and the training cell's decision
(`SGD.folded_steps`, `TrainOneStepCell`).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ._autograd import _collect, _fit, backward_raw

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import numpy as np

    from ._tensor import Tensor

__all__ = ["backward_folding_sgd", "take_sgd_step"]

Rate = tuple[float, float]
"""(learning rate, weight decay) of one parameter's SGD step."""


class _Offer(threading.local):
    steps: dict[int, Rate] | None = None
    taken: set[int] | None = None


_offer = _Offer()


def take_sgd_step(held: Sequence[tuple[Tensor, Any]]) -> Rate | None:
    """Claim the SGD step of every parameter in `held`, from an op's backward closure.

    `held` pairs each parameter with the array the op computed with; the step is
    offered only if that array is the parameter's own storage (an update of a
    copy would be lost) and every parameter has the same rate. Returns the
    (learning rate, weight decay) to apply in place, or None: then the op
    returns gradients as usual.
    """
    steps, taken = _offer.steps, _offer.taken
    if steps is None or taken is None:
        return None
    rates = {steps.get(id(p)) for p, _ in held}
    if len(rates) != 1 or any(a is not p._data for p, a in held):
        return None
    rate = rates.pop()
    if rate is None:
        return None
    taken.update(id(p) for p, _ in held)
    return rate


def backward_folding_sgd(
    loss: Tensor,
    targets: Sequence[Tensor],
    sens: Any,
    steps: Mapping[int, Rate],
) -> list[np.ndarray[Any, Any] | None]:
    """`backward`, offering each target in `steps` (by id) its SGD step inside the op that uses it.

    Returns the gradients, None for the targets whose step was already applied.
    """
    consumers: dict[int, int] = {}
    for t in _collect(loss):
        for inp in t._node.inputs:  # type: ignore[union-attr]
            consumers[id(inp)] = consumers.get(id(inp), 0) + 1
    _offer.steps = {k: r for k, r in steps.items() if consumers.get(k) == 1}
    taken: set[int] = set()
    _offer.taken = taken
    try:
        grads = backward_raw(loss, targets, sens)
    finally:
        _offer.steps = _offer.taken = None
    # No zero-filled gradient for a stepped parameter: it would be allocated and thrown away.
    return [
        None if id(t) in taken else _fit(g, t)
        for g, t in zip(grads, targets, strict=True)
    ]
