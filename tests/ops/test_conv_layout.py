"""Which kernel pair a dense convolution runs on (`ops._nn._conv_layout`): ResNet-18's and MobileNetV2's shapes, LeNet-5's, and tables without the newer pairs."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cadence.kernels import cpu_kernels
from cadence.ops._nn import _conv_layout

SAME3, NONE = (1, 1, 1, 1), (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "stride", "padding", "layout"),
    [
        ((32, 3, 32, 32), (64, 3, 3, 3), (1, 1), SAME3, "conv2d_planar"),  # RGB stem
        ((32, 64, 32, 32), (64, 64, 3, 3), (1, 1), SAME3, "conv2d_winograd"),
        ((32, 512, 4, 4), (512, 512, 3, 3), (1, 1), SAME3, "conv2d_winograd"),
        ((32, 64, 32, 32), (128, 64, 3, 3), (2, 2), SAME3, "conv2d_phase"),  # 16x16 out
        ((32, 128, 16, 16), (256, 128, 3, 3), (2, 2), SAME3, "conv2d"),  # 8x8 out
        ((32, 64, 32, 32), (128, 64, 1, 1), (2, 2), NONE, "conv2d_planar"),  # 16x16 out
        ((32, 256, 8, 8), (512, 256, 1, 1), (2, 2), NONE, "conv2d"),  # 4x4 out
        ((32, 96, 32, 32), (24, 96, 1, 1), (1, 1), NONE, "conv2d_pointwise"),
        ((32, 960, 4, 4), (160, 960, 1, 1), (1, 1), NONE, "conv2d_pointwise"),  # 4x4
        ((32, 3, 8, 8), (6, 3, 1, 1), (1, 1), NONE, "conv2d_pointwise"),  # few filters
        ((32, 64, 8, 8), (64, 64, 1, 1), (1, 1), SAME3, "conv2d_planar"),  # padded 1x1
        ((64, 1, 32, 32), (6, 1, 5, 5), (1, 1), NONE, "conv2d_planar"),  # LeNet-5
        ((8, 12, 9, 9), (32, 12, 3, 3), (1, 1), SAME3, "conv2d"),  # < 16 input channels
        ((8, 32, 9, 9), (32, 32, 3, 3), (1, 1), (3, 3, 3, 3), "conv2d"),  # padding 3
    ],
)
def test_layout(x_shape, w_shape, stride, padding, layout):
    assert (
        _conv_layout(cpu_kernels(), x_shape, w_shape, stride, padding, (1, 1)) == layout
    )


def test_dilated_3x3_keeps_im2col():
    shape = ((8, 32, 9, 9), (32, 32, 3, 3), (1, 1), SAME3, (2, 2))
    assert _conv_layout(cpu_kernels(), *shape) == "conv2d"


def test_a_table_without_the_newer_pairs_keeps_the_general_kernel():
    older = SimpleNamespace(conv2d_forward=None, conv2d_backward=None)
    shape = ((32, 64, 32, 32), (64, 64, 3, 3), (1, 1), SAME3, (1, 1))
    assert _conv_layout(older, *shape) == "conv2d"
