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


WEIGHTS = np.arange(6, dtype=np.float32).reshape(2, 3)


def zoo_loss(a):
    w = (
        ms.Tensor(k.to_device(WEIGHTS))
        if isinstance(a._data, k.DeviceArray)
        else ms.Tensor(WEIGHTS)
    )
    image = ops.reshape(a, (1, 1, 2, 3))
    return (
        (ops.tril(a, 0) * w).sum() + (ops.sort(a, 1, True)[0] * w).sum() + ops.std(a, 1).sum()
        + (ops.cumprod(a, 1) * w).sum() + ops.index_select(a, 1, COUNTS).sum() + ops.cdist(a, a[:1] * 0.5).sum()
        + (ops.scatter(a, 1, ms.Tensor(np.array([[0], [2]])), a[:, :1] * 2) * w).sum()
        + (ops.L2Normalize(1)(a) * w).sum() + ops.einsum("ij,kj->ik", a, a).sum() + ops.unstack(a, 1)[1].sum()
        + (ops.interpolate(image, size=(3, 4), mode="bilinear") ** 2).sum()
        + (ops.interpolate(image, size=(3, 5)) ** 2).sum() + (ops.interpolate(image, size=(1, 2), mode="area") ** 2).sum()
    )  # fmt: skip


def test_model_zoo_ops_match_the_cpu_and_count_their_host_fallbacks(on_target):  # noqa: F811 (the fixture)
    # Through a Parameter (weights), where test_values_and_gradients_match_the_cpu uses an input.
    x = np.array([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], np.float32)
    cpu = ms.Parameter(ms.Tensor(x), name="cpu")
    want, (want_grad,) = ms.value_and_grad(lambda: zoo_loss(cpu), None, [cpu])()
    on_target("GPU")
    device = ms.Parameter(ms.Tensor(k.to_device(x)), name="device")
    k.reset_statistics()
    got, (got_grad,) = ms.value_and_grad(lambda: zoo_loss(device), None, [device])()
    assert isinstance(got_grad._data, k.DeviceArray)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(
        got_grad.asnumpy(), want_grad.asnumpy(), rtol=1e-5, atol=1e-5
    )
    fallbacks = {
        key[len("fallback:") :] for key in k.statistics() if key.startswith("fallback:")
    }
    # On host copies (docs/compute.md): cumprod's scan and its gradient's (all, flip,
    # cumsum); everything else the loss calls stays on the device.
    assert fallbacks == {"cumprod", "all", "flip", "cumsum"}
