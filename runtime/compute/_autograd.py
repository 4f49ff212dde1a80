"""The define-by-run tape: ops record backward closures while recording is on.

An op whose output depends on a tracked tensor (a `Parameter` with
`requires_grad`, or the output of a recorded op) attaches a `Node` to its
output: the input tensors and a closure mapping the output's gradient to one
gradient per input (None where an input needs none). `backward` walks the
nodes from the loss in reverse creation order and accumulates gradients.

Recording is off by default (inference and metrics pay nothing) and per thread;
`TrainOneStepCell`, `grad` and `value_and_grad` switch it on around the forward.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from ._context import current_target

if TYPE_CHECKING:
    from ._tensor import Tensor

__all__ = ["Node", "backward", "backward_raw", "enable_grad", "is_recording", "no_grad"]

BackwardFn = Callable[[np.ndarray[Any, Any]], Sequence["np.ndarray[Any, Any] | None"]]


_SEQ = itertools.count()


class Node:
    """One recorded op: its inputs and the closure computing their gradients."""

    __slots__ = ("backward", "inputs", "seq")

    def __init__(self, inputs: tuple[Tensor, ...], backward: BackwardFn) -> None:
        self.inputs = inputs
        self.backward = backward
        # Creation order is a topological order: a node's inputs were made before it.
        self.seq = next(_SEQ)


class _State(threading.local):
    recording: bool = False


_state = _State()


def is_recording() -> bool:
    """Return whether ops on this thread record backward closures."""
    return _state.recording


@contextmanager
def _recording(on: bool) -> Iterator[None]:
    prev = _state.recording
    _state.recording = on
    try:
        yield
    finally:
        _state.recording = prev


def enable_grad() -> AbstractContextManager[None]:
    """Record ops on this thread inside the block."""
    return _recording(True)


def no_grad() -> AbstractContextManager[None]:
    """Record nothing on this thread inside the block."""
    return _recording(False)


def _collect(root: Tensor) -> list[Tensor]:
    """Return every tensor with a node reachable from `root`, newest node first."""
    seen: set[int] = set()
    found: list[Tensor] = []
    stack = [root]
    while stack:
        t = stack.pop()
        node = t._node
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(t)
        stack.extend(node.inputs)
    found.sort(key=lambda t: t._node.seq, reverse=True)  # type: ignore[union-attr]
    return found


def backward(
    loss: Tensor,
    targets: Sequence[Tensor],
    sens: Any = None,
    on_ready: Callable[[int, np.ndarray[Any, Any]], None] | None = None,
) -> list[np.ndarray[Any, Any]]:
    """`backward_raw`, with zeros where the loss does not depend on a target, each in its target's dtype."""
    grads = backward_raw(loss, targets, sens, on_ready)
    return [_fit(g, t) for g, t in zip(grads, targets, strict=True)]


def backward_raw(
    loss: Tensor,
    targets: Sequence[Tensor],
    sens: Any = None,
    on_ready: Callable[[int, np.ndarray[Any, Any]], None] | None = None,
) -> list[np.ndarray[Any, Any] | None]:
    """Return d(loss)/d(target) for each target, None where the loss does not depend on it.

    Args:
        loss: The tensor to differentiate; non-scalar losses are seeded with `sens`.
        targets: Tensors (usually parameters) to return gradients for.
        sens: The seed gradient; ones shaped like `loss` when None.
        on_ready: Called as `on_ready(i, grad)` as soon as target `i`'s gradient is
            final (its last consumer was processed), while the rest of the backward
            pass still runs: data-parallel training starts reducing it there. Not
            called for targets the loss does not depend on.
    """
    data = loss._data
    seed = np.ones_like(data) if sens is None else _seed(sens, data)
    grads: dict[int, np.ndarray[Any, Any]] = {id(loss): seed}
    # The tensors whose gradient is a sum this pass made: no node's closure holds it,
    # so the next gradient can be added into it.
    summed: set[int] = set()
    add = current_target().sum_gradients
    wanted = {id(t) for t in targets}
    order = _collect(loss)
    final_at = _final_positions(order, targets) if on_ready is not None else {}
    for pos, t in enumerate(order):
        g = grads.get(id(t)) if id(t) in wanted else grads.pop(id(t), None)
        if g is None:
            continue
        node = t._node
        assert node is not None
        for inp, gi in zip(node.inputs, node.backward(g), strict=True):
            if gi is None or not inp._tracked:
                continue
            key = id(inp)
            prev = grads.get(key)
            if prev is None:
                grads[key] = gi
            else:
                grads[key] = add(prev, gi, key in summed)
                summed.add(key)
        if on_ready is not None:
            for i in final_at.get(pos, ()):
                g_i = grads.get(id(targets[i]))
                if g_i is not None:
                    on_ready(i, _fit(g_i, targets[i]))
    return [grads.get(id(t)) for t in targets]


def _seed(sens: Any, data: Any) -> Any:
    """`sens` broadcast to the loss's shape and dtype; a device array stays on its device."""
    if not getattr(type(sens), "__cadence_device__", False):
        sens = np.asarray(sens)  # np.asarray would copy a device array to the host
    if sens.dtype != data.dtype:
        sens = sens.astype(data.dtype)
    return np.broadcast_to(sens, data.shape)


def _final_positions(
    order: list[Tensor], targets: Sequence[Tensor]
) -> dict[int, list[int]]:
    """Map a position in `order` to the targets whose last consumer sits there."""
    index = {id(t): i for i, t in enumerate(targets)}
    last: dict[int, int] = {}
    for pos, t in enumerate(order):
        node = t._node
        assert node is not None
        for inp in node.inputs:
            i = index.get(id(inp))
            if i is not None:
                last[i] = pos
    # A target that is itself an intermediate (has a node) is final once it is processed.
    for pos, t in enumerate(order):
        i = index.get(id(t))
        if i is not None:
            last[i] = max(last.get(i, pos), pos)
    at: dict[int, list[int]] = {}
    for i, pos in last.items():
        at.setdefault(pos, []).append(i)
    return at


def _fit(g: np.ndarray[Any, Any] | None, t: Tensor) -> np.ndarray[Any, Any]:
    if g is None:
        return np.zeros_like(t._data)
    if g.dtype != t._data.dtype:
        g = g.astype(t._data.dtype)
    return g
