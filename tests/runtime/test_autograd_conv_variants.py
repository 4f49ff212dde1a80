"""Gradients of the convolutional networks' ops against central finite differences (float64).

Grouped and depthwise convolution (both the direct kernel and the per-group path),
the transposed convolution (grouped too), adaptive average pooling, mirror padding and channel
dropout; Hypothesis draws the geometry.
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, strategies as st

import cadence as ms
from cadence import nn
from cadence.ops import _conv_variants as cv, _spatial as sp

from .test_autograd import SETTINGS, check, values


@SETTINGS
# per_group 9 is above the direct kernel's limit: the per-group (im2col) path.
@given(
    groups=st.integers(1, 3), per_group=st.sampled_from([1, 2, 9]), multiplier=st.integers(1, 2),
    size=st.integers(3, 6), k=st.integers(1, 3), stride=st.integers(1, 2), pad=st.integers(0, 2),
    dil=st.integers(1, 2), seed=st.integers(0, 1000),
)  # fmt: skip
def test_grouped_conv2d(
    groups: int,
    per_group: int,
    multiplier: int,
    size: int,
    k: int,
    stride: int,
    pad: int,
    dil: int,
    seed: int,
) -> None:
    c, o = groups * per_group, groups * multiplier
    x, w = (
        values((2, c, size, size), seed=seed),
        values((o, per_group, k, k), seed=seed + 1),
    )
    assume(size + pad >= dil * (k - 1) + 1)  # the width is padded on the left only
    check(
        lambda a, ww: cv.conv2d_grouped(
            a, ww, (stride, stride), (pad, pad + 1, pad, 0), (dil, dil), groups
        ),
        x,
        w,
    )


@SETTINGS
# out_per_group 9 is above the direct kernel's limit: the per-group path.
@given(
    groups=st.integers(1, 2), cin=st.integers(1, 2), out_per_group=st.sampled_from([1, 2, 9]),
    size=st.integers(1, 4), k=st.integers(1, 3), stride=st.integers(1, 3), dil=st.integers(1, 2),
    mode=st.sampled_from(["same", "valid", "pad"]), seed=st.integers(0, 1000),
)  # fmt: skip
def test_conv2d_transpose(
    groups: int, cin: int, out_per_group: int, size: int, k: int, stride: int, dil: int,
    mode: str, seed: int,
) -> None:  # fmt: skip
    pads = (1, 0, 0, 1) if mode == "pad" and k > 1 else 0
    cin *= groups
    cell = nn.Conv2dTranspose(
        cin, out_per_group * groups, k, stride=stride, pad_mode=mode, padding=pads,
        dilation=dil, group=groups,
    )  # fmt: skip
    x, w = (
        values((2, cin, size, size + 1), seed=seed),
        values((cin, out_per_group, k, k), seed=seed + 1),
    )

    out_hw, conv_pads = cell.geometry(size, size + 1)
    check(
        lambda a, ww: cv.conv2d_transpose(
            a, ww, out_hw, (stride, stride), conv_pads, (dil, dil), groups
        ),
        x,
        w,
    )


@SETTINGS
@given(
    h=st.integers(1, 7), w=st.integers(1, 7), oh=st.integers(1, 4),
    ow=st.sampled_from([1, 2, 3, None]), seed=st.integers(0, 1000),
)  # fmt: skip
def test_adaptive_avg_pool2d(
    h: int, w: int, oh: int, ow: int | None, seed: int
) -> None:
    check(
        lambda a: sp.adaptive_avg_pool2d(a, (oh, ow)), values((2, 3, h, w), seed=seed)
    )


@SETTINGS
@given(
    before=st.integers(0, 3), after=st.integers(0, 3), mode=st.sampled_from(["REFLECT", "SYMMETRIC"]),
    seed=st.integers(0, 1000),
)  # fmt: skip
def test_mirror_pad(before: int, after: int, mode: str, seed: int) -> None:
    check(
        lambda a: sp.mirror_pad(a, ((0, 0), (before, after), (after, before)), mode),
        values((2, 4, 5), seed=seed),
    )


def test_dropout2d_gradient_is_the_channel_mask() -> None:
    ms.set_seed(3)
    x = ms.Tensor(np.ones((4, 6, 2, 2)))
    grad = ms.grad(lambda a: (sp.dropout2d(a, 0.5) * 1.0).sum())(x).asnumpy()
    per_channel = grad[:, :, 0, 0]
    assert set(np.unique(per_channel)) == {0.0, 2.0}
    assert (
        grad == per_channel[:, :, None, None]
    ).all()  # whole channels kept or dropped
