"""ONNX conversions of the convolutions: plain, grouped and depthwise (`Conv`), transposed (`ConvTranspose`).

cadence's weight layouts are ONNX's: `(out, in / group, kh, kw)` for a
convolution and `(in, out / group, kh, kw)` for a transposed one, so the
weights go into the graph unchanged and only the geometry is translated.
"""

from __future__ import annotations

from typing import Any

from ._graph import Graph, arg

__all__ = ["CONVOLUTIONS"]


def _geometry(
    args: tuple[Any, ...], kwargs: dict[str, Any], names: tuple[str, ...]
) -> dict[str, Any]:
    """The call's x, weight, geometry and group (1 when not given), by name."""
    values = {n: arg(args, kwargs, i, n) for i, n in enumerate(names)}
    values["group"] = int(values.get("group") or 1)
    return values


def _attributes(call: dict[str, Any]) -> dict[str, Any]:
    top, bottom, left, right = (int(p) for p in call["padding"])
    return {
        "kernel_shape": list(call["weight"].shape[2:]),
        "strides": [int(s) for s in call["stride"]],
        "dilations": [int(d) for d in call["dilation"]],
        "pads": [top, left, bottom, right],  # ONNX: all the starts, then all the ends
        "group": call["group"],
    }


def _conv(g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
    # `conv2d` (x, weight, stride, padding, dilation) and `conv2d_grouped` (..., group).
    call = _geometry(
        args, kwargs, ("x", "weight", "stride", "padding", "dilation", "group")
    )
    g.node(
        "Conv",
        [g.operand(call["x"]), g.constant(call["weight"])],
        out,
        **_attributes(call),
    )


def _conv_transpose(
    g: Graph, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
) -> None:
    names = ("x", "weight", "out_hw", "stride", "padding", "dilation", "group")
    call = _geometry(args, kwargs, names)
    attrs = _attributes(call)
    # ONNX sizes a transposed convolution as stride * (in - 1) + span - pads + output_padding;
    # cadence knows the output size it wants (the adjoint's), so the rest is output_padding.
    extra = [
        int(call["out_hw"][a])
        - (
            attrs["strides"][a] * (call["x"].shape[2 + a] - 1)
            + attrs["dilations"][a] * (attrs["kernel_shape"][a] - 1)
            + 1
            - attrs["pads"][a]
            - attrs["pads"][a + 2]
        )
        for a in (0, 1)
    ]
    if any(extra):
        attrs["output_padding"] = extra
    g.node(
        "ConvTranspose",
        [g.operand(call["x"]), g.constant(call["weight"])],
        out,
        **attrs,
    )


# Function name -> conversion: `conv2d` lives in `cadence.ops._nn`, the others in `_conv_variants`.
CONVOLUTIONS = {
    "conv2d": _conv,
    "conv2d_grouped": _conv,
    "conv2d_transpose": _conv_transpose,
}
