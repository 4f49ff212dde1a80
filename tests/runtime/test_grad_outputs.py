"""`grad` of tuple outputs (their sum, as MindSpore) and `sens_param` (the output's gradient given).

The expected values were recorded on MindSpore 2.10 with the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence as ms
from tests.helpers.bad_calls import BadCalls, bad_calls_test

X = ms.Tensor([1.0, 2.0])
Y = ms.Tensor([3.0, 4.0])
S = ms.Tensor([10.0, 100.0])


def _product(x, y):
    return x * y


def _two_outputs(x, y):
    return x * y, x + y


def _loss_and_aux(x, y):
    return (x * y).sum(), x


# name: (function, grad's keyword arguments, the call's extra arguments, expected d/dx)
CASES: dict[str, tuple[Any, dict[str, Any], tuple[Any, ...], list[float]]] = {
    "tuple-output-summed": (_two_outputs, {}, (), [4.0, 5.0]),
    "sens": (_product, {"sens_param": True}, (S,), [30.0, 400.0]),
    "sens-per-output": (_two_outputs, {"sens_param": True}, ((S, S),), [40.0, 500.0]),
    "sens-with-aux": (_loss_and_aux, {"sens_param": True, "has_aux": True}, (ms.Tensor(2.0),), [6.0, 8.0]),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_match_mindspore(case):
    fn, options, extra, expected = CASES[case]
    got = ms.grad(fn, 0, **options)(X, Y, *extra)
    got = got[0] if options.get("has_aux") else got
    assert got.tolist() == expected


def test_value_and_grad_with_sens_returns_the_plain_value():
    value, gradient = ms.value_and_grad(_product, 0, sens_param=True)(X, Y, S)
    assert value.tolist() == [3.0, 8.0]
    assert np.array_equal(gradient.asnumpy(), [30.0, 400.0])


unchecked: Any = ms  # the arguments are wrong on purpose
BAD_CALLS: BadCalls = {
    "flag-type": (lambda: unchecked.grad(_product, 0, sens_param=1), TypeError, "`sens_param` must be a bool"),
    "no-arguments": (lambda: ms.grad(lambda: X, None, [], sens_param=True)(), ValueError, "got no arguments"),
    "sequence-for-one-output": (
        lambda: ms.grad(_loss_and_aux, 0, has_aux=True, sens_param=True)(X, Y, (S, S)), ValueError, "not a sequence",
    ),
    "count-for-tuple": (
        lambda: ms.grad(_two_outputs, 0, sens_param=True)(X, Y, (S,)), ValueError, "a tuple of 2 gradients",
    ),
}  # fmt: skip

test_bad_arguments_get_clear_errors = bad_calls_test(BAD_CALLS)
