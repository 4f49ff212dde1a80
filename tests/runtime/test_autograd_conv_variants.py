"""Gradients of the convolutional networks' ops against central finite differences (float64).

Grouped and depthwise convolution (both the direct kernel and the per-group path),
the transposed convolution (grouped too), adaptive average pooling, mirror padding and channel
dropout; Hypothesis draws the geometry.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

import cadence as ms
from cadence import nn, ops
from cadence.ops import _conv_variants as cv, _nn as n, _spatial as sp

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


class _CountingKernels:
    """The current target's kernels, counting calls by name."""

    def __init__(self, kernels: object) -> None:
        self.kernels, self.calls = kernels, Counter[str]()

    def __getattr__(self, name: str) -> object:
        kernel = getattr(self.kernels, name)

        def counted(*args: object) -> object:
            self.calls[name] += 1
            return kernel(*args)

        return counted


@pytest.mark.parametrize(("groups", "prefix"), [(1, ""), (2, "grouped_")])
@pytest.mark.parametrize("wrt", ["x", "weight"])
def test_conv2d_transpose_computes_only_the_requested_gradients(
    monkeypatch: pytest.MonkeyPatch, groups: int, prefix: str, wrt: str
) -> None:
    counting = _CountingKernels(n._k())
    monkeypatch.setattr(n, "_k", lambda: counting)
    x, w = ms.Tensor(values((1, 2, 3, 3))), ms.Tensor(values((2, 1, 2, 2), seed=1))

    def loss(a: ms.Tensor, ww: ms.Tensor) -> ms.Tensor:
        geometry = ((2, 2), (0, 0, 0, 0), (1, 1), groups)
        return ops.sum(cv.conv2d_transpose(a, ww, (6, 6), *geometry))

    ms.value_and_grad(loss, 0 if wrt == "x" else 1)(x, w)
    # The forward is the convolution's input gradient alone; the backward runs the
    # convolution for dx and the convolution's weight gradient for dw, each only if asked.
    assert counting.calls == {
        f"{prefix}conv2d_backward_input": 1,
        (f"{prefix}conv2d_forward" if wrt == "x" else f"{prefix}conv2d_backward"): 1,
    }
