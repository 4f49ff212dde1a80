"""`vmap`: MindSpore's mapping of a function over an axis of its inputs, as a loop.

MindSpore rewrites the function's graph into one batched computation. cadence
calls the function once per index of the mapped axis, on slices of the inputs,
and stacks the results: the same values and shapes, at the cost of one call per
element. Slicing and stacking are recorded on the tape, so `grad` of a mapped
function differentiates through every call.

Axis specifications follow MindSpore's (and JAX's) prefix rule: an int or None
applies to everything below it; a tuple or list matches a tuple or list of
arguments (or outputs) element by element, to any depth.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute._tensor import Tensor
from ._functional import stack

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["vmap"]


def _check_spec(spec: Any, name: str) -> None:
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if not isinstance(spec, tuple | list):
        raise TypeError(
            f"For 'vmap', the argument '{name}' must be an int, None, or a tuple or list of them "
            f"(nested to any depth), but got {spec!r} of type {type(spec).__name__!r}."
        )
    for item in spec:
        _check_spec(item, name)


def _axis(axis: int, ndim: int, name: str) -> int:
    """`axis` made non-negative for `ndim` dimensions; ValueError if out of bounds."""
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"For 'vmap', an axis in '{name}' must be in [{-ndim}, {ndim}) here, but got {axis}."
        )
    return axis % ndim


def _zip_spec(spec: Any, value: Any, name: str, leaf: Callable[[Any, Any], Any]) -> Any:
    """Apply `leaf(axis, value)` to each leaf of `value`, its axis from `spec` by the prefix rule."""
    if isinstance(spec, tuple | list):
        if not isinstance(value, tuple | list) or len(value) != len(spec):
            got = (
                f"{len(value)} elements"
                if isinstance(value, tuple | list)
                else f"a {type(value).__name__}"
            )
            raise ValueError(
                f"For 'vmap', the argument '{name}' has {len(spec)} elements {spec!r} where the "
                f"value has {got}; each tuple or list in '{name}' must match the value's."
            )
        return type(value)(
            _zip_spec(s, v, name, leaf) for s, v in zip(spec, value, strict=True)
        )
    if isinstance(value, tuple | list):
        return type(value)(_zip_spec(spec, v, name, leaf) for v in value)
    return leaf(spec, value)


def _mapped_size(in_axes: Any, args: tuple[Any, ...], models: int | None) -> int:
    """The length of the mapped axis; with a CellList (`models` cells), that number of cells."""
    sizes: list[int] = [] if models is None else [models]

    def measure(axis: Any, value: Any) -> None:
        if axis is None:
            return
        if not isinstance(value, Tensor):
            raise ValueError(
                f"For 'vmap', 'in_axes' maps axis {axis} of {value!r} of type {type(value).__name__!r}, "
                "which is not a Tensor; give it the axis None."
            )
        sizes.append(value.shape[_axis(axis, value.ndim, "in_axes")])

    _zip_spec(in_axes, args, "in_axes", measure)
    if not sizes:
        raise ValueError(
            f"For 'vmap', 'in_axes' must map at least one Tensor argument (or 'fn' be a CellList), "
            f"but got {in_axes!r}."
        )
    if len(set(sizes)) > 1:
        raise ValueError(
            f"For 'vmap', every mapped axis must have the same size, but got sizes {sizes}."
        )
    if sizes[0] == 0:
        raise ValueError(
            "For 'vmap', the mapped axis has size 0: cadence's vmap calls the function once per "
            "element to learn its outputs, so it needs at least one."
        )
    return sizes[0]


def _take(index: int) -> Callable[[Any, Any], Any]:
    def take(axis: Any, value: Any) -> Any:
        if axis is None:
            return value
        return value[(slice(None),) * (axis % value.ndim) + (index,)]

    return take


def _combine(axis: Any, results: list[Any]) -> Any:
    """One output leaf from every call's value of it: stacked at `axis`, or the common value (None)."""
    if axis is None:
        first = np.asarray(results[0])
        if any(not np.array_equal(first, np.asarray(r)) for r in results[1:]):
            raise ValueError(
                "For 'vmap', an output with out_axes None must be the same for every element "
                "of the mapped axis, but it differs between calls."
            )
        return results[0]
    parts = [r if isinstance(r, Tensor) else Tensor(r) for r in results]
    return stack(parts, _axis(axis, parts[0].ndim + 1, "out_axes"))


def _gather(out_axes: Any, results: list[Any]) -> Any:
    """Combine the calls' outputs leaf by leaf; lists come back as tuples, as MindSpore's do."""
    first = results[0]
    if isinstance(first, tuple | list):
        if any(
            not isinstance(r, tuple | list) or len(r) != len(first) for r in results
        ):
            raise ValueError(
                "For 'vmap', the function returned outputs of different structures."
            )
        if isinstance(out_axes, tuple | list) and len(out_axes) != len(first):
            raise ValueError(
                f"For 'vmap', the argument 'out_axes' has {len(out_axes)} elements {out_axes!r} "
                f"where the output has {len(first)}."
            )
        specs = (
            out_axes if isinstance(out_axes, tuple | list) else (out_axes,) * len(first)
        )
        return tuple(
            _gather(spec, [r[i] for r in results]) for i, spec in enumerate(specs)
        )
    if isinstance(out_axes, tuple | list):
        raise ValueError(
            f"For 'vmap', the argument 'out_axes' is {out_axes!r} but the output is a single "
            f"{type(first).__name__}, not a tuple."
        )
    return _combine(out_axes, results)


def vmap(
    fn: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0
) -> Callable[..., Any]:
    """Map `fn` over an axis of its inputs, as `mindspore.vmap`, by calling it once per element.

    Args:
        fn: The function (or Cell) to map; or a CellList of cells of the same structure
            (a model ensemble), whose cell i computes element i: then every argument may be
            passed whole (`in_axes=None`), and the mapped axes have one element per cell.
        in_axes: Per argument, the axis to map over, or None for an argument passed whole
            to every call; an int or None applies to all arguments; tuples and lists
            nest to match tuple and list arguments.
        out_axes: Per output, where the mapped axis goes in the result, or None for an
            output that is the same for every element (returned once).

    Returns:
        A function taking `fn`'s arguments. Each output is the stack of the calls' outputs
        (numbers become Tensors; lists come back as tuples).

    Raises:
        TypeError: If `fn` is not callable or an axis specification has another type.
        ValueError: At the call: specifications that do not match the arguments or outputs,
            axes out of bounds, mapped axes of different (or zero) sizes, no mapped argument,
            or an output with `out_axes` None that differs between elements.

    Example:
        >>> import cadence as ms
        >>> x = ms.Tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> ms.vmap(lambda row, w: (row * w).sum(), in_axes=(0, None))(x, ms.Tensor([1.0, 10.0]))
        Tensor(shape=[2], dtype=Float32, value= [ 2.10000000e+01,  4.30000000e+01])
    """
    from ..nn import CellList  # a model ensemble: cell i computes element i

    if not callable(fn):
        raise TypeError(
            f"For 'vmap', the argument 'fn' must be callable, but got {fn!r} of type {type(fn).__name__!r}."
        )
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")

    def mapped(*args: Any) -> Any:
        if isinstance(in_axes, tuple | list) and len(in_axes) != len(args):
            raise ValueError(
                f"For 'vmap', the argument 'in_axes' has {len(in_axes)} elements {in_axes!r} "
                f"but the function got {len(args)} arguments."
            )
        models = list(fn) if isinstance(fn, CellList) else None
        size = _mapped_size(in_axes, args, None if models is None else len(models))
        calls: list[Any] = [fn] * size if models is None else models
        results = [
            call(*_zip_spec(in_axes, args, "in_axes", _take(i)))
            for i, call in enumerate(calls)
        ]
        return _gather(out_axes, results)

    return mapped
