"""Trace a Cell's forward pass into an ONNX graph.

Why tracing the functional ops (and not walking the cells): a custom Cell's
`construct` is arbitrary Python that calls layers *and* operators (`x + y`,
`ops.reshape`, `x.view(...)`, `ops.concat`) in any order; walking the cell tree
sees the layers but not that code, while every layer and every Tensor operator
of cadence ends in a function of `cadence.ops` (`_functional` or `_nn`). So the
forward runs once on the example inputs with those functions wrapped: each call
whose inputs depend on a graph input becomes ONNX nodes; calls on parameters
and constants only (e.g. BatchNorm's `gamma / sqrt(var + eps)` in inference)
are folded into constants by running them. A call of an operator that has no
ONNX conversion, on a value that depends on an input, stops the export with an
error naming it, instead of baking a wrong constant into the model.

The graph has fixed shapes (those of the example inputs), as MindSpore's export.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compute._tensor import Tensor
from ._conv import CONVOLUTIONS
from ._graph import Converter, Graph, arg, first_array

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

__all__ = ["OPSET", "trace_to_onnx"]

OPSET = 17


# --- conversions: (graph, args, kwargs, output) -> None, binding the output -----------------------


def _binary(op: str) -> Converter:
    def convert(
        g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
    ) -> None:
        like = first_array(args)
        g.node(op, [g.operand(args[0], like), g.operand(args[1], like)], out)

    return convert


def _unary(op: str, **attrs: Any) -> Converter:
    def convert(
        g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
    ) -> None:
        g.node(op, [g.operand(args[0])], out, **attrs)

    return convert


def _square(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    x = g.operand(args[0])
    g.node("Mul", [x, x], out)


def _to_shape(
    g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
) -> None:
    # reshape, flatten, expand_dims, squeeze: the traced output's shape is known, so one Reshape does.
    g.node("Reshape", [g.operand(args[0]), g.ints(out.shape)], out)


def _transpose(
    g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
) -> None:
    perm = arg(args, kwargs, 1, "input_perm")
    x = args[0]
    perm = (
        tuple(range(x.ndim))[::-1]
        if perm is None
        else tuple(int(p) % x.ndim for p in perm)
    )
    g.node("Transpose", [g.operand(x)], out, perm=list(perm))


def _concat(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    tensors = list(args[0])
    axis = int(arg(args, kwargs, 1, "axis", 0)) % out.ndim
    like = first_array(tuple(tensors))
    g.node("Concat", [g.operand(t, like) for t in tensors], out, axis=axis)


def _stack(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    tensors = list(args[0])
    axis = int(arg(args, kwargs, 1, "axis", 0)) % out.ndim
    like = first_array(tuple(tensors))
    # Each input gets the new axis (a Reshape: its shape is known), then they are joined along it.
    parts = []
    for t in tensors:
        shape = list(np.shape(t))
        parts.append(
            g.node(
                "Reshape",
                [g.operand(t, like), g.ints([*shape[:axis], 1, *shape[axis:]])],
            )
        )
    g.node("Concat", parts, out, axis=axis)


_INT64_MIN = -(2**63)


def _getitem(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    """Basic indexing (ints, slices, `...`, None): one Slice, then a Reshape to the result's shape."""
    x, index = args[0], args[1]
    items = index if isinstance(index, tuple) else (index,)
    if not all(i is None or i is Ellipsis or isinstance(i, int | slice) for i in items):
        raise NotImplementedError(
            f"For 'export', indexing with {index!r} (arrays or Tensors) has no ONNX conversion; basic "
            "indexing (ints, slices, '...', None) has."
        )
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    starts, ends, axes, steps = [], [], [], []
    axis = 0
    for item in items:
        if item is None:
            continue
        if item is Ellipsis:
            axis += x.ndim - used
            continue
        dim = x.shape[axis]
        if isinstance(item, int):
            start, stop, step = item % dim, item % dim + 1, 1
        else:
            start, stop, step = item.indices(dim)
            if step < 0 and stop < 0:
                stop = _INT64_MIN  # "before the first element", which -1 would not mean to ONNX
        starts.append(start)
        ends.append(stop)
        steps.append(step)
        axes.append(axis)
        axis += 1
    y = g.operand(x)
    if axes:
        y = g.node(
            "Slice", [y, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)]
        )
    g.node("Reshape", [y, g.ints(out.shape)], out)


def _reduce(op: str, keep_name: str) -> Converter:
    def convert(
        g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
    ) -> None:
        x = args[0]
        axis = arg(args, kwargs, 1, "axis")
        keep = int(bool(arg(args, kwargs, 2, keep_name, False)))
        axes = (
            list(range(x.ndim))
            if axis is None
            else [int(a) % x.ndim for a in np.atleast_1d(axis)]
        )
        if (
            op == "ReduceMean"
        ):  # opset 17: axes is an attribute of ReduceMean, an input of ReduceSum
            g.node(op, [g.operand(x)], out, axes=axes, keepdims=keep)
        else:
            g.node(op, [g.operand(x), g.ints(axes)], out, keepdims=keep)

    return convert


def _clip(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    like = first_array(args)
    lo, hi = arg(args, kwargs, 1, "xmin"), arg(args, kwargs, 2, "xmax")
    inputs = [
        g.operand(args[0]),
        "" if lo is None else g.constant(np.asarray(lo), like),
    ]
    if hi is not None:
        inputs.append(g.constant(np.asarray(hi), like))
    g.node("Clip", inputs, out)


def _cast(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    to = g.onnx.helper.np_dtype_to_tensor_dtype(out.asnumpy().dtype)
    g.node("Cast", [g.operand(args[0])], out, to=to)


def _softmax(op: str) -> Converter:
    def convert(
        g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
    ) -> None:
        axis = int(arg(args, kwargs, 1, "axis", -1))
        g.node(op, [g.operand(args[0])], out, axis=axis)

    return convert


_ACTIVATIONS = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh"}


def _dense(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    x, weight = args[0], args[1]
    bias = arg(args, kwargs, 2, "bias")
    activation = arg(args, kwargs, 3, "activation")
    inputs = [g.operand(x), g.constant(weight)]
    if x.ndim == 2:
        if bias is not None:
            inputs.append(g.constant(bias))
        y = g.node("Gemm", inputs, transB=1)
    else:  # extra leading axes: MatMul broadcasts them
        wt = g.constant(
            np.ascontiguousarray(weight.asnumpy().T), stem=f"{weight.name}_t"
        )
        y = g.node("MatMul", [inputs[0], wt])
        if bias is not None:
            y = g.node("Add", [y, g.constant(bias)])
    if activation is not None:
        y = g.node(_ACTIVATIONS[activation], [y])
    g.bind(out, y)


def _pool(op: str) -> Converter:
    def convert(
        g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
    ) -> None:
        kernel, stride = (
            arg(args, kwargs, 1, "kernel"),
            arg(args, kwargs, 2, "stride"),
        )
        g.node(
            op,
            [g.operand(args[0])],
            out,
            kernel_shape=[int(k) for k in kernel],
            strides=[int(s) for s in stride],
        )

    return convert


def _pad(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    like = first_array(args)
    padding = [(int(a), int(b)) for a, b in arg(args, kwargs, 1, "padding")]
    value = arg(args, kwargs, 2, "value", 0.0)
    pads = [a for a, _ in padding] + [b for _, b in padding]
    g.node(
        "Pad",
        [g.operand(args[0]), g.ints(pads), g.constant(np.asarray(value), like)],
        out,
        mode="constant",
    )


def _identity(
    g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
) -> None:
    g.node("Identity", [g.operand(args[0])], out)


_FUNCTIONAL: dict[str, Converter] = {
    "add": _binary("Add"),
    "sub": _binary("Sub"),
    "mul": _binary("Mul"),
    "div": _binary("Div"),
    "pow": _binary("Pow"),
    "maximum": _binary("Max"),
    "minimum": _binary("Min"),
    "matmul": _binary("MatMul"),
    "neg": _unary("Neg"),
    "abs": _unary("Abs"),
    "exp": _unary("Exp"),
    "log": _unary("Log"),
    "sqrt": _unary("Sqrt"),
    "square": _square,
    "reshape": _to_shape,
    "flatten": _to_shape,
    "expand_dims": _to_shape,
    "squeeze": _to_shape,
    "transpose": _transpose,
    "concat": _concat,
    "stack": _stack,
    "getitem": _getitem,
    "mean": _reduce("ReduceMean", "keep_dims"),
    "sum": _reduce("ReduceSum", "keepdims"),
    "clip": _clip,
    "cast": _cast,
    "pad": _pad,
}
_NN: dict[str, Converter] = {
    "relu": _unary("Relu"),
    "sigmoid": _unary("Sigmoid"),
    "tanh": _unary("Tanh"),
    "softmax": _softmax("Softmax"),
    "log_softmax": _softmax("LogSoftmax"),
    "dense": _dense,
    "conv2d": CONVOLUTIONS["conv2d"],
    "max_pool2d": _pool("MaxPool"),
    "avg_pool2d": _pool("AveragePool"),
    "dropout": _identity,
}


# Helpers, and constructors whose results depend on a shape only (fixed in the graph): never recorded.
_NOT_OPERATORS = frozenset(
    {"record", "as_tensor", "unbroadcast", "zeros", "ones", "zeros_like", "ones_like"}
)
# Compositions of convertible operators (`cadence.ops._activations`): left unwrapped, so
# the operators they call are recorded one by one.
_COMPOSED = frozenset({"relu6", "hardsigmoid", "hardswish", "softsign"})
_UNWRAPPED = _NOT_OPERATORS | _COMPOSED


class _Tracer(threading.local):
    graph: Graph | None = None
    depth = 0


_tracer = _Tracer()
_patch_lock = threading.Lock()


def _wrap(
    name: str, original: Callable[..., Any], convert: Converter | None
) -> Callable[..., Any]:
    """`original`, which on the tracing thread also converts its top-level calls (nested ones are its own)."""

    def traced(*args: Any, **kwargs: Any) -> Any:
        graph = _tracer.graph
        if graph is None or _tracer.depth:
            return original(*args, **kwargs)
        _tracer.depth += 1
        try:
            out = original(*args, **kwargs)
        finally:
            _tracer.depth -= 1
        operands = [*args, *kwargs.values()]
        operands += [t for a in operands if isinstance(a, list | tuple) for t in a]
        if not any(graph.traced(a) for a in operands):
            return out  # parameters and constants only: the result is a constant
        if convert is None or not isinstance(out, Tensor):
            raise NotImplementedError(
                f"For 'export', the network calls 'cadence.ops.{name}' on a value computed from its inputs, and "
                f"that operator has no ONNX conversion. Convertible: {sorted({*_FUNCTIONAL, *_NN, *CONVOLUTIONS})}."
            )
        convert(graph, args, kwargs, out)
        return out

    traced.__wrapped__ = original  # type: ignore[attr-defined]
    return traced


def _wrappers() -> dict[int, Callable[..., Any]]:
    """id(original) -> traced wrapper, for every public operator function of `cadence.ops`."""
    from .. import ops
    from ..ops import _conv_variants, _functional, _nn

    wrappers: dict[int, Callable[..., Any]] = {}
    homes = (_functional.__name__, _nn.__name__, ops.__name__)
    for module, table in (
        (_functional, _FUNCTIONAL),
        (_nn, _NN),
        (ops, {**_FUNCTIONAL, **_NN}),
    ):
        for name in dir(module):
            fn = getattr(module, name)
            # (`fixup_module_metadata` reports the public ones as `cadence.ops`'s.)
            home = getattr(fn, "__module__", "")
            if name.startswith("_") or name in _UNWRAPPED or home not in homes:
                continue
            if (
                module is ops
                and name in table
                and fn is not getattr(_functional, name, getattr(_nn, name, None))
            ):
                continue  # MindSpore's signature over the internal op (`ops.sum`, `ops.pad`): its calls are recorded
            if callable(fn) and not isinstance(fn, type) and id(fn) not in wrappers:
                wrappers[id(fn)] = _wrap(name, fn, table.get(name))
    for name, convert in CONVOLUTIONS.items():
        fn = getattr(_conv_variants, name, None)
        if fn is not None and fn.__module__ == _conv_variants.__name__:
            wrappers[id(fn)] = _wrap(name, fn, convert)
    return wrappers


@contextmanager
def _patched(graph: Graph) -> Iterator[None]:
    """Wrap every operator function while `graph` is traced, in every cadence module that holds one.

    A module that imported a function by name (`from ..ops._conv_variants import
    conv2d_grouped`) holds it in its own namespace, so each of cadence's loaded
    modules gets the wrappers, not only `cadence.ops`.
    """
    with _patch_lock:
        wrappers = _wrappers()
        saved: list[tuple[Any, str, Any]] = []
        for module_name, module in list(sys.modules.items()):
            if module_name != "cadence" and not module_name.startswith("cadence."):
                continue
            for name, value in list(vars(module).items()):
                wrapper = wrappers.get(id(value))
                if wrapper is not None and wrapper.__wrapped__ is value:  # type: ignore[attr-defined]
                    saved.append((module, name, value))
                    setattr(module, name, wrapper)
        _tracer.graph = graph
        try:
            yield
        finally:
            _tracer.graph = None
            for module, name, fn in saved:
                setattr(module, name, fn)


def trace_to_onnx(net: Any, inputs: Sequence[Tensor], graph_name: str) -> Any:
    """Run `net(*inputs)` once, recording it, and return the ONNX ModelProto (checked by `onnx.checker`)."""
    import onnx

    graph = Graph(onnx)
    graph_inputs = []
    for i, tensor in enumerate(inputs):
        name = f"input_{i}" if len(inputs) > 1 else "input"
        graph.bind(tensor, name)
        dtype = onnx.helper.np_dtype_to_tensor_dtype(tensor.asnumpy().dtype)
        graph_inputs.append(
            onnx.helper.make_tensor_value_info(name, dtype, list(tensor.shape))
        )
    with _patched(graph):
        result = net(*inputs)
    outputs = list(result) if isinstance(result, tuple | list) else [result]
    graph_outputs = []
    for i, out in enumerate(outputs):
        if not graph.traced(out):
            raise ValueError(
                f"For 'export', output {i} of the network does not depend on its inputs through operators export "
                f"can follow (it is {type(out).__name__}); an ONNX model needs outputs computed from the inputs."
            )
        name = f"output_{i}" if len(outputs) > 1 else "output"
        graph.node("Identity", [graph.names[id(out)]])
        graph.nodes[-1].output[0] = name
        dtype = onnx.helper.np_dtype_to_tensor_dtype(out.asnumpy().dtype)
        graph_outputs.append(
            onnx.helper.make_tensor_value_info(name, dtype, list(out.shape))
        )
    model = onnx.helper.make_model(
        onnx.helper.make_graph(
            graph.nodes, graph_name, graph_inputs, graph_outputs, graph.initializers
        ),
        opset_imports=[onnx.helper.make_opsetid("", OPSET)],
        producer_name="cadence",
    )
    onnx.checker.check_model(model, full_check=True)
    return model
