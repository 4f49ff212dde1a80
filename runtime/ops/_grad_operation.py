"""`GradOperation`: MindSpore's gradient transform with its three flags, over cadence's tape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, final

from ..compute._autograd import backward, enable_grad
from ..compute._grad import tracked_leaf
from ..compute._tensor import Parameter, Tensor
from ..validation import check_bool
from . import _functional as f

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["GradOperation"]


def _root(out: Any, sens: Any) -> tuple[Tensor, Any]:
    """Return the tensor to differentiate and its seed: the output itself, or one sum for a tuple output.

    For a tuple output, sum over i of (output_i * sens_i) has the gradient
    sum over i of J_i^T sens_i, which is what MindSpore returns; outputs the
    tape did not record (labels passed through, integer results) add nothing.
    """
    if isinstance(out, Tensor):
        return out, None if sens is None else f.as_tensor(sens)._data
    if not isinstance(out, tuple | list):
        raise TypeError(
            f"For 'GradOperation', the function must return a Tensor or a tuple of Tensors, "
            f"but got {out!r} of type {type(out).__name__!r}."
        )
    seeds = (None,) * len(out) if sens is None else tuple(sens)
    if len(seeds) != len(out):
        raise ValueError(
            f"For 'GradOperation', 'sens' must have one entry per output ({len(out)}), but got {len(seeds)}."
        )
    terms = [
        f.sum(o if s is None else f.mul(o, s))
        for o, s in zip(out, seeds, strict=True)
        if isinstance(o, Tensor) and o._tracked
    ]
    if not terms:
        return f.as_tensor(0.0), None
    total = terms[0]
    for term in terms[1:]:
        total = f.add(total, term)
    return total, None


def _weights(weights: Any) -> tuple[Parameter, ...]:
    items = (weights,) if isinstance(weights, Parameter) else weights
    if not isinstance(items, tuple | list) or not all(
        isinstance(w, Parameter) for w in items
    ):
        raise TypeError(
            "For 'GradOperation', with get_by_list=True the argument 'weights' must be a "
            f"ParameterTuple, a list of Parameters or a Parameter, but got {weights!r}."
        )
    return tuple(items)


@final
class GradOperation:
    """Build gradient functions, as `mindspore.ops.GradOperation`.

    `GradOperation(...)(fn)` (or `(fn, weights)` with `get_by_list`) returns a
    function taking `fn`'s inputs (then the seed gradient, with `sens_param`)
    and returning gradients:

    - default: the gradient of the first input;
    - `get_all`: a tuple, one per Tensor input;
    - `get_by_list`: a tuple, one per weight;
    - `get_all` and `get_by_list`: `(input gradients, weight gradients)`.

    Args:
        get_all: Differentiate with respect to every Tensor input.
        get_by_list: Differentiate with respect to `weights`.
        sens_param: The last argument of the returned function is the seed
            gradient of `fn`'s output (a tuple of seeds for a tuple output);
            without it the seed is ones.

    Example:
        >>> import cadence as ms
        >>> from cadence import ops
        >>> ops.GradOperation()(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))
        Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
    """

    def __init__(
        self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False
    ) -> None:
        self.get_all = check_bool(get_all, "get_all", "GradOperation")
        self.get_by_list = check_bool(get_by_list, "get_by_list", "GradOperation")
        self.sens_param = check_bool(sens_param, "sens_param", "GradOperation")

    def __call__(
        self, fn: Callable[..., Any], weights: Any = None
    ) -> Callable[..., Any]:
        """Return the gradient function of `fn` (with respect to `weights` when `get_by_list`)."""
        if not callable(fn):
            raise TypeError(
                f"For 'GradOperation', the argument 'fn' must be a Cell or function, "
                f"but got {fn!r} of type {type(fn).__name__!r}."
            )
        params = _weights(weights) if self.get_by_list else ()

        def gradients(*args: Any) -> Any:
            return self._gradients(fn, params, args)

        return gradients

    def _gradients(
        self, fn: Callable[..., Any], params: Sequence[Parameter], args: tuple[Any, ...]
    ) -> Any:
        sens = None
        if self.sens_param:
            if not args:
                raise TypeError(
                    "For 'GradOperation' with sens_param=True, the last argument must be "
                    "the seed gradient ('sens'), but no argument was given."
                )
            *rest, sens = args
            args = tuple(rest)
        wanted = range(len(args)) if self.get_all else range(min(1, len(args)))
        positions = [i for i in wanted if isinstance(args[i], Tensor)]
        if not self.get_all and not self.get_by_list and not positions:
            raise TypeError(
                "For 'GradOperation', the first input must be a Tensor to differentiate, "
                f"but got {args[0] if args else 'no input'!r}."
            )
        call_args = list(args)
        for i in positions:
            call_args[i] = tracked_leaf(args[i])
        with enable_grad():  # the sum of a tuple output is recorded too
            root, seed = _root(fn(*call_args), sens)
        leaves = [call_args[i] for i in positions]
        grads = [Tensor._wrap(g) for g in backward(root, [*leaves, *params], seed)]
        inputs, weights = tuple(grads[: len(leaves)]), tuple(grads[len(leaves) :])
        if self.get_all and self.get_by_list:
            return inputs, weights
        if self.get_by_list:
            return weights
        return inputs if self.get_all else inputs[0]
