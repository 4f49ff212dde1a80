"""Winograd F(2x2, 3x3) transforms, written once as plain Python; each target builds them.

A 3x3 stride-1 cross-correlation computes each 2x2 block of outputs from a
4x4 tile of input as Y = A^T [(G g G^T) * (B^T d B)] A (Lavin and Gray,
"Fast Algorithms for Convolutional Neural Networks", 2015): 16 products per
2x2 outputs and channel pair instead of 36, and the sum over input channels
of the 16 elementwise products is 16 independent matrix products, which BLAS
runs. The matrices (rows):

    B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
    G   = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]
    A^T = [1 1 1 0; 0 1 -1 -1]

Every coefficient is 0, +-1 or +-1/2, so the transforms add and halve in
float32 without rounding beyond that of the additions (why F(2x2, 3x3) and not
F(4x4, 3x3), whose coefficients reach 8 and lose about two more digits).

Layouts: transformed tiles are `(16, channels, tiles)` with the tile index
t = (b * TH + ty) * TW + tx contiguous, so each body writes (or reads) 16
runs of consecutive tiles and the products are U[k] (O, C) @ V[k] (C, T).
Transformed filters are `(16, O, C)`. Element k = 4 * r + s holds row r,
column s of a tile. Every body owns the plane (or filter) `p` it writes, so
the CUDA build needs no atomics; like `_rowwise`, no body calls another
function of this module, so each target compiles each body alone.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "winograd_filter",
    "winograd_filter_grad",
    "winograd_input_plane",
    "winograd_output_grad_plane",
    "winograd_output_plane",
]

# B^T d B, one axis at a time: element r of the result is d[PLUS[r]] + SIGN[r] * d[MINUS[r]].
_PLUS = (0, 1, 2, 1)
_MINUS = (2, 2, 1, 3)
_SIGN = (-1.0, 1.0, -1.0, -1.0)
# A's second column: A maps (g0, g1) to (g0, g0 + g1, g0 - g1, -g1).
_A1 = (0.0, 1.0, -1.0, -1.0)


def winograd_input_plane(xp: Any, v: Any, p: int) -> None:
    """Write B^T d B of every 4x4 tile of plane p = b * C + c of the padded input xp into v[:, c, tiles of b].

    xp (N, C, 2 * TH + 2, 2 * TW + 2) is the input with the convolution's padding
    (and one more zero row or column where the output size is odd); v is (16, C, N * TH * TW).
    """
    c_count = xp.shape[1]
    b = p // c_count
    c = p - b * c_count
    th, tw = (xp.shape[2] - 2) // 2, (xp.shape[3] - 2) // 2
    for ty in range(th):
        t0 = (b * th + ty) * tw
        for r in range(4):
            y0, y1 = 2 * ty + _PLUS[r], 2 * ty + _MINUS[r]
            # The sign in v's dtype, read back from the pass's first element (written next):
            # a Python float makes every product float64 (float32 planes ran 1.6 times slower).
            v[4 * r, c, t0] = _SIGN[r]
            sr = v[4 * r, c, t0]
            for tx in range(tw):
                x0 = 2 * tx
                # Row r of B^T d (four columns), then that row times B.
                e0 = xp[b, c, y0, x0] + sr * xp[b, c, y1, x0]
                e1 = xp[b, c, y0, x0 + 1] + sr * xp[b, c, y1, x0 + 1]
                e2 = xp[b, c, y0, x0 + 2] + sr * xp[b, c, y1, x0 + 2]
                e3 = xp[b, c, y0, x0 + 3] + sr * xp[b, c, y1, x0 + 3]
                v[4 * r, c, t0 + tx] = e0 - e2
                v[4 * r + 1, c, t0 + tx] = e1 + e2
                v[4 * r + 2, c, t0 + tx] = e2 - e1
                v[4 * r + 3, c, t0 + tx] = e1 - e3


def winograd_output_plane(m: Any, y: Any, p: int) -> None:
    """Write A^T M A of every tile of plane p = b * O + o from m (16, O, N * TH * TW) into y (N, O, OH, OW).

    The last row and column of tiles are cut where OH or OW is odd.
    """
    o_count, oh, ow = y.shape[1], y.shape[2], y.shape[3]
    b = p // o_count
    o = p - b * o_count
    th, tw = (oh + 1) // 2, (ow + 1) // 2
    for ty in range(th):
        t0 = (b * th + ty) * tw
        for tx in range(tw):
            t = t0 + tx
            # Column sums of M A: row r gives (m_r0 + m_r1 + m_r2, m_r1 - m_r2 - m_r3).
            a0 = m[0, o, t] + m[1, o, t] + m[2, o, t]
            a1 = m[1, o, t] - m[2, o, t] - m[3, o, t]
            b0 = m[4, o, t] + m[5, o, t] + m[6, o, t]
            b1 = m[5, o, t] - m[6, o, t] - m[7, o, t]
            c0 = m[8, o, t] + m[9, o, t] + m[10, o, t]
            c1 = m[9, o, t] - m[10, o, t] - m[11, o, t]
            d0 = m[12, o, t] + m[13, o, t] + m[14, o, t]
            d1 = m[13, o, t] - m[14, o, t] - m[15, o, t]
            y0, x0 = 2 * ty, 2 * tx
            y[b, o, y0, x0] = a0 + b0 + c0
            if x0 + 1 < ow:
                y[b, o, y0, x0 + 1] = a1 + b1 + c1
            if y0 + 1 < oh:
                y[b, o, y0 + 1, x0] = b0 - c0 - d0
                if x0 + 1 < ow:
                    y[b, o, y0 + 1, x0 + 1] = b1 - c1 - d1


def winograd_output_grad_plane(dy: Any, dm: Any, p: int) -> None:
    """Write A dY A^T (the gradient of M) of every tile of plane p = b * O + o of dy (N, O, OH, OW) into dm.

    The adjoint of `winograd_output_plane`: dm is (16, O, N * TH * TW); outputs
    beyond an odd OH or OW read as 0.
    """
    oh, ow = dy.shape[2], dy.shape[3]
    th, tw = (oh + 1) // 2, (ow + 1) // 2
    b = p // dy.shape[1]
    o = p - b * dy.shape[1]
    for ty in range(th):
        t0 = (b * th + ty) * tw
        y0 = 2 * ty
        y1 = y0 + 1 if y0 + 1 < oh else y0  # a cut row reads row y0, weighted 0
        k1 = 1.0 if y0 + 1 < oh else 0.0
        # One row r of A dY A^T at a time: four output streams per pass, as the input
        # transform (sixteen at once ran three times slower, out of write buffers).
        for r in range(4):
            # A maps (g0, g1) to (g0, g0 + g1, g0 - g1, -g1); row r weighs dY's rows by (a0, a1),
            # in dm's dtype (see `winograd_input_plane`).
            dm[4 * r, o, t0] = 0.0 if r == 3 else 1.0
            a0 = dm[4 * r, o, t0]
            dm[4 * r, o, t0] = _A1[r] * k1
            a1 = dm[4 * r, o, t0]
            for tx in range(tw):
                x0 = 2 * tx
                x1 = x0 + 1 if x0 + 1 < ow else x0
                h0 = a0 * dy[b, o, y0, x0] + a1 * dy[b, o, y1, x0]
                h1 = a0 * dy[b, o, y0, x1] + a1 * dy[b, o, y1, x1]
                if x0 + 1 >= ow:
                    h1 = h1 - h1  # a cut column weighs 0
                t = t0 + tx
                dm[4 * r, o, t] = h0
                dm[4 * r + 1, o, t] = h0 + h1
                dm[4 * r + 2, o, t] = h0 - h1
                dm[4 * r + 3, o, t] = -h1


def winograd_filter(w: Any, u: Any, flip: bool, i: int, c: int) -> None:
    """Write row r of G g G^T of filter (o, c) of w (O, C, 3, 3) into u[4r .. 4r + 3, o, c], for i = o * 4 + r.

    One row per call, so calls for consecutive c write four runs of consecutive elements
    (sixteen at once run out of write buffers, as in `winograd_output_grad_plane`),
    and the four rows of filter o follow each other while w[o] is in cache (the
    CPU loop runs over c innermost).
    With `flip` the filter is read rotated by 180 degrees: transposed (O <-> C) in the
    product, these are the filters of the input gradient, itself a 3x3 stride-1
    correlation of dy.
    """
    o = i // 4
    r = i - 4 * o
    # Row r of G g: rows 0 and 3 are the filter's top and bottom rows, 1 and 2 half of
    # (top +- middle + bottom); columns left to right (right to left when flipped).
    # Every index is a constant, so the CPU loop over c vectorizes (with the flip
    # read through variable indices it ran 3.6 times slower).
    if r == 0 or r == 3:
        row = 2 if (r == 0) == flip else 0
        if flip:
            a, b, d = w[o, c, row, 2], w[o, c, row, 1], w[o, c, row, 0]
        else:
            a, b, d = w[o, c, row, 0], w[o, c, row, 1], w[o, c, row, 2]
    else:
        sign = 1.0 if r == 1 else -1.0
        c0 = 0.5 * (w[o, c, 0, 0] + sign * w[o, c, 1, 0] + w[o, c, 2, 0])
        c1 = 0.5 * (w[o, c, 0, 1] + sign * w[o, c, 1, 1] + w[o, c, 2, 1])
        c2 = 0.5 * (w[o, c, 0, 2] + sign * w[o, c, 1, 2] + w[o, c, 2, 2])
        a, b, d = (c2, c1, c0) if flip else (c0, c1, c2)
    # ... times G^T: (a, b, d) -> (a, (a + b + d) / 2, (a - b + d) / 2, d).
    u[4 * r, o, c] = a
    u[4 * r + 1, o, c] = 0.5 * (a + b + d)
    u[4 * r + 2, o, c] = 0.5 * (a - b + d)
    u[4 * r + 3, o, c] = d


def winograd_filter_grad(du: Any, dw: Any, flip: bool, o: int, c: int) -> None:
    """Write G^T dU G of filter (o, c) from du (16, O, C) into dw (O, C, 3, 3): the adjoint of `winograd_filter`.

    `flip` is unused: it keeps `winograd_filter`'s signature, so a target launches both alike.
    """
    for s in range(3):
        # Column s of dU G: G maps a row (u0, u1, u2, u3) to (u0 + (u1 + u2)/2, (u1 - u2)/2, (u1 + u2)/2 + u3).
        if s == 1:
            q0 = 0.5 * (du[1, o, c] - du[2, o, c])
            q1 = 0.5 * (du[5, o, c] - du[6, o, c])
            q2 = 0.5 * (du[9, o, c] - du[10, o, c])
            q3 = 0.5 * (du[13, o, c] - du[14, o, c])
        else:
            edge = 0 if s == 0 else 3
            q0 = du[edge, o, c] + 0.5 * (du[1, o, c] + du[2, o, c])
            q1 = du[4 + edge, o, c] + 0.5 * (du[5, o, c] + du[6, o, c])
            q2 = du[8 + edge, o, c] + 0.5 * (du[9, o, c] + du[10, o, c])
            q3 = du[12 + edge, o, c] + 0.5 * (du[13, o, c] + du[14, o, c])
        # ... then G^T down the column.
        dw[o, c, 0, s] = q0 + 0.5 * (q1 + q2)
        dw[o, c, 1, s] = 0.5 * (q1 - q2)
        dw[o, c, 2, s] = 0.5 * (q1 + q2) + q3
