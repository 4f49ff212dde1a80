"""`DeviceArray`: numpy calls on device arrays run on the device and match numpy."""

import numpy as np
import pytest

from cadence.kernels import cuda_kernels
from cadence.kernels.cuda import _generic as ca_generic

pytestmark = pytest.mark.cudasim
k = cuda_kernels()
rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((4,)).astype(np.float32)

CASES = {
    "add broadcast": (lambda a, b: a + b, lambda a, b: a + b),
    "scalar ops": (lambda a, b: (2.0 - a) * 3 / 2, lambda a, b: (2.0 - a) * 3 / 2),
    "rdiv": (lambda a, b: 1 / (b * b + 1), lambda a, b: 1 / (b * b + 1)),
    "maximum": (lambda a, b: np.maximum(a, b), lambda a, b: np.maximum(a, b)),
    "exp log sqrt": (
        lambda a, b: np.sqrt(np.exp(a)) + np.log(np.abs(b) + 1),
        lambda a, b: np.sqrt(np.exp(a)) + np.log(np.abs(b) + 1),
    ),
    "neg square tanh": (
        lambda a, b: -np.square(a) + np.tanh(a),
        lambda a, b: -np.square(a) + np.tanh(a),
    ),
    "sum axis": (lambda a, b: a.sum(axis=0), lambda a, b: a.sum(axis=0)),
    "sum keepdims": (
        lambda a, b: a.sum(axis=1, keepdims=True),
        lambda a, b: a.sum(axis=1, keepdims=True),
    ),
    "mean all": (lambda a, b: a.mean(), lambda a, b: a.mean()),
    "max min": (
        lambda a, b: a.max(axis=1) - a.min(axis=0).sum(),
        lambda a, b: a.max(axis=1) - a.min(axis=0).sum(),
    ),
    "transpose": (lambda a, b: a.T, lambda a, b: a.T),
    "newaxis": (lambda a, b: a[:, None], lambda a, b: a[:, None]),
    "slices": (lambda a, b: a[1:, ::2], lambda a, b: a[1:, ::2]),
    "ellipsis int": (lambda a, b: a[..., -1], lambda a, b: a[..., -1]),
    "broadcast_to": (
        lambda a, b: np.broadcast_to(b, (3, 4)),
        lambda a, b: np.broadcast_to(b, (3, 4)),
    ),
    "expand_dims": (
        lambda a, b: np.expand_dims(b, (0, 2)),
        lambda a, b: np.expand_dims(b, (0, 2)),
    ),
    "ones_like": (lambda a, b: np.ones_like(a), lambda a, b: np.ones_like(a)),
    "zeros_like dtype": (
        lambda a, b: np.zeros_like(a, dtype=np.float64),
        lambda a, b: np.zeros_like(a, dtype=np.float64),
    ),
    "reshape": (lambda a, b: a.reshape(2, -1), lambda a, b: a.reshape(2, -1)),
    "astype": (lambda a, b: a.astype(np.float64), lambda a, b: a.astype(np.float64)),
    "moveaxis": (
        lambda a, b: np.moveaxis(a, 0, -1),
        lambda a, b: np.moveaxis(a, 0, -1),
    ),
    "matmul": (lambda a, b: a @ a.T, lambda a, b: a @ a.T),
    "host operand": (lambda a, b: A + b, lambda a, b: A + b),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy_without_leaving_the_device(name):
    on_device, on_host = CASES[name]
    k.reset_statistics()
    got = on_device(k.to_device(A), k.to_device(B))
    stats = k.statistics()
    assert not any(key.startswith("fallback") for key in stats), stats
    assert stats.get("to_host", 0) == 0, stats
    assert isinstance(got, k.DeviceArray)
    want = on_host(A, B)
    host = k.to_host(got)
    assert host.shape == want.shape and host.dtype == want.dtype
    np.testing.assert_allclose(host, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_long_reductions_run_in_two_passes(op):
    # 3 x 1100 x 2 reduced over axes (0, 1): 3300 elements per output, above the split.
    x = np.random.default_rng(1).standard_normal((3, 1100, 2))
    assert ca_generic._split(3300, 2)[0] > 1
    got = getattr(k.to_device(x), op)(axis=(0, 1))
    np.testing.assert_allclose(k.to_host(got), getattr(x, op)(axis=(0, 1)), rtol=1e-12)
    whole = getattr(k.to_device(x), op)()
    np.testing.assert_allclose(k.to_host(whole), getattr(x, op)(), rtol=1e-12)


def test_unsupported_numpy_calls_fall_back_and_are_counted():
    k.reset_statistics()
    got = np.sign(k.to_device(A))
    assert isinstance(got, k.DeviceArray)
    np.testing.assert_array_equal(k.to_host(got), np.sign(A))
    assert k.statistics()["fallback:sign"] == 1


def test_copyto_and_setitem_write_into_device_memory():
    d = k.to_device(np.zeros((3, 4), np.float32))
    np.copyto(d, A)
    np.testing.assert_array_equal(k.to_host(d), A)
    d[0, 1] = 5.0
    assert k.to_host(d)[0, 1] == 5.0
    host = np.zeros(4, np.float32)
    np.copyto(host, k.to_device(B))
    np.testing.assert_array_equal(host, B)


def test_host_conversions():
    s = k.to_device(np.array(1.5, np.float32))
    assert float(s) == 1.5 and s.item() == 1.5 and s.shape == ()
    d = k.to_device(np.array([[1.5]], np.float32))
    assert d.tolist() == [[1.5]] and np.asarray(d).shape == (1, 1) and len(d) == 1
    assert repr(d) == "DeviceArray(shape=(1, 1), dtype=float32)"
