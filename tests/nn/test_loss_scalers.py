"""`cadence.amp`'s functional loss scaling: `StaticLossScaler`, `DynamicLossScaler` (MindSpore 2.x; `all_finite` in test_amp.py)."""

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, amp


def test_scale_and_unscale_keep_each_dtype_and_differentiate():
    scaler = amp.StaticLossScaler(1024)
    half, single = (
        Tensor(np.array([1.5, 1.0], np.float16)),
        Tensor(np.array([2048.0], np.float32)),
    )
    unscaled = scaler.unscale((half, [single]))
    assert isinstance(unscaled, tuple) and isinstance(unscaled[1], list)
    assert (unscaled[0].dtype, unscaled[1][0].dtype) == (ms.float16, ms.float32)
    np.testing.assert_allclose(
        unscaled[0].asnumpy(), np.array([1.5, 1.0], np.float16) / np.float16(1024)
    )
    assert unscaled[1][0].asnumpy().tolist() == [2.0]
    grad = ms.grad(lambda x: scaler.scale((x * x).sum()))(
        Tensor(np.array([1.0, 2.0], np.float32))
    )
    assert grad.asnumpy().tolist() == [2048.0, 4096.0]
    assert scaler.adjust(Tensor(True)) is False


def _run(scaler, steps):
    seen = []
    for finite in steps:
        assert scaler.adjust(Tensor(finite)) is True
        seen.append(
            (float(scaler.scale_value.asnumpy()), int(scaler.counter.asnumpy()))
        )
    return seen


def test_dynamic_scale_grows_after_a_window_of_finite_steps_and_shrinks_on_overflow():
    # The sequence MindSpore 2.10 gives for the same calls.
    seen = _run(
        amp.DynamicLossScaler(1024, 2, 3),
        [True, True, True, False, True, True, True, True],
    )
    assert seen == [
        (1024.0, 1),
        (1024.0, 2),
        (2048.0, 0),
        (1024.0, 0),
        (1024.0, 1),
        (1024.0, 2),
        (2048.0, 0),
        (2048.0, 1),
    ]
    assert _run(amp.DynamicLossScaler(1.0, 2, 1), [False, False])[-1] == (
        1.0,
        0,
    )  # never below 1
    assert _run(amp.DynamicLossScaler(3e38, 2, 1), [True])[-1][0] == pytest.approx(
        3e38
    )  # no growth to inf


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda: amp.StaticLossScaler(0.5), ValueError, r"'StaticLossScaler'.*'scale_value' must be in \[1.0, inf\], but got 0.5"),
        (lambda: amp.StaticLossScaler("a"), TypeError, r"'StaticLossScaler'.*'scale_value' must be a number, but got 'a'"),
        (lambda: amp.DynamicLossScaler(2, 0, 1), ValueError, r"'DynamicLossScaler'.*'scale_factor' must be an int > 0, but got 0"),
        (lambda: amp.DynamicLossScaler(2, 2, 1.5), TypeError, r"'DynamicLossScaler'.*'scale_window' must be an int > 0, but got 1.5"),
    ],
)  # fmt: skip
def test_bad_arguments_are_named(make, error, message):
    with pytest.raises(error, match=message):
        make()
