"""MindSpore 2.x's top-level functions: from_numpy, tensor, is_tensor, set_device, mutable, jit_class, recompute."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import nn
from tests.helpers.bad_calls import BadCalls, bad_calls_test


@pytest.mark.parametrize(
    "make", [ms.from_numpy, ms.Tensor.from_numpy], ids=["function", "static"]
)
def test_from_numpy_shares_memory_both_ways_and_keeps_the_dtype(make):
    a = np.zeros((2, 2), np.float64)
    t = make(a)
    assert t.dtype == ms.float64  # unlike Tensor([...]) of Python floats, no float32
    a[0, 0] = 5.0
    assert t.asnumpy()[0, 0] == 5.0
    t[1, 1] = 7.0
    assert a[1, 1] == 7.0


def test_tensor_function_matches_the_constructor():
    made = ms.tensor([1, 2], ms.float32)
    assert isinstance(made, ms.Tensor)
    assert made.dtype == ms.float32
    assert made.tolist() == [1.0, 2.0]
    assert ms.tensor(1.5).dtype == ms.float32  # a Python float, as Tensor(1.5)
    assert ms.tensor(shape=(2,), dtype=ms.float32, init="ones").tolist() == [1.0, 1.0]
    assert ms.tensor([3], device="cpu").tolist() == [3]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (ms.Tensor(1), True),
        (ms.Parameter(ms.Tensor(1.0), name="p"), True),
        (np.ones(2), False),
        ([1.0], False),
    ],
    ids=["tensor", "parameter", "ndarray", "list"],
)
def test_is_tensor(obj, expected):
    assert ms.is_tensor(obj) is expected


def test_set_device_sets_the_target_and_the_device_id():
    try:
        ms.set_device("cpu", 1)
        assert ms.get_context("device_target") == "CPU"
        assert ms.get_context("device_id") == 1
        ms.set_device("CPU")  # device_id None: left as it is
        assert ms.get_context("device_id") == 1
    finally:
        ms.set_context(device_id=0)


def _mutable_self_containing():
    items: list[object] = [1]
    items.append(items)
    return ms.mutable(items)


class _Plain:
    pass


# The calls go through `unchecked` (Any): their arguments are wrong on purpose.
unchecked: Any = ms
BAD_CALLS: BadCalls = {
    "from_numpy-list": (lambda: unchecked.from_numpy([1.0]), TypeError, "'array' must be a numpy.ndarray"),
    "Tensor.from_numpy-list": (lambda: unchecked.Tensor.from_numpy(1), TypeError, "'array' must be a numpy.ndarray"),
    "from_numpy-strings": (lambda: unchecked.from_numpy(np.array(["a"])), TypeError, "dtype('<U1') has no cadence type"),
    "tensor-device-type": (lambda: unchecked.tensor([1], device=0), TypeError, "'device' must be a str"),
    "tensor-device-other": (lambda: unchecked.tensor([1], device="GPU"), ValueError, "device target 'CPU'"),
    "set_device-type": (lambda: unchecked.set_device(5), TypeError, "'device_target' must be a str"),
    "set_device-unknown": (lambda: unchecked.set_device("XPU"), ValueError, "No device target named 'XPU'"),
    "set_device-id-type": (lambda: unchecked.set_device("CPU", "0"), TypeError, "'device_id' must be an int"),
    "set_device-id-negative": (lambda: unchecked.set_device("CPU", -1), ValueError, "got -1"),
    "mutable-str": (lambda: unchecked.mutable("abc"), TypeError, "got 'abc' of type 'str'"),
    "mutable-nested-object": (lambda: unchecked.mutable((1, _Plain())), TypeError, "'_Plain'"),
    "mutable-self": (_mutable_self_containing, ValueError, "must not contain itself"),
    "mutable-dynamic_len-tensor": (
        lambda: unchecked.mutable(unchecked.Tensor(1), dynamic_len=True), TypeError, "needs a tuple or list",
    ),
    "mutable-dynamic_len-type": (lambda: unchecked.mutable([1], dynamic_len=1), TypeError, "'dynamic_len' must be a bool"),
    "jit_class-cell": (lambda: unchecked.jit_class(nn.Dense), TypeError, "not a Cell"),
    "jit_class-function": (lambda: unchecked.jit_class(len), TypeError, "'cls' must be a class"),
    "recompute-function": (lambda: unchecked.recompute(abs, unchecked.Tensor(1.0)), TypeError, "must be a Cell"),
    "recompute-not-callable": (
        lambda: unchecked.recompute(3, use_reentrant=False), TypeError, "'block' must be callable",
    ),
    "recompute-option": (
        lambda: unchecked.recompute(nn.ReLU(), unchecked.Tensor(1.0), output_recompute="no"), TypeError, "'output_recompute'",
    ),
}  # fmt: skip


test_bad_arguments_get_clear_errors = bad_calls_test(BAD_CALLS)


@pytest.mark.parametrize(
    "value",
    [
        1,
        2.5,
        True,
        ms.Tensor([1.0]),
        (ms.Tensor(1), 2),
        [1, [2.0]],
        {"a": ms.Tensor(1)},
    ],
    ids=["int", "float", "bool", "tensor", "tuple", "nested-list", "dict"],
)
def test_mutable_returns_its_input(value):
    assert ms.mutable(value) is value


def test_mutable_dynamic_len_takes_a_sequence():
    items = [ms.Tensor(1), ms.Tensor(2)]
    assert ms.mutable(items, dynamic_len=True) is items


def test_jit_class_returns_the_class():
    @ms.jit_class
    class Scale:
        def __init__(self, factor: float) -> None:
            self.factor = factor

    assert Scale(2.0).factor == 2.0
    assert Scale.__name__ == "Scale"


def test_recompute_returns_the_block_result_and_its_gradient():
    ms.set_seed(0)
    block = nn.Dense(3, 2)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert np.array_equal(ms.recompute(block, x).asnumpy(), block(x).asnumpy())
    weights = block.trainable_params()
    through = ms.grad(lambda v: ms.recompute(block, v).sum(), None, weights)(x)
    direct = ms.grad(lambda v: block(v).sum(), None, weights)(x)
    for a, b in zip(through, direct, strict=True):
        assert np.array_equal(a.asnumpy(), b.asnumpy())


def test_recompute_takes_any_callable_without_reentrance():
    assert (
        ms.recompute(lambda a, b=0: a + b, 1, b=2, use_reentrant=False, early_stop=True)
        == 3
    )


@pytest.mark.parametrize(
    "name", ["from_numpy", "is_tensor", "jit_class", "mutable", "recompute"]
)
def test_common_exports_the_same_functions_as_mindspore_common(name):
    import cadence.common

    assert getattr(cadence.common, name) is getattr(ms, name)
