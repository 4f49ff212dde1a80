"""The CUDA grouped-convolution kernels against their `reference` twins (float32 and float64)."""

import numpy as np
import pytest

from cadence.kernels import reference as ref

from .test_cuda_kernels import DTYPES, arr, both

pytestmark = pytest.mark.cudasim


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("channels", "filters", "groups", "stride", "padding", "dilation"),
    [
        (4, 4, 4, (1, 1), (1, 1, 1, 1), (1, 1)),  # depthwise 3x3, 'same'
        (3, 3, 3, (2, 1), (1, 0, 2, 1), (1, 2)),  # depthwise, strided, dilated
        (
            4,
            8,
            4,
            (2, 1),
            (1, 0, 2, 1),
            (1, 2),
        ),  # depthwise with multiplier 2, strided, dilated
        (6, 4, 2, (1, 2), (0, 0, 0, 0), (2, 1)),  # two groups of 3 channels
    ],
)
def test_grouped_conv2d(dtype, channels, filters, groups, stride, padding, dilation):
    x = arr((2, channels, 6, 5), dtype, 5)
    w = arr((filters, channels // groups, 3, 2), dtype, 6)
    both("grouped_conv2d_forward", x, w, stride, padding, dilation, groups, dtype=dtype)
    dy = arr(
        ref.grouped_conv2d_forward(x, w, stride, padding, dilation, groups).shape,
        dtype,
        7,
    )
    for need_dx in (True, False):
        both(
            "grouped_conv2d_backward",
            dy,
            x,
            w,
            stride,
            padding,
            dilation,
            groups,
            need_dx,
            dtype=dtype,
        )
    args = (dy, w, x.shape, stride, padding, dilation, groups)
    both("grouped_conv2d_backward_input", *args, dtype=dtype)


def test_grouped_conv2d_refuses_what_the_cpu_refuses():
    from cadence.kernels import cuda_kernels

    x, w = np.zeros((1, 4, 5, 5), np.float32), np.zeros((4, 2, 3, 3), np.float32)
    with pytest.raises(ValueError, match="split into `groups`=3 equal parts"):
        cuda_kernels().grouped_conv2d_forward(x, w, (1, 1), (0, 0, 0, 0), (1, 1), 3)
