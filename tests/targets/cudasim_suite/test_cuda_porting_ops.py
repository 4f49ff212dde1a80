"""The porting ops on device tensors: the values and gradients of the CPU, from a few elements.

They compose device array calls; `topk` and adaptive max pooling rank on a host copy
of the keys and gather on the device, `cumsum` and `Tensor.repeat` (numpy's `tile`)
fall back to the host (counted in `statistics()`).
"""

import numpy as np
import pytest

import cadence as ms
from cadence import nn, ops
from cadence.kernels import cuda_kernels

from .test_cuda_training import on_target  # noqa: F401 (fixture)

pytestmark = pytest.mark.cudasim
k = cuda_kernels()
COUNTS = ms.Tensor(np.array([1, 0, 2], np.int32))


def loss(a):
    return (
        ops.norm(a, dim=1).sum() + ops.norm(a, "fro") + ops.topk(a, 2)[0].sum()
        + (ops.broadcast_to(a[:, :1], (2, -1, 3)) * 2).sum() + (ops.repeat_interleave(a, COUNTS, 1) ** 2).sum()
        + (ops.cumsum(a, 0) * a).sum() + nn.ClipByNorm(1)(a, ms.Tensor(np.float32(0.5))).sum()
        + (ops.adaptive_max_pool2d(ops.reshape(a, (1, 1, 2, 3)), (1, 2)) * 3).sum() + a.repeat(2, 1).sum()
    )  # fmt: skip


def test_values_and_gradients_match_the_cpu(on_target):  # noqa: F811 (the fixture)
    x = np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], np.float32)
    want, want_grad = ops.value_and_grad(loss)(ms.Tensor(x))
    on_target("GPU")
    assert isinstance(loss(ms.Tensor(k.to_device(x)))._data, k.DeviceArray)
    got, got_grad = ops.value_and_grad(loss)(ms.Tensor(k.to_device(x)))
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(
        got_grad.asnumpy(), want_grad.asnumpy(), rtol=1e-5, atol=1e-6
    )
