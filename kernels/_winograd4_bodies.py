"""Winograd F(4x4, 3x3) transforms, written once as plain Python; each target builds them.

The larger sibling of `_winograd_bodies`' F(2x2, 3x3): each 4x4 block of outputs
comes from a 6x6 input tile, Y = A^T [(G g G^T) * (B^T d B)] A, interpolating at
0, +-1, +-2 and infinity (Lavin and Gray, 2015). 36 products per 16 outputs and
channel pair, against F(2x2, 3x3)'s 64: the 36 matrix products of a convolution
are 0.56 times the work of the 16 of F(2x2, 3x3), and the transformed tiles
(36 values per 16 outputs instead of 16 per 4) 0.56 times the memory. The price
is rounding: the coefficients reach 8 (A) and 5 (B), and G's 1/6 and 1/24 are
not exact, so float32 results differ from a direct convolution by about 10 times
more than F(2x2, 3x3)'s (still within the convolution tests' tolerance). The
matrices (rows):

    B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
    G   = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1]
    A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]

Layouts as `_winograd_bodies`': transformed tiles `(36, channels, tiles)`, the
tile index t = (b * TH + ty) * TW + tx contiguous, element k = 6 * r + s, filters
`(36, O, C)`; each body owns what it writes and calls no other function here.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "winograd4_filter",
    "winograd4_filter_grad",
    "winograd4_input_plane",
    "winograd4_output_grad_plane",
    "winograd4_output_plane",
]

# Row r of B^T as four (row, coefficient) terms; rows 0 and 5 have three (the fourth weighs 0).
_BT_ROWS = (
    (0, 2, 4, 4),
    (1, 2, 3, 4),
    (1, 2, 3, 4),
    (1, 2, 3, 4),
    (1, 2, 3, 4),
    (1, 3, 5, 5),
)
_BT_COEF = (
    (4.0, -5.0, 1.0, 0.0),
    (-4.0, -4.0, 1.0, 1.0),
    (4.0, -4.0, -1.0, 1.0),
    (-2.0, -1.0, 2.0, 1.0),
    (2.0, -1.0, -2.0, 1.0),
    (4.0, -5.0, 1.0, 0.0),
)
# Row r of A (A^T's column r): how row r of A dY A^T weighs dY's four rows.
_A_ROWS = (
    (1.0, 0.0, 0.0, 0.0),
    (1.0, 1.0, 1.0, 1.0),
    (1.0, -1.0, 1.0, -1.0),
    (1.0, 2.0, 4.0, 8.0),
    (1.0, -2.0, 4.0, -8.0),
    (0.0, 0.0, 0.0, 1.0),
)
# Row r of G (three taps).
_G_ROWS = (
    (0.25, 0.0, 0.0),
    (-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0),
    (-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0),
    (1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0),
    (1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0),
    (0.0, 0.0, 1.0),
)


def winograd4_input_plane(xp: Any, v: Any, p: int) -> None:
    """Write B^T d B of every 6x6 tile of plane p = b * C + c of the padded input xp into v[:, c, tiles of b].

    xp (N, C, 4 * TH + 2, 4 * TW + 2) is the input with the convolution's padding
    and zeros up to whole tiles; v is (36, C, N * TH * TW). One row r of the
    result per pass: six output streams at a time, as `winograd_input_plane`.
    """
    c_count = xp.shape[1]
    b = p // c_count
    c = p - b * c_count
    th, tw = (xp.shape[2] - 2) // 4, (xp.shape[3] - 2) // 4
    # The coefficients in v's dtype, read back from an element this call writes later:
    # a Python float would make every product float64 (float32 planes ran 1.6 times slower).

    def typed(value: float, k: int, t: int) -> Any:
        # `value` in v's dtype, through v[k, c, t] (an element this call writes afterwards).
        v[k, c, t] = value
        return v[k, c, t]

    slot = b * th * tw
    two, four, five = typed(2.0, 0, slot), typed(4.0, 0, slot), typed(5.0, 0, slot)
    for ty in range(th):
        t0 = (b * th + ty) * tw
        for r in range(6):
            i0, i1, i2, i3 = _BT_ROWS[r]
            # (through the pass's first element, written next)
            a0 = typed(_BT_COEF[r][0], 6 * r, t0)
            a1 = typed(_BT_COEF[r][1], 6 * r, t0)
            a2 = typed(_BT_COEF[r][2], 6 * r, t0)
            a3 = typed(_BT_COEF[r][3], 6 * r, t0)
            y0, y1, y2, y3 = 4 * ty + i0, 4 * ty + i1, 4 * ty + i2, 4 * ty + i3

            def row(x: int) -> Any:
                # Row r of B^T d at column x. numba compiles inner functions in place; this
                # one is called only within the pass that defines it (hence the noqa).
                return (
                    a0 * xp[b, c, y0, x]  # noqa: B023
                    + a1 * xp[b, c, y1, x]  # noqa: B023
                    + a2 * xp[b, c, y2, x]  # noqa: B023
                    + a3 * xp[b, c, y3, x]  # noqa: B023
                )

            for tx in range(tw):
                x0 = 4 * tx
                # Row r of B^T d, six columns ...
                e0, e1, e2 = row(x0), row(x0 + 1), row(x0 + 2)
                e3, e4, e5 = row(x0 + 3), row(x0 + 4), row(x0 + 5)
                # ... times B.
                t = t0 + tx
                k = 6 * r
                v[k, c, t] = four * e0 - five * e2 + e4
                v[k + 1, c, t] = e3 + e4 - four * (e1 + e2)
                v[k + 2, c, t] = e4 - e3 + four * (e1 - e2)
                v[k + 3, c, t] = e4 - e2 + two * (e3 - e1)
                v[k + 4, c, t] = e4 - e2 + two * (e1 - e3)
                v[k + 5, c, t] = four * e1 - five * e3 + e5


def winograd4_output_plane(m: Any, y: Any, p: int) -> None:
    """Write A^T M A of every tile of plane p = b * O + o from m (36, O, N * TH * TW) into y (N, O, OH, OW).

    Tiles past OH or OW (where they are not multiples of 4) are cut.
    """
    o_count, oh, ow = y.shape[1], y.shape[2], y.shape[3]
    b = p // o_count
    o = p - b * o_count
    th, tw = (oh + 3) // 4, (ow + 3) // 4
    # The coefficients in y's dtype (see `winograd4_input_plane`), through a pixel written later.

    def typed(value: float) -> Any:
        y[b, o, 0, 0] = value
        return y[b, o, 0, 0]

    two, four, eight = typed(2.0), typed(4.0), typed(8.0)
    for ty in range(th):
        t0 = (b * th + ty) * tw
        y0 = 4 * ty
        rows = min(4, oh - y0)
        for tx in range(tw):
            t = t0 + tx
            x0 = 4 * tx

            def sums(k: int, t: int) -> Any:
                # Row k // 6 of M A at tile t: the four column sums of M's row (numba
                # compiles inner functions in place).
                return (
                    m[k, o, t]
                    + m[k + 1, o, t]
                    + m[k + 2, o, t]
                    + m[k + 3, o, t]
                    + m[k + 4, o, t],
                    m[k + 1, o, t]
                    - m[k + 2, o, t]
                    + two * (m[k + 3, o, t] - m[k + 4, o, t]),
                    m[k + 1, o, t]
                    + m[k + 2, o, t]
                    + four * (m[k + 3, o, t] + m[k + 4, o, t]),
                    m[k + 1, o, t]
                    - m[k + 2, o, t]
                    + eight * (m[k + 3, o, t] - m[k + 4, o, t])
                    + m[k + 5, o, t],
                )

            q0, q1, q2 = sums(0, t), sums(6, t), sums(12, t)
            q3, q4, q5 = sums(18, t), sums(24, t), sums(30, t)
            # ... then A^T down each column j: output rows y0 .. y0 + 3 (fewer in a cut tile).
            for j in range(min(4, ow - x0)):
                c0, c1, c2, c3, c4, c5 = q0[j], q1[j], q2[j], q3[j], q4[j], q5[j]
                y[b, o, y0, x0 + j] = c0 + c1 + c2 + c3 + c4
                if rows > 1:
                    y[b, o, y0 + 1, x0 + j] = c1 - c2 + two * (c3 - c4)
                if rows > 2:
                    y[b, o, y0 + 2, x0 + j] = c1 + c2 + four * (c3 + c4)
                if rows > 3:
                    y[b, o, y0 + 3, x0 + j] = c1 - c2 + eight * (c3 - c4) + c5


def winograd4_output_grad_plane(dy: Any, dm: Any, p: int) -> None:
    """Write A dY A^T (the gradient of M) of every tile of plane p = b * O + o of dy (N, O, OH, OW) into dm.

    The adjoint of `winograd4_output_plane`: dm is (36, O, N * TH * TW); outputs
    beyond OH or OW read as 0 (a cut row or column reads the tile's first one, weighted 0).
    """
    oh, ow = dy.shape[2], dy.shape[3]
    th, tw = (oh + 3) // 4, (ow + 3) // 4
    b = p // dy.shape[1]
    o = p - b * dy.shape[1]
    # The coefficients in dm's dtype (see `winograd4_input_plane`), through an element written later.

    def typed(value: float, k: int, t: int) -> Any:
        dm[k, o, t] = value
        return dm[k, o, t]

    slot = b * th * tw
    two, four, eight = typed(2.0, 0, slot), typed(4.0, 0, slot), typed(8.0, 0, slot)
    for ty in range(th):
        t0 = (b * th + ty) * tw
        y0 = 4 * ty
        # Rows past OH weigh 0 (and read row y0, which exists).
        y1 = y0 + 1 if y0 + 1 < oh else y0
        y2 = y0 + 2 if y0 + 2 < oh else y0
        y3 = y0 + 3 if y0 + 3 < oh else y0
        k1 = 1.0 if y0 + 1 < oh else 0.0
        k2 = 1.0 if y0 + 2 < oh else 0.0
        k3 = 1.0 if y0 + 3 < oh else 0.0
        for r in range(6):
            # (through the pass's first element, written next)
            a0 = typed(_A_ROWS[r][0], 6 * r, t0)
            a1 = typed(_A_ROWS[r][1] * k1, 6 * r, t0)
            a2 = typed(_A_ROWS[r][2] * k2, 6 * r, t0)
            a3 = typed(_A_ROWS[r][3] * k3, 6 * r, t0)

            def row(x: int) -> Any:
                # Row r of A dY at column x (inlined, as in `winograd4_input_plane`).
                return (
                    a0 * dy[b, o, y0, x]  # noqa: B023
                    + a1 * dy[b, o, y1, x]  # noqa: B023
                    + a2 * dy[b, o, y2, x]  # noqa: B023
                    + a3 * dy[b, o, y3, x]  # noqa: B023
                )

            for tx in range(tw):
                x0 = 4 * tx
                if x0 + 4 <= ow:
                    g0, g1, g2, g3 = row(x0), row(x0 + 1), row(x0 + 2), row(x0 + 3)
                else:
                    # The last column of tiles, cut: columns past OW read as 0 (in dm's dtype).
                    g0 = row(x0)
                    g1 = row(x0 + 1) if x0 + 1 < ow else two - two
                    g2 = row(x0 + 2) if x0 + 2 < ow else two - two
                    g3 = two - two
                t = t0 + tx
                k = 6 * r
                dm[k, o, t] = g0
                dm[k + 1, o, t] = g0 + g1 + g2 + g3
                dm[k + 2, o, t] = g0 - g1 + g2 - g3
                dm[k + 3, o, t] = g0 + two * g1 + four * g2 + eight * g3
                dm[k + 4, o, t] = g0 - two * g1 + four * g2 - eight * g3
                dm[k + 5, o, t] = g3


def winograd4_filter(w: Any, u: Any, flip: bool, i: int, c: int) -> None:
    """Write row r of G g G^T of filter (o, c) of w (O, C, 3, 3) into u[6r .. 6r + 5, o, c], for i = o * 6 + r.

    As `winograd_filter`: one row per call, and with `flip` the filter read rotated by
    180 degrees (the input gradient's filters), by reversed coefficients and columns
    so that every index stays a constant.
    """
    o = i // 6
    r = i - 6 * o
    k = 6 * r
    # The coefficients in u's dtype, through an element written last (see
    # `winograd4_input_plane`; float32 filters transform 1.4 times faster).

    def typed(value: float) -> Any:
        u[k, o, c] = value
        return u[k, o, c]

    g0 = typed(_G_ROWS[r][2] if flip else _G_ROWS[r][0])
    g1 = typed(_G_ROWS[r][1])
    g2 = typed(_G_ROWS[r][0] if flip else _G_ROWS[r][2])
    quarter, minus_sixth, sixth = typed(0.25), typed(-1.0 / 6.0), typed(1.0 / 6.0)
    twelfth, twentyfourth = typed(1.0 / 12.0), typed(1.0 / 24.0)
    # Row r of G g: three column sums ...
    c0 = g0 * w[o, c, 0, 0] + g1 * w[o, c, 1, 0] + g2 * w[o, c, 2, 0]
    c1 = g0 * w[o, c, 0, 1] + g1 * w[o, c, 1, 1] + g2 * w[o, c, 2, 1]
    c2 = g0 * w[o, c, 0, 2] + g1 * w[o, c, 1, 2] + g2 * w[o, c, 2, 2]
    a, b, d = (c2, c1, c0) if flip else (c0, c1, c2)
    # ... times G^T.
    u[k, o, c] = quarter * a
    u[k + 1, o, c] = (a + b + d) * minus_sixth
    u[k + 2, o, c] = (a - b + d) * minus_sixth
    u[k + 3, o, c] = a * twentyfourth + b * twelfth + d * sixth
    u[k + 4, o, c] = a * twentyfourth - b * twelfth + d * sixth
    u[k + 5, o, c] = d


def winograd4_filter_grad(du: Any, dw: Any, flip: bool, o: int, c: int) -> None:
    """Write G^T dU G of filter (o, c) from du (36, O, C) into dw (O, C, 3, 3): the adjoint of `winograd4_filter`.

    `flip` is unused (the signature is `winograd4_filter`'s, so a target launches both alike).
    """
    for i in range(3):
        for j in range(3):
            total = 0.0
            for r in range(6):
                gi = _G_ROWS[r][i]
                if gi != 0.0:
                    for s in range(6):
                        total += gi * _G_ROWS[s][j] * du[6 * r + s, o, c]
            dw[o, c, i, j] = total
