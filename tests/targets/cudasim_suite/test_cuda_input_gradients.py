"""Gradients with respect to inputs on the device: they stay there, and match the CPU.

`value_and_grad`, `grad` and `GradOperation` differentiate a fresh leaf over the
input's own device array, from a seed gradient left on its device (no host round
trip: `statistics()` counts no `to_host`),
and matmul's backward takes transposed operands, on the device or left on the host,
through the kernel's transpose flags.
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import ops
from cadence.kernels import cuda_kernels

from .test_cuda_training import on_target  # noqa: F401 (fixture)

pytestmark = pytest.mark.cudasim
k = cuda_kernels()
rng = np.random.default_rng(3)
A = rng.random((2, 3), dtype=np.float32)
B = rng.random((3, 2), dtype=np.float32)


def loss(x, y):
    return (ops.matmul(x, y) * ops.exp(x[:, :2])).sum()


SENS = np.array(2.0, np.float32)  # a seed gradient for the scalar loss

# Each entry: the two input gradients, from the inputs and a seed on the same device.
TRANSFORMS = {
    "value_and_grad": lambda x, y, s: ms.value_and_grad(loss, (0, 1))(x, y)[1],
    "grad": lambda x, y, s: ms.grad(loss, (0, 1))(x, y),
    "GradOperation": lambda x, y, s: ops.GradOperation(get_all=True)(loss)(x, y),
    "GradOperation_sens": lambda x, y, s: ops.GradOperation(
        get_all=True, sens_param=True
    )(loss)(x, y, s),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_input_gradients_stay_on_the_device_and_match_the_cpu(name, on_target):  # noqa: F811 (the fixture)
    gradients = TRANSFORMS[name]
    want = gradients(ms.Tensor(A), ms.Tensor(B), ms.Tensor(SENS))
    on_target("GPU")
    x, y, s = (ms.Tensor(k.to_device(v)) for v in (A, B, SENS))
    k.reset_statistics()
    got = gradients(x, y, s)
    assert k.statistics() == {}, k.statistics()  # no copy either way, no host fallback
    for g, w in zip(got, want, strict=True):
        assert isinstance(g._data, k.DeviceArray)
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


# Each entry: the product, and the shapes of its two operands.
PRODUCTS: dict[str, tuple[Callable[..., Any], tuple[int, ...], tuple[int, ...]]] = {
    "matmul": (ops.matmul, (2, 3), (3, 2)),
    "transpose_a": (ops.MatMul(transpose_a=True), (3, 2), (3, 2)),
    "transpose_b": (ops.MatMul(transpose_b=True), (2, 3), (2, 3)),
    "transpose_both": (ops.MatMul(True, True), (3, 2), (2, 3)),
    "batched": (ops.matmul, (2, 2, 3), (2, 3, 2)),
    "stack_times_matrix": (ops.matmul, (2, 2, 3), (3, 2)),
    "vector_times_matrix": (ops.matmul, (3,), (3, 2)),
    "matrix_times_vector": (ops.matmul, (2, 3), (3,)),
    "batched_transpose_b": (ops.BatchMatMul(transpose_b=True), (2, 2, 3), (2, 2, 3)),
    # past 25 rows a side, cdist's 2-norm is |x|^2 + |y|^2 - 2 x @ y.T (and so its gradient)
    "cdist_by_products": (ops.cdist, (26, 2), (26, 2)),
}
# Which operands live on the device (the others stay host tensors, copied over by the kernel).
PLACEMENTS = {"both": (True, True), "a": (True, False), "b": (False, True)}


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
@pytest.mark.parametrize("name", sorted(PRODUCTS))
def test_matmul_gradients_match_the_cpu(name, placement, on_target):  # noqa: F811 (the fixture)
    product, shape_a, shape_b = PRODUCTS[name]
    a = rng.random(shape_a, dtype=np.float32)
    b = rng.random(shape_b, dtype=np.float32)
    weighted = rng.random(product(ms.Tensor(a), ms.Tensor(b)).shape, dtype=np.float32)

    def fn(x, y):
        return (product(x, y) * ms.Tensor(weighted)).sum()

    want = ms.grad(fn, (0, 1))(ms.Tensor(a), ms.Tensor(b))
    on_target("GPU")
    on_device = PLACEMENTS[placement]
    x, y = (
        ms.Tensor(k.to_device(v) if dev else v)
        for v, dev in zip((a, b), on_device, strict=True)
    )
    k.reset_statistics()
    got = ms.grad(fn, (0, 1))(x, y)
    assert not any(key.startswith("fallback:") for key in k.statistics())
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g.asnumpy()), w.asnumpy(), rtol=1e-5)
