"""The CPU grouped-convolution kernels against their `reference` twins (Hypothesis), and their argument checks."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from cadence.kernels import _grouped_conv as grouped_conv, reference

from .test_cpu_matches_reference import arr, both, dtypes, seeds


@given(
    n=st.integers(1, 2), groups=st.integers(1, 4), per_group=st.integers(1, 3), multiplier=st.integers(1, 2),
    h=st.integers(1, 7), w=st.integers(1, 7), kh=st.integers(1, 3), kw=st.integers(1, 3),
    s=st.tuples(st.integers(1, 3), st.integers(1, 3)), p=st.tuples(*[st.integers(0, 2)] * 4),
    d=st.tuples(st.integers(1, 2), st.integers(1, 2)), need_dx=st.booleans(), dtype=dtypes, seed=seeds,
)  # fmt: skip
def test_grouped_conv2d(
    n: int, groups: int, per_group: int, multiplier: int, h: int, w: int, kh: int, kw: int,
    s: tuple[int, int], p: tuple[int, int, int, int], d: tuple[int, int], need_dx: bool, dtype: type,
    seed: int,
) -> None:  # fmt: skip
    assume(
        h + p[0] + p[1] >= d[0] * (kh - 1) + 1
        and w + p[2] + p[3] >= d[1] * (kw - 1) + 1
    )
    _check_both_ways(
        arr((n, groups * per_group, h, w), dtype, seed),
        arr((groups * multiplier, per_group, kh, kw), dtype, seed + 1),
        s, p, d, groups, need_dx, dtype, seed,
    )  # fmt: skip


def _check_both_ways(
    x: np.ndarray, wt: np.ndarray, s: tuple[int, int], p: tuple[int, int, int, int],
    d: tuple[int, int], groups: int, need_dx: bool, dtype: type, seed: int,
) -> None:  # fmt: skip
    both("grouped_conv2d_forward", x, wt, s, p, d, groups, dtype=dtype)
    dy = arr(
        reference.grouped_conv2d_forward(x, wt, s, p, d, groups).shape, dtype, seed + 2
    )
    both("grouped_conv2d_backward", dy, x, wt, s, p, d, groups, need_dx, dtype=dtype)
    if need_dx:  # the input gradient alone (a transposed convolution's forward)
        both(
            "grouped_conv2d_backward_input",
            dy,
            wt,
            x.shape,
            s,
            p,
            d,
            groups,
            dtype=dtype,
        )


@given(
    n=st.integers(1, 3), channels=st.integers(1, 9), h=st.integers(1, 12), w=st.integers(1, 12),
    kh=st.integers(1, 5), kw=st.integers(1, 5), s=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    p=st.tuples(*[st.integers(0, 3)] * 4), d=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    need_dx=st.booleans(), dtype=dtypes, seed=seeds,
)  # fmt: skip
def test_depthwise_conv2d(
    n: int, channels: int, h: int, w: int, kh: int, kw: int, s: tuple[int, int],
    p: tuple[int, int, int, int], d: tuple[int, int], need_dx: bool, dtype: type, seed: int,
) -> None:  # fmt: skip
    """Depthwise (groups == channels == filters): the channels-last bodies, split over threads."""
    assume(
        h + p[0] + p[1] >= d[0] * (kh - 1) + 1
        and w + p[2] + p[3] >= d[1] * (kw - 1) + 1
    )
    x = arr((n, channels, h, w), dtype, seed)
    wt = arr((channels, 1, kh, kw), dtype, seed + 1)
    _check_both_ways(x, wt, s, p, d, channels, need_dx, dtype, seed)


FLAT_PADDINGS = ((1, 1, 1, 1), (1, 0, 1, 0), (1, 1, 1, 0))


@given(
    n=st.integers(1, 3), channels=st.integers(1, 5), h=st.integers(1, 9), w=st.integers(1, 9),
    stride=st.sampled_from([1, 2]), padding=st.sampled_from(FLAT_PADDINGS),
    need_dx=st.booleans(), dtype=dtypes, seed=seeds,
)  # fmt: skip
def test_depthwise_conv2d_flat(
    n: int, channels: int, h: int, w: int, stride: int, padding: tuple[int, int, int, int],
    need_dx: bool, dtype: type, seed: int,
) -> None:  # fmt: skip
    """3x3 depthwise layers with padding 1, every plane width (down to 1).

    The flat plane bodies where the padding after the plane suits them, channels-last where not.
    """
    assume(h + padding[0] + padding[1] >= 3 and w + padding[2] + padding[3] >= 3)
    x = arr((n, channels, h, w), dtype, seed)
    wt = arr((channels, 1, 3, 3), dtype, seed + 1)
    with patch.dict(grouped_conv.FLAT_MIN_WIDTH, {1: 1, 2: 1}):
        _check_both_ways(
            x, wt, (stride, stride), padding, (1, 1), channels, need_dx, dtype, seed
        )


def test_depthwise_conv2d_flat_edges_read_the_padding() -> None:
    """An infinite pixel in the last column and a NaN in the first reach only what the reference's do.

    The flat bodies' rows run end to end: had an edge column read the neighbour row instead
    of the padding's zero, the infinity and the NaN would spread to the next row's outputs.
    """
    x = arr((1, 2, 4, 5), np.float32, 0)
    x[0, 0, 1, 4], x[0, 1, 2, 0] = np.inf, np.nan
    wt = arr((2, 1, 3, 3), np.float32, 1)
    dy = arr((1, 2, 4, 5), np.float32, 2)
    geometry = ((1, 1), (1, 1, 1, 1), (1, 1), 2)
    with patch.dict(grouped_conv.FLAT_MIN_WIDTH, {1: 1}):
        y = grouped_conv.grouped_conv2d_forward(x, wt, *geometry)
        dx, dw = grouped_conv.grouped_conv2d_backward(dy, x, wt, *geometry, True)
    dx_ref, dw_ref = reference.grouped_conv2d_backward(dy, x, wt, *geometry, True)
    y_ref = reference.grouped_conv2d_forward(x, wt, *geometry)
    assert dx is not None and dx_ref is not None
    for value, want in ((y, y_ref), (dx, dx_ref), (dw, dw_ref)):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride", [1, 2])
@pytest.mark.parametrize("below", [True, False])
def test_depthwise_conv2d_flat_threshold(stride: int, below: bool) -> None:
    """At each stride's threshold width (flat) and one below (channels-last): both match the reference."""
    width = grouped_conv.FLAT_MIN_WIDTH[stride] - below
    x = arr((2, 3, 3, width), np.float32, 0)
    wt = arr((3, 1, 3, 3), np.float32, 1)
    geom = np.array([stride, stride, 1, 1, 1, 1, 3])
    out = (2, 3, 2 if stride == 2 else 3, (width - 1) // stride + 1)
    assert grouped_conv._flat_stride(x, wt, geom, out) == (0 if below else stride)
    _check_both_ways(
        x, wt, (stride, stride), (1, 1, 1, 1), (1, 1), 3, True, np.float32, 0
    )


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "groups", "message"),
    [
        ((1, 4, 5, 5), (4, 2, 3, 3), 3, "split into `groups`=3 equal parts"),
        (
            (1, 4, 5, 5),
            (6, 1, 3, 3),
            4,
            "split into `groups`=4",
        ),  # 6 filters in 4 groups
        ((1, 2, 2, 2), (2, 1, 3, 3), 2, "empty output"),
    ],
)
def test_grouped_conv2d_refuses_inconsistent_shapes(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], groups: int, message: str
) -> None:
    from cadence.kernels import cpu_kernels

    x, w = np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32)
    with pytest.raises(ValueError, match=message):
        cpu_kernels().grouped_conv2d_forward(x, w, (1, 1), (0, 0, 0, 0), (1, 1), groups)
