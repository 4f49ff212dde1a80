"""`grad` and `value_and_grad`: MindSpore's functional differentiation over the tape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._autograd import backward, enable_grad
from ._tensor import Parameter, Tensor

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["get_grad", "grad", "tracked_leaf", "value_and_grad"]


def tracked_leaf(x: Tensor) -> Tensor:
    """A fresh tracked tensor over `x`'s data, so its gradient is collected without touching `x`.

    It shares the data wherever it lives: an input on a device stays there (`asnumpy()`
    would copy it to the host, and the whole backward pass would follow it).
    """
    leaf = Tensor._wrap(x._data)
    leaf._tracked = True
    return leaf


def _positions(grad_position: Any) -> tuple[int, ...] | None:
    if grad_position is None:
        return None
    if isinstance(grad_position, int) and not isinstance(grad_position, bool):
        return (grad_position,)
    if isinstance(grad_position, tuple) and all(
        isinstance(i, int) for i in grad_position
    ):
        return grad_position
    raise TypeError(
        f"`grad_position` must be an int, a tuple of ints or None, but got {grad_position!r}."
    )


def _weights(weights: Any) -> tuple[Parameter, ...] | None:
    if weights is None:
        return None
    items = (weights,) if isinstance(weights, Parameter) else tuple(weights)
    for w in items:
        if not isinstance(w, Parameter):
            raise TypeError(
                f"`weights` must be a Parameter or a sequence of Parameters, but got an element {w!r}."
            )
    return items


def value_and_grad(
    fn: Callable[..., Any],
    grad_position: Any = 0,
    weights: Any = None,
    has_aux: bool = False,
    return_ids: bool = False,
    sens_param: bool = False,
) -> Callable[..., tuple[Any, Any]]:
    """Return a function computing `(fn(*args), gradients)`.

    Args:
        fn: The function (or Cell) to differentiate; its (first) output is the loss.
        grad_position: Index or tuple of indices of the inputs to differentiate, or None.
        weights: Parameters to differentiate.
        has_aux: `fn` returns (loss, *aux); only the loss is differentiated.
        return_ids: Pair each gradient with what it is for: `(position, grad)` for an
            input, `(parameter name, grad)` for a weight; `get_grad` reads them.
        sens_param: The function takes one more argument, last: the gradient with respect
            to the output (a tuple of them for a tuple output), instead of ones.

    A function returning a tuple (without `has_aux`) is differentiated as the sum of its
    outputs, as in MindSpore. The gradients are: for inputs only, one Tensor (int position) or a tuple;
    for weights only, a tuple; for both, `(input grads, weight grads)`.

    Example:
        >>> import cadence as ms
        >>> ms.value_and_grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))[1]
        Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
    """
    if not callable(fn):
        raise TypeError(f"`fn` must be callable, but got {fn!r}.")
    positions = _positions(grad_position)
    params = _weights(weights)
    if positions is None and params is None:
        raise ValueError("`grad_position` and `weights` cannot both be None.")
    for name, flag in (("return_ids", return_ids), ("sens_param", sens_param)):
        if not isinstance(flag, bool):
            raise TypeError(
                f"`{name}` must be a bool, but got {flag!r} of type {type(flag).__name__!r}."
            )

    def wrapped(*args: Any) -> tuple[Any, Any]:
        sens = None
        if sens_param:
            if not args:
                raise ValueError(
                    "With `sens_param=True` the last argument must be the output's gradient, but got no arguments."
                )
            *args, sens = args  # type: ignore[assignment]
        call_args = list(args)
        leaves: list[Tensor] = []
        for i in positions or ():
            if i >= len(args) or not isinstance(args[i], Tensor):
                raise ValueError(
                    f"`grad_position` {i} does not name a Tensor argument (got {len(args)} arguments)."
                )
            leaf = tracked_leaf(args[i])
            call_args[i] = leaf
            leaves.append(leaf)
        with enable_grad():
            out = fn(*call_args)
            differentiated = out[0] if has_aux else out
            loss = _as_root(differentiated, sens)
        targets: Sequence[Tensor] = [*leaves, *(params or ())]
        # A single output is seeded with `sens`; a tuple's sens went into `_as_root`.
        seed = sens if loss is differentiated else None
        if isinstance(seed, tuple | list):
            raise ValueError(
                f"With `sens_param=True` and one output, the last argument must be its gradient, "
                f"not a sequence, but got {seed!r}."
            )
        seed = seed._data if isinstance(seed, Tensor) else seed
        grads: list[Any] = [Tensor._wrap(g) for g in backward(loss, targets, seed)]
        if return_ids:
            ids = [*(positions or ()), *(p.name for p in params or ())]
            grads = [(i, g) for i, g in zip(ids, grads, strict=True)]
        input_grads: Any = tuple(grads[: len(leaves)])
        if isinstance(grad_position, int):
            input_grads = input_grads[0]
        weight_grads = tuple(grads[len(leaves) :])
        if positions is None:
            return out, weight_grads
        if params is None:
            return out, input_grads
        return out, (input_grads, weight_grads)

    return wrapped


def _as_root(loss: Any, sens: Any) -> Any:
    """The tensor backward starts from; for a tuple of outputs, the sum of their sums.

    Each output's sum is weighted by its `sens` when given, so the gradient is the sum of
    the outputs' gradients, as MindSpore differentiates a tuple.
    """
    if not isinstance(loss, tuple | list):
        return loss
    if sens is not None and (
        not isinstance(sens, tuple | list) or len(sens) != len(loss)
    ):
        raise ValueError(
            f"With `sens_param=True` and {len(loss)} outputs, the last argument must be a tuple of "
            f"{len(loss)} gradients, but got {sens!r}."
        )
    weights = sens if sens is not None else (None,) * len(loss)
    parts = [
        (o if w is None else o * w).sum()
        for o, w in zip(loss, weights, strict=True)
        if isinstance(o, Tensor)
    ]
    root = parts[0]
    for part in parts[1:]:
        root = root + part
    return root


def grad(
    fn: Callable[..., Any],
    grad_position: Any = 0,
    weights: Any = None,
    has_aux: bool = False,
    return_ids: bool = False,
    sens_param: bool = False,
) -> Callable[..., Any]:
    """Return a function computing the gradients of `fn` (see `value_and_grad`); with `has_aux`, `(grads, aux)`."""
    vg = value_and_grad(fn, grad_position, weights, has_aux, return_ids, sens_param)

    def wrapped(*args: Any) -> Any:
        out, grads = vg(*args)
        return (grads, tuple(out[1:])) if has_aux else grads

    return wrapped


def _pairs(gradients: Any) -> list[tuple[Any, Any]]:
    """The `(id, gradient)` pairs in `return_ids` results, however they are nested."""
    is_pair = isinstance(gradients, tuple) and len(gradients) == 2
    if (
        is_pair
        and isinstance(gradients[1], Tensor)
        and isinstance(gradients[0], int | str)
        and not isinstance(gradients[0], bool)
    ):
        return [gradients]
    if isinstance(gradients, tuple | list):
        return [pair for item in gradients for pair in _pairs(item)]
    return []


def get_grad(gradients: Any, identifier: Any) -> Tensor:
    """Return one gradient from the results of `grad(..., return_ids=True)`, as `mindspore.get_grad`.

    Args:
        gradients: What the function made by `grad` or `value_and_grad` with
            `return_ids=True` returned (its gradients part).
        identifier: An input's position (int), or a Parameter (found by its name).

    Raises:
        TypeError: If `identifier` is neither an int nor a Parameter.
        ValueError: If `gradients` holds no gradient for it (MindSpore: RuntimeError);
            the message lists the ids it does hold.

    Example:
        >>> import cadence as ms
        >>> grads = ms.grad(lambda x, y: (x * y).sum(), (0, 1), return_ids=True)(
        ...     ms.Tensor([1.0]), ms.Tensor([3.0]))
        >>> ms.get_grad(grads, 1)
        Tensor(shape=[1], dtype=Float32, value= [ 1.00000000e+00])
    """
    if isinstance(identifier, Parameter):
        key: Any = identifier.name
    elif isinstance(identifier, int) and not isinstance(identifier, bool):
        key = identifier
    else:
        raise TypeError(
            f"For 'get_grad', the argument 'identifier' must be an int (an input's position) or a "
            f"Parameter, but got {identifier!r} of type {type(identifier).__name__!r}."
        )
    pairs = _pairs(gradients)
    for found, grad_value in pairs:
        if found == key:
            return grad_value  # type: ignore[no-any-return]
    raise ValueError(
        f"For 'get_grad', no gradient for {identifier!r} in 'gradients' (its ids: "
        f"{[found for found, _ in pairs]}); were they made by `grad(..., return_ids=True)`?"
    )
