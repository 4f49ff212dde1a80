"""Depthwise 2-D convolution (one filter per channel): the bodies of each target's schedule.

Depthwise layers (MobileNet's) have exactly one input plane per output plane.
Three schedules, as plain Python:

- per plane (the CUDA table: one thread per plane): the output walked row by
  row, the innermost loop one tap along a row, without branches. The backward
  body reads each output-gradient plane once for both gradients: it writes the
  input gradient of its plane and leaves the plane's share of the filter
  gradient in `partial` (N, C, KH, KW), which `depthwise_filter_sum` adds up
  over the batch in a fixed order. Every call writes only its own plane, so
  no atomics are needed.
- per sample, channels-last (the CPU table's general case): see its section below.
- per plane, flat (the CPU table's 3x3 "same" layers on planes 16 wide and more):
  see the last section.

Geometry (`geom`, `ylim`, `xlim`) as in `_grouped_conv_bodies`. No body
calls another function of this module, so each target compiles each alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "depthwise_backward_plane",
    "depthwise_backward_sample",
    "depthwise_filter_grad_flat",
    "depthwise_filter_sum",
    "depthwise_forward_flat",
    "depthwise_forward_plane",
    "depthwise_forward_sample",
]


def depthwise_forward_plane(
    x: Any, w: Any, geom: Any, ylim: Any, xlim: Any, y: Any, p: int
) -> None:
    """Plane p = b * C + c of y (N, C, OH, OW): channel c of x (N, C, H, W) with filter w[c, 0]."""
    c_count = x.shape[1]
    b = p // c_count
    c = p - b * c_count
    kh, kw = w.shape[2], w.shape[3]
    sh, sw, pt, pl, dh, dw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
    src = x[b, c]
    dst = y[b, c]
    for oy in range(dst.shape[0]):
        row = dst[oy]
        for t in range(row.shape[0]):
            row[t] = 0.0
        for tap in range(kh * kw):
            i, j = tap // kw, tap % kw
            lo, hi = xlim[j, 0], xlim[j, 1]
            if ylim[i, 0] <= oy < ylim[i, 1] and lo < hi:
                first = lo * sw + j * dw - pl
                # Views from the tap's first column: the index t of the loop is
                # provably >= 0, so it carries no wraparound test and vectorizes.
                out_row = row[lo:hi]
                in_row = src[
                    oy * sh + i * dh - pt, first : first + (hi - lo - 1) * sw + 1 : sw
                ]
                for t in range(out_row.shape[0]):
                    out_row[t] += w[c, 0, i, j] * in_row[t]


def depthwise_backward_plane(
    x: Any, w: Any, geom: Any, ylim: Any, xlim: Any, dy: Any, dx: Any, partial: Any,
    need_dx: bool, p: int,
) -> None:  # fmt: skip
    """Plane p = b * C + c: dx[b, c] (when `need_dx`) and this plane's filter gradient partial[b, c]."""
    b, c = p // x.shape[1], p % x.shape[1]
    src, grad, dst, share = x[b, c], dy[b, c], dx[b, c], partial[b, c]
    kh, kw = w.shape[2], w.shape[3]
    sh, sw, pt, pl, dh, dw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
    if need_dx:
        for iy in range(dst.shape[0]):
            for ix in range(dst.shape[1]):
                dst[iy, ix] = 0.0
    for i in range(kh):
        for j in range(kw):
            share[i, j] = 0.0
    for oy in range(grad.shape[0]):
        for i in range(kh):
            if ylim[i, 0] <= oy < ylim[i, 1]:
                iy = oy * sh + i * dh - pt
                for j in range(kw):
                    lo, hi = xlim[j, 0], xlim[j, 1]
                    first = lo * sw + j * dw - pl
                    last = first + (hi - lo - 1) * sw + 1
                    grad_row = grad[oy, lo:hi]  # views as in the forward
                    in_row = src[iy, first:last:sw]
                    # In the array's dtype: no float64 intermediate for float32.
                    acc = share[i, j]
                    for t in range(grad_row.shape[0]):
                        acc += grad_row[t] * in_row[t]
                    share[i, j] = acc
                    if need_dx:
                        wv = w[c, 0, i, j]
                        dx_row = dst[iy, first:last:sw]
                        for t in range(grad_row.shape[0]):
                            dx_row[t] += wv * grad_row[t]


def depthwise_filter_sum(partial: Any, dw: Any, c: int) -> None:
    """Filter c of dw (C, 1, KH, KW): the sum over the batch of partial (N, C, KH, KW), in batch order."""
    for i in range(dw.shape[2]):
        for j in range(dw.shape[3]):
            acc = partial[0, c, i, j]
            for b in range(1, partial.shape[0]):
                acc += partial[b, c, i, j]
            dw[c, 0, i, j] = acc


# --- channels-last schedule (CPU only) ---------------------------------------------------------
# Planes of a few pixels leave the row loops above one or two iterations long, and even
# 32-wide rows vectorize worse than channels. These bodies own one sample instead: they
# copy it channels-last into scratch of their own, so the innermost loop runs over the
# channels (hundreds, contiguous), and copy back.
# They allocate that scratch (one sample's worth) inside the loop, which a CUDA device
# function cannot: the CUDA table runs the plane bodies above.


def depthwise_forward_sample(
    x: Any, wt: Any, geom: Any, ylim: Any, xlim: Any, y: Any, b: int
) -> None:
    """Sample b of y (N, C, OH, OW); wt is w as (KH, KW, C)."""
    kh, kw, c_count = wt.shape
    sh, sw, pt, pl, dh, dw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
    src = np.empty((x.shape[2], x.shape[3], c_count), x.dtype)
    dst = np.zeros((y.shape[2], y.shape[3], c_count), y.dtype)
    for c in range(c_count):
        for iy in range(src.shape[0]):
            for ix in range(src.shape[1]):
                src[iy, ix, c] = x[b, c, iy, ix]
    ow = dst.shape[1]
    for q in range(dst.shape[0] * ow):  # output pixels in order
        oy, ox = q // ow, q % ow
        acc = dst[oy, ox]
        for tap in range(kh * kw):
            i, j = tap // kw, tap % kw
            if ylim[i, 0] <= oy < ylim[i, 1] and xlim[j, 0] <= ox < xlim[j, 1]:
                pixel = src[oy * sh + i * dh - pt, ox * sw + j * dw - pl]
                for c in range(c_count):
                    acc[c] += wt[i, j, c] * pixel[c]
    for c in range(c_count):
        for oy in range(dst.shape[0]):
            for ox in range(dst.shape[1]):
                y[b, c, oy, ox] = dst[oy, ox, c]


def depthwise_backward_sample(
    x: Any, wt: Any, geom: Any, ylim: Any, xlim: Any, dy: Any, dx: Any, partial: Any,
    need_dx: bool, b: int,
) -> None:  # fmt: skip
    """Sample b: dx[b] (when `need_dx`) and its filter gradient partial[b] (C, KH, KW), channels-last."""
    kh, kw, c_count = wt.shape
    sh, sw, pt, pl, dh, dw = geom[0], geom[1], geom[2], geom[3], geom[4], geom[5]
    # The sample's input and its gradient side by side (one pixel's both in one cache line
    # run), then the output gradient.
    src = np.empty((x.shape[2], x.shape[3], 2 * c_count), x.dtype)
    grad = np.empty((dy.shape[2], dy.shape[3], c_count), dy.dtype)
    share = np.zeros((kh, kw, c_count), partial.dtype)
    for c in range(c_count):
        for iy in range(src.shape[0]):
            for ix in range(src.shape[1]):
                src[iy, ix, c], src[iy, ix, c_count + c] = x[b, c, iy, ix], 0.0
        for oy in range(grad.shape[0]):
            for ox in range(grad.shape[1]):
                grad[oy, ox, c] = dy[b, c, oy, ox]
    for oy in range(grad.shape[0]):
        for ox in range(grad.shape[1]):
            g = grad[oy, ox]
            for i in range(kh):
                if ylim[i, 0] <= oy < ylim[i, 1]:
                    for j in range(kw):
                        if xlim[j, 0] <= ox < xlim[j, 1]:
                            pixel = src[oy * sh + i * dh - pt, ox * sw + j * dw - pl]
                            taps = wt[i, j]
                            part = share[i, j]
                            for c in range(c_count):
                                part[c] += g[c] * pixel[c]
                                pixel[c_count + c] += taps[c] * g[c]
    for c in range(c_count):
        for i in range(kh):
            for j in range(kw):
                partial[b, c, i, j] = share[i, j, c]
        if need_dx:
            for iy in range(src.shape[0]):
                for ix in range(src.shape[1]):
                    dx[b, c, iy, ix] = src[iy, ix, c_count + c]


# --- per plane, flat (CPU: 3x3 filters, stride 1, padding 1, planes 16 wide and more) --------
# A "same" 3x3 convolution reads, for filter row i, the input plane shifted by (i - 1) rows:
# laid end to end, the plane's rows make one long run, so each filter row is one loop over
# the whole plane with its three taps in one expression, which vectorizes, and there is no
# channels-last copy. Only the first and last columns read across a row's end (the
# neighbour row's pixel where the padding's zero belongs): the bodies select zero there
# (`edge`), so they multiply by the padding's zeros as the reference does. The input gradient of this
# convolution is the same convolution of dy with the filter turned by 180 degrees.
# Measured (one thread, batch 32): 3x faster than channels-last at 32x32 and 1.6-1.8x at
# 16x16, slower at 8x8 and below (the runs get too short): `FLAT_MIN_WIDTH` in
# `_grouped_conv`.


def depthwise_forward_flat(x: Any, w: Any, edge: Any, y: Any, p: int) -> None:
    """Plane p = b * C + c of y for a 3x3 filter w (C, 1, 3, 3), stride 1, padding 1: y has x's size.

    edge (2, H * W) marks the pixels of the first (edge[0]) and last (edge[1]) column:
    taps 0 and 2 read the padding's zeros there, not the row before or after.
    """
    c_count, h, wd = x.shape[1], x.shape[2], x.shape[3]
    b = p // c_count
    c = p - b * c_count
    src, dst = x[b, c].reshape(h * wd), y[b, c].reshape(h * wd)
    dst[0] = 0.0
    zero = dst[0]  # in the array's dtype: no float64 intermediate for float32
    for k in range(3):
        # Filter row i reads input row oy + i - 1: one pass over the output rows where that
        # is inside. The middle row first: it covers every row, so it initializes.
        i = (1, 0, 2)[k]
        keep = i != 1
        start, stop = max(0, 1 - i) * wd, min(h, h + 1 - i) * wd
        shift = (i - 1) * wd - 1  # pixel q reads src[q + shift + j] for tap j
        w0, w1, w2 = w[c, 0, i, 0], w[c, 0, i, 1], w[c, 0, i, 2]
        # The first and last pixels alone: only there would an unselected read fall
        # outside the plane.
        for e in range(min(2, stop - start)):
            q = start if e == 0 else stop - 1
            dst[q] = (
                (dst[q] if keep else zero)
                + w0 * (zero if edge[0, q] else src[q + shift])
                + w1 * src[q + shift + 1]
                + w2 * (zero if edge[1, q] else src[q + shift + 2])
            )
        if stop - start > 2:
            out = dst[start + 1 : stop - 1]
            left, right = edge[0, start + 1 :], edge[1, start + 1 :]
            a0, a1 = src[start + 1 + shift :], src[start + 2 + shift :]
            a2 = src[start + 3 + shift :]
            for t in range(out.shape[0]):
                out[t] = (
                    (out[t] if keep else zero)
                    + w0 * (zero if left[t] else a0[t])
                    + w1 * a1[t]
                    + w2 * (zero if right[t] else a2[t])
                )


def depthwise_filter_grad_flat(
    x: Any, dy: Any, edge: Any, partial: Any, p: int
) -> None:
    """partial[b, c] (3, 3) of plane p = b * C + c: the filter gradient of `depthwise_forward_flat`.

    edge (2, H * W) marks the pixels of the first (edge[0]) and last (edge[1]) column:
    taps 0 and 2 read the padding's zeros there, not the row before or after.
    """
    c_count, h, wd = x.shape[1], x.shape[2], x.shape[3]
    b = p // c_count
    c = p - b * c_count
    src, grad, share = x[b, c].reshape(h * wd), dy[b, c].reshape(h * wd), partial[b, c]
    for i in range(3):
        start, stop = max(0, 1 - i) * wd, min(h, h + 1 - i) * wd
        share[i, 0], share[i, 1], share[i, 2] = 0.0, 0.0, 0.0
        zero = share[i, 0]  # in the array's dtype: no float64 intermediate for float32
        acc0, acc1, acc2 = zero, zero, zero
        # Pixel q reads src[q + shift + j] for tap j: the first and last pixels alone, as
        # only there would an unselected read fall outside the plane.
        shift = (i - 1) * wd - 1
        for k in range(min(2, stop - start)):
            q = start if k == 0 else stop - 1
            g = grad[q]
            acc0 += g * (zero if edge[0, q] else src[q + shift])
            acc1 += g * src[q + shift + 1]
            acc2 += g * (zero if edge[1, q] else src[q + shift + 2])
        if stop - start > 2:
            inner = grad[start + 1 : stop - 1]
            left, right = edge[0, start + 1 :], edge[1, start + 1 :]
            a0, a1, a2 = (
                src[start + 1 + shift :],
                src[start + 2 + shift :],
                src[start + 3 + shift :],
            )
            for t in range(inner.shape[0]):
                g = inner[t]
                acc0 += g * (zero if left[t] else a0[t])
                acc1 += g * a1[t]
                acc2 += g * (zero if right[t] else a2[t])
        share[i, 0], share[i, 1], share[i, 2] = acc0, acc1, acc2
