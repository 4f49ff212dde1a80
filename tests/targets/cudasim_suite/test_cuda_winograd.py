"""The CUDA Winograd F(4x4, 3x3) and F(2x2, 3x3) convolution kernels against their `reference` twins (float32 and float64)."""

import numpy as np
import pytest

from cadence.kernels import reference as ref

from .test_cuda_kernels import DTYPES, arr, both

pytestmark = pytest.mark.cudasim


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "filters", "padding"),
    [
        (
            (2, 3, 6, 5),
            4,
            (1, 1, 1, 1),
        ),  # 'same', an odd width: the last tile column is cut
        ((1, 2, 4, 7), 3, (0, 2, 1, 0)),  # uneven padding
        # F(4x4, 3x3) (outputs 8 x 9): whole tile rows, a cut tile column
        ((1, 2, 8, 9), 2, (1, 1, 1, 1)),
    ],
)
def test_conv2d_winograd(dtype, shape, filters, padding, monkeypatch):
    from cadence.kernels import _winograd_reference

    monkeypatch.setattr(_winograd_reference, "MIN_F4_TILES", 1)  # F(4x4) on one image
    x = arr(shape, dtype, 5)
    w = arr((filters, shape[1], 3, 3), dtype, 6)
    geometry = ((1, 1), padding, (1, 1))
    both("conv2d_winograd_forward", x, w, *geometry, dtype=dtype)
    dy = arr(ref.conv2d_forward(x, w, *geometry).shape, dtype, 7)
    for need_dx in (True, False):
        both("conv2d_winograd_backward", dy, x, w, *geometry, need_dx, dtype=dtype)


def test_conv2d_winograd_refuses_what_the_cpu_refuses():
    from cadence.kernels import cuda_kernels

    x, w = np.zeros((1, 3, 5, 5), np.float32), np.zeros((2, 3, 3, 3), np.float32)
    with pytest.raises(ValueError, match="3x3 convolution of stride 1"):
        cuda_kernels().conv2d_winograd_forward(x, w, (2, 2), (1, 1, 1, 1), (1, 1))
