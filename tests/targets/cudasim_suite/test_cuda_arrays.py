"""`DeviceArray`: numpy calls on device arrays run on the device and match numpy."""

import numpy as np
import pytest
from hypothesis import given

from cadence.kernels import cuda_kernels
from cadence.kernels.cuda import _generic as ca_generic
from tests.helpers.nan_cases import NAN_CALLS, nan_pairs

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
    # host operands of a matmul in any layout: transposed views go over as stored, flagged
    "matmul host transposed": (lambda a, b: (A.T @ a) @ A.T, lambda a, b: (A.T @ a) @ A.T),
    "matmul vectors and a stack": (lambda a, b: np.concatenate(((b @ a.T) @ a, (a.reshape(2, 3, 2) @ a[:2, :2]).reshape(-1))), lambda a, b: np.concatenate(((b @ a.T) @ a, (a.reshape(2, 3, 2) @ a[:2, :2]).reshape(-1)))),
    "matmul host strided": (lambda a, b: a[:, :2] @ A[:2, ::2], lambda a, b: a[:, :2] @ A[:2, ::2]),
    # issue 23's networks: comparisons and clip (ReLU6), joins and splits (the LSTM's
    # states, attention heads), gathers along an axis (ops.gather)
    "compare": (lambda a, b: np.not_equal(a > b, a >= 0.5), lambda a, b: np.not_equal(a > b, a >= 0.5)),
    "compare times float": (lambda a, b: a * (np.clip(a, 0.0, 6.0) == a), lambda a, b: a * (np.clip(a, 0.0, 6.0) == a)),
    "compare dtype": (lambda a, b: np.less_equal(a, b), lambda a, b: np.less_equal(a, b)),
    "clip": (lambda a, b: np.clip(a, -0.5, 0.5) + np.clip(b, None, 0.2), lambda a, b: np.clip(a, -0.5, 0.5) + np.clip(b, None, 0.2)),
    "concatenate": (lambda a, b: np.concatenate([a, a[:1] * 2], axis=0), lambda a, b: np.concatenate([a, a[:1] * 2], axis=0)),
    "concatenate last axis": (lambda a, b: np.concatenate((a, a[:, :1]), axis=-1), lambda a, b: np.concatenate((a, a[:, :1]), axis=-1)),
    "stack": (lambda a, b: np.stack([a, a * 2], axis=1), lambda a, b: np.stack([a, a * 2], axis=1)),
    "split": (lambda a, b: np.concatenate(np.split(a, [1, 3], axis=1)[::-1], axis=1), lambda a, b: np.concatenate(np.split(a, [1, 3], axis=1)[::-1], axis=1)),
    "split sections": (lambda a, b: np.split(a, 2, axis=1)[1], lambda a, b: np.split(a, 2, axis=1)[1]),
    "take": (lambda a, b: np.take(a, np.array([2, 0, 2]), axis=0), lambda a, b: np.take(a, np.array([2, 0, 2]), axis=0)),
    "take int": (lambda a, b: np.take(a, 1, axis=1), lambda a, b: np.take(a, 1, axis=1)),
    "where": (lambda a, b: np.where(a > b, a, b * 2), lambda a, b: np.where(a > b, a, b * 2)),
    "where scalars": (lambda a, b: np.where(b > 0, 1.0, 0.0) + np.where(a < 0, a, 0), lambda a, b: np.where(b > 0, 1.0, 0.0) + np.where(a < 0, a, 0)),
    "index array": (lambda a, b: a[:, np.array([[3, -1], [0, 0]])], lambda a, b: a[:, np.array([[3, -1], [0, 0]])]),
}  # fmt: skip


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
    # np.where(condition) lists indices, whose count only the host knows.
    rows, cols = np.where(k.to_device(A) > 0)
    np.testing.assert_array_equal(k.to_host(rows), np.where(A > 0)[0])
    np.testing.assert_array_equal(k.to_host(cols), np.where(A > 0)[1])
    assert k.statistics()["fallback:where"] == 1


def test_copyto_and_setitem_write_into_device_memory():
    d = k.to_device(np.zeros((3, 4), np.float32))
    np.copyto(d, A)
    np.testing.assert_array_equal(k.to_host(d), A)
    d[0, 1] = 5.0
    assert k.to_host(d)[0, 1] == 5.0
    host = np.zeros(4, np.float32)
    np.copyto(host, k.to_device(B))
    np.testing.assert_array_equal(host, B)


def test_setitem_with_slices_and_add_at_along_an_axis_stay_on_the_device():
    want = np.zeros((3, 4), np.float32)
    d = k.to_device(want)
    k.reset_statistics()
    ids = np.array([1, 3, 1, -1])
    for target in (d, want):
        target[1:, ::2] = np.float32(2.0) * (
            B[:2] if target is want else k.to_device(B[:2])
        )
        target[0] = 7.0
        target[..., -1:] += 1.0
        np.add.at(target, (slice(None), ids), A)  # type: ignore[arg-type] # repeated ids add up
    stats = k.statistics()
    assert not any(key.startswith("fallback") for key in stats), stats
    np.testing.assert_allclose(k.to_host(d), want, rtol=1e-6)


def test_add_at_with_other_indices_falls_back_and_writes_back():
    want = np.zeros((3, 4), np.float32)
    d = k.to_device(want)
    k.reset_statistics()
    index = (np.array([0, 2, 0]), np.array([1, 1, 1]))
    np.add.at(d, index, 1.5)
    np.add.at(want, index, 1.5)
    assert k.statistics()["fallback:add.at"] == 1
    np.testing.assert_array_equal(k.to_host(d), want)


def test_indices_out_of_range_raise_numpys_error():
    d = k.to_device(A)
    for ids in (np.array([0, 4]), k.to_device(np.array([-5]))):
        with pytest.raises(IndexError, match="out of bounds for axis with size 4"):
            d[:, ids]
        with pytest.raises(IndexError, match="out of bounds"):
            np.add.at(d, (slice(None), ids), 1.0)  # type: ignore[arg-type]


def test_host_conversions():
    s = k.to_device(np.array(1.5, np.float32))
    assert float(s) == 1.5 and s.item() == 1.5 and s.shape == ()
    d = k.to_device(np.array([[1.5]], np.float32))
    assert d.tolist() == [[1.5]] and np.asarray(d).shape == (1, 1) and len(d) == 1
    assert repr(d) == "DeviceArray(shape=(1, 1), dtype=float32)"


@pytest.mark.parametrize("name", sorted(NAN_CALLS))
@given(pair=nan_pairs())
def test_max_min_clip_propagate_nan_as_numpy_does(name, pair):
    a, b = pair
    call = NAN_CALLS[name]
    got = k.to_host(call(k.to_device(a), k.to_device(b)))
    np.testing.assert_array_equal(got, call(a, b))


@pytest.mark.parametrize("op", ["max", "min"])
def test_nan_survives_both_passes_of_a_long_reduction(op):
    x = np.random.default_rng(2).standard_normal((3, 1100, 2))
    x[1, 700, 0] = np.nan  # one NaN in the second pass's input for output 0 only
    got = k.to_host(getattr(k.to_device(x), op)(axis=(0, 1)))
    np.testing.assert_array_equal(got, getattr(x, op)(axis=(0, 1)))
    assert np.isnan(got[0]) and not np.isnan(got[1])
