"""The normalization, smooth-activation and batched-matmul CUDA kernels against `reference`."""

import numpy as np
import pytest

from cadence.kernels import reference as ref

from ...kernels.attention_cases import kernel_cases
from .test_cuda_kernels import close, k

pytestmark = pytest.mark.cudasim


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("rows", "width", "groups"), [(3, 5, 2), (1, 1, 1)])
def test_cuda_kernels_match_the_reference(dtype, rows, width, groups):
    for name, args in kernel_cases(dtype, 5, rows, width, groups):
        close(getattr(k, name)(*args), getattr(ref, name)(*args), dtype)
