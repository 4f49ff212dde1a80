"""The ONNX graph a trace builds, and what every conversion shares (`_trace` and `_conv` use it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..compute._tensor import Parameter, Tensor

__all__ = ["Array", "Converter", "Graph", "arg", "first_array"]

Array = np.ndarray[Any, Any]


class Graph:
    """The ONNX nodes, initializers and value names built so far."""

    def __init__(self, onnx: Any) -> None:
        self.onnx = onnx
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.names: dict[
            int, str
        ] = {}  # id(Tensor) -> ONNX value name, for traced values
        self.keep: list[
            Any
        ] = []  # the traced tensors: their ids stay unique while tracing
        self.param_names: dict[int, str] = {}
        self.counter = 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    def traced(self, value: Any) -> bool:
        return isinstance(value, Tensor) and id(value) in self.names

    def bind(self, tensor: Tensor, name: str) -> None:
        self.names[id(tensor)] = name
        self.keep.append(tensor)

    def constant(
        self, value: Any, like: Array | None = None, stem: str = "const"
    ) -> str:
        """An initializer holding `value` (a Parameter keeps its name), in `like`'s float type for scalars."""
        if isinstance(value, Parameter):
            known = self.param_names.get(id(value))
            if known is not None:
                return known
            name = (
                value.name
                if value.name not in self.param_names.values()
                else self.fresh(value.name)
            )
            self.param_names[id(value)] = name
            array = value.asnumpy()
        else:
            name = self.fresh(stem)
            array = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
            if (
                like is not None
                and array.dtype.kind in "iuf"
                and like.dtype.kind == "f"
            ):
                array = array.astype(
                    like.dtype
                )  # Python scalars join the traced value's type
        self.initializers.append(
            self.onnx.numpy_helper.from_array(np.ascontiguousarray(array), name)
        )
        self.keep.append(value)
        return name

    def ints(self, values: Sequence[int]) -> str:
        return self.constant(np.asarray(list(values), np.int64), stem="shape")

    def operand(self, value: Any, like: Array | None = None) -> str:
        if self.traced(value):
            return self.names[id(value)]
        return self.constant(value, like)

    def node(
        self, op: str, inputs: list[str], out: Tensor | None = None, **attrs: Any
    ) -> str:
        name = self.fresh(op.lower())
        self.nodes.append(
            self.onnx.helper.make_node(op, inputs, [name], name=name, **attrs)
        )
        if out is not None:
            self.bind(out, name)
        return name


Converter = Callable[[Graph, tuple[Any, ...], dict[str, Any], Any], None]


def arg(
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    i: int,
    name: str,
    default: Any = None,
) -> Any:
    """A converter's argument `i` (or keyword `name`) of the traced call."""
    return args[i] if len(args) > i else kwargs.get(name, default)


def first_array(args: tuple[Any, ...]) -> Array | None:
    """The first Tensor argument's data: the type Python scalars of the call take."""
    for a in args:
        if isinstance(a, Tensor):
            data: Array = a.asnumpy()
            return data
    return None
