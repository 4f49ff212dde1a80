"""Grouped (and depthwise) 2-D convolution, written once as plain Python; each target builds it.

A grouped convolution splits the C input channels and O output channels into
`groups` equal parts and convolves each part alone; depthwise is groups == C.
With few input channels per group an im2col matrix is thin and the matmul
wastes its blocking, so these bodies convolve directly: every call owns one
destination plane (or one filter) and writes nothing else, which makes the
CUDA version race-free without atomics.

The geometry travels as one int array `geom` = (stride h, stride w, pad top,
pad left, dilation h, dilation w, groups). Padding is never materialized: the
host precomputes, for every kernel tap, the half-open range of output rows
(`ylim[i]`) and columns (`xlim[j]`) whose input pixel lies inside the image
(`tap_ranges`), so the inner loops carry no bounds checks and vectorize on
the CPU. Like `_rowwise`, no body calls another function of this module, so
each target compiles each body alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["GEOMETRY", "grouped_conv_filter_grad", "grouped_conv_plane", "tap_ranges"]

# The order of the fields of `geom`.
GEOMETRY = (
    "stride_h",
    "stride_w",
    "pad_top",
    "pad_left",
    "dilation_h",
    "dilation_w",
    "groups",
)


def tap_ranges(
    size: int, out: int, kernel: int, stride: int, pad: int, dilation: int
) -> Any:
    """(kernel, 2) int64: for tap i, the output indices [lo, hi) reading inside the input."""
    ranges = np.empty((kernel, 2), np.int64)
    for i in range(kernel):
        offset = i * dilation - pad  # input index = out_index * stride + offset
        ranges[i, 0] = min(out, max(0, -(offset // stride)))
        ranges[i, 1] = max(ranges[i, 0], min(out, (size - 1 - offset) // stride + 1))
    return ranges


def grouped_conv_plane(
    image: Any,
    out: Any,
    w: Any,
    geom: Any,
    ylim: Any,
    xlim: Any,
    to_image: bool,
    p: int,
) -> None:
    """One plane of a grouped cross-correlation of image (N, C, H, W) with w (O, C/groups, KH, KW).

    Forward (`to_image` False): plane p = b * O + o of out, from the group's input channels.
    Input gradient (`to_image` True): plane p = b * C + ci of image, from the output (gradient)
    planes of the filters that read channel ci.
    """
    o_count, cg, kh, kw = w.shape
    sh, sw, pt, pl, dh, dw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
    og = o_count // geom[6]
    planes = image.shape[1] if to_image else o_count
    b = p // planes
    fixed = p - b * planes  # ci when to_image, else o
    dest = image if to_image else out
    for r in range(dest.shape[2]):
        for s in range(dest.shape[3]):
            dest[b, fixed, r, s] = 0.0
    first = (fixed // cg) * og if to_image else 0
    c_base = 0 if to_image else (fixed // og) * cg
    for k in range(og if to_image else cg):
        o = first + k if to_image else fixed
        c = fixed - (fixed // cg) * cg if to_image else k
        for i in range(kh):
            for j in range(kw):
                wv = w[o, c, i, j]
                for oy in range(ylim[i, 0], ylim[i, 1]):
                    iy = oy * sh + i * dh - pt
                    for ox in range(xlim[j, 0], xlim[j, 1]):
                        ix = ox * sw + j * dw - pl
                        if to_image:
                            image[b, fixed, iy, ix] += wv * out[b, o, oy, ox]
                        else:
                            out[b, o, oy, ox] += wv * image[b, c_base + c, iy, ix]


def grouped_conv_filter_grad(
    image: Any,
    out: Any,
    dwt: Any,
    geom: Any,
    ylim: Any,
    xlim: Any,
    to_image: bool,
    o: int,
) -> None:
    """Filter o of dwt (O, C/groups, KH, KW), the weight gradient from `out`, the output gradient.

    `to_image` is unused: it keeps the signature of `grouped_conv_plane`, so a target
    launches both bodies the same way.
    """
    o_count, cg, kh, kw = dwt.shape
    sh, sw, pt, pl, dh, dw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
    c0 = (o // (o_count // geom[6])) * cg
    for c in range(cg):
        for i in range(kh):
            for j in range(kw):
                acc = 0.0
                for b in range(image.shape[0]):
                    for oy in range(ylim[i, 0], ylim[i, 1]):
                        iy = oy * sh + i * dh - pt
                        for ox in range(xlim[j, 0], xlim[j, 1]):
                            acc += (
                                out[b, o, oy, ox]
                                * image[b, c0 + c, iy, ox * sw + j * dw - pl]
                            )
                dwt[o, c, i, j] = acc
