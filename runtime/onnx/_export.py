"""`export(net, *inputs, file_name=, file_format=)`: write a network as an ONNX model, as MindSpore's `export`.

ONNX is the format cadence writes (with the `onnx` package: `pip install
cadence[onnx]`); MindSpore's own MINDIR and AIR formats need MindSpore's graph
compiler, so they get an error that says to use ONNX.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..checkpoint._atomic import atomic_write
from ..compute._tensor import Tensor

__all__ = ["export"]

_FORMATS = ("AIR", "ONNX", "MINDIR")


def export(
    net: Any, *inputs: Any, file_name: Any, file_format: str, **kwargs: Any
) -> None:
    """Write `net`, run on the example `inputs`, to `file_name` as an ONNX model (`.onnx` appended if missing).

    The network runs once in inference mode (`set_train(False)`, restored after)
    while its operators are recorded (see `cadence.onnx._trace`); the model has the
    example inputs' fixed shapes. The file is written atomically and left read-only,
    as MindSpore leaves it.

    Args:
        net: The `Cell` to export.
        *inputs: Example inputs (Tensors or numpy arrays), one per `construct` argument.
        file_name: Path of the file; ".onnx" is appended unless it ends so.
        file_format: "ONNX". ("MINDIR" and "AIR" raise: they are MindSpore's own formats.)
        **kwargs: MindSpore's other options; none changes an ONNX export here.

    Raises:
        TypeError: `net` is not a Cell, an input is not a Tensor or array, or `file_name` is not a str.
        ValueError: `file_format` is not one of "AIR", "ONNX", "MINDIR", or "MINDIR"/"AIR"
            (not supported by cadence), or there are no inputs.
        NotImplementedError: The network uses an operator with no ONNX conversion.
        ImportError: The `onnx` package is missing.

    Example:
        >>> import numpy as np, cadence as ms
        >>> from cadence import nn
        >>> ms.export(nn.Dense(3, 2), ms.Tensor(np.ones((1, 3), np.float32)), file_name="/tmp/dense", file_format="ONNX")  # doctest: +SKIP
    """
    from ..nn import Cell

    if not isinstance(net, Cell):
        raise TypeError(
            f"For 'export', the argument 'net' must be a Cell, but got {net!r} of type {type(net).__name__!r}."
        )
    if not isinstance(file_name, str) or not file_name.strip():
        raise TypeError(
            f"For 'export', the argument 'file_name' must be a non-empty str, but got {file_name!r}."
        )
    if file_format not in _FORMATS:
        raise ValueError(
            f"For 'export', the argument 'file_format' must be one of {list(_FORMATS)}, but got {file_format!r}."
        )
    if file_format != "ONNX":
        raise ValueError(
            f"For 'export', file_format={file_format!r} is MindSpore's own format, which needs MindSpore's graph "
            "compiler; cadence exports file_format='ONNX' (run the .onnx file with onnxruntime, or convert it "
            "with MindSpore Lite's converter)."
        )
    if not inputs:
        raise ValueError(
            "For 'export', at least one example input is needed after 'net', but got none."
        )
    tensors = []
    for i, value in enumerate(inputs):
        if isinstance(value, np.ndarray):
            value = Tensor(value)
        if not isinstance(value, Tensor):
            raise TypeError(
                f"For 'export', every input must be a Tensor or numpy array, but input {i} is {value!r} of type "
                f"{type(value).__name__!r}."
            )
        tensors.append(value)
    try:
        import onnx  # noqa: F401
    except ImportError as exc:  # an optional dependency
        raise ImportError(
            "For 'export', file_format='ONNX' needs the 'onnx' package: pip install 'cadence[onnx]'."
        ) from exc
    from ._trace import trace_to_onnx

    training = net.training
    net.set_train(False)
    try:
        model = trace_to_onnx(net, tensors, type(net).__name__)
    finally:
        net.set_train(training)
    path = file_name if file_name.endswith(".onnx") else file_name + ".onnx"
    os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
    with atomic_write(
        path
    ) as f:  # read-only (0o400) once written, as MindSpore leaves it
        f.write(model.SerializeToString())
