"""The function form `recompute(block, *args)` (`mindspore.recompute`, also `mindspore.common.recompute`).

MindSpore frees a block's activations after the forward pass and computes them
again during the backward pass, trading time for memory. cadence's tape keeps
every activation, so `recompute` only calls the block: results and gradients are
the same, and memory use is that of the plain call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["recompute"]


def recompute(
    block: Any,
    *args: Any,
    use_reentrant: bool = True,
    output_recompute: bool = False,
    **kwargs: Any,
) -> Any:
    """Return `block(*args, **kwargs)`, as `mindspore.recompute`; nothing is recomputed in cadence.

    Args:
        block: The Cell to call. MindSpore takes only a Cell with `use_reentrant=True`
            (its default); so does cadence. With `use_reentrant=False` any callable.
        *args: The block's positional inputs.
        use_reentrant: MindSpore's option (True: `block` must be a Cell); a bool.
        output_recompute: MindSpore's option; a bool, changing nothing here.
        **kwargs: The block's keyword inputs; MindSpore's `early_stop` and `context_fn`
            options are accepted among them and not passed on.

    Raises:
        TypeError: If `block` is not a Cell (`use_reentrant=True`) or not callable, or an
            option is not a bool.

    Example:
        >>> import cadence as ms
        >>> ms.recompute(ms.nn.ReLU(), ms.Tensor([-1.0, 2.0]))
        Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  2.00000000e+00])
    """
    from ..nn import Cell

    for name, value in (
        ("use_reentrant", use_reentrant),
        ("output_recompute", output_recompute),
    ):
        if not isinstance(value, bool):
            raise TypeError(
                f"For 'recompute', the argument '{name}' must be a bool, "
                f"but got {value!r} of type {type(value).__name__!r}."
            )
    if use_reentrant and not isinstance(block, Cell):
        raise TypeError(
            f"For 'recompute', the argument 'block' must be a Cell when 'use_reentrant' is True, "
            f"but got {block!r} of type {type(block).__name__!r}."
        )
    if not callable(block):
        raise TypeError(
            f"For 'recompute', the argument 'block' must be callable, "
            f"but got {block!r} of type {type(block).__name__!r}."
        )
    for option in ("early_stop", "context_fn"):
        kwargs.pop(
            option, None
        )  # MindSpore's scheduling options: nothing to schedule here
    return block(*args, **kwargs)
