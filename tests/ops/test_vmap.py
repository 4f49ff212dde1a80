"""`vmap`: a loop over the mapped axis, with MindSpore's in_axes/out_axes rules, under `grad` too."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Tensor, nn, ops
from tests.helpers.bad_calls import BadCalls, bad_calls_test

A = np.arange(6, dtype=np.float32).reshape(2, 3)
W = np.array([1.0, 10.0, 100.0], np.float32)


def _mul(a, b):
    return a * b


def _row_and_sum(a):
    return a, a.sum()


# name: (fn, in_axes, out_axes, args, expected outputs computed with numpy)
CASES: dict[str, tuple[Any, ...]] = {
    "axis0-broadcast": (_mul, (0, None), 0, (A, W), A * W),
    "axis1": (_mul, (1, None), 0, (A, W[:2]), (A * W[:2, None]).T),
    "negative-axis": (lambda a: a * 2, -1, 0, (A,), (A * 2).T),
    "out-axis-1": (lambda a: a + 1, 0, 1, (A,), (A + 1).T),
    "out-axes-tuple": (_row_and_sum, 0, (1, 0), (A,), (A.T, A.sum(axis=1))),
    "out-axes-list-gives-tuple": (lambda a: [a, a], 0, [0, 1], (A,), (A, A.T)),
    "nested-in-axes": (lambda t: t[0] * t[1], ((0, 1),), 0, ((A, A.T),), A * A),
    "none-out-axis": (
        lambda a, w: (a * w, w),
        (0, None),
        (0, None),
        (A, W),
        (A * W, W),
    ),
    "constant-output": (lambda a: 2.0, 0, 0, (A,), np.full(2, 2.0, np.float32)),
    "int-in-axes-for-all": (_mul, 0, 0, (A, A), A * A),
}


def _as_arg(value):
    if isinstance(value, tuple):
        return tuple(_as_arg(v) for v in value)
    return Tensor(value)


def _check_same(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _check_same(g, e)
        return
    assert got.shape == expected.shape
    assert np.array_equal(got.asnumpy(), expected)


@pytest.mark.parametrize("case", sorted(CASES))
def test_vmap_matches_numpy(case):
    fn, in_axes, out_axes, args, expected = CASES[case]
    _check_same(ms.vmap(fn, in_axes, out_axes)(*(_as_arg(a) for a in args)), expected)


def test_vmap_maps_a_cell_and_is_in_ops():
    ms.set_seed(1)
    dense = nn.Dense(3, 2)
    x = Tensor(A)
    assert np.allclose(ops.vmap(dense)(x).asnumpy(), dense(x).asnumpy(), atol=1e-6)


def test_vmap_of_a_cell_list_calls_cell_i_for_element_i():
    ms.set_seed(2)
    models = nn.CellList([nn.Dense(3, 1), nn.Dense(3, 1)])
    x = Tensor(A)
    shared = ms.vmap(models, in_axes=None)(x)  # every model on the whole input
    assert np.array_equal(shared.asnumpy(), np.stack([m(x).asnumpy() for m in models]))
    split = ms.vmap(models, in_axes=0)(x)  # model i on row i
    assert np.array_equal(
        split.asnumpy(), np.stack([models[i](x[i]).asnumpy() for i in range(2)])
    )


def test_grad_through_vmap_matches_grad_of_the_unmapped_function():
    x = Tensor(A)
    w = Tensor(W)

    def mapped(a, v):
        return ms.vmap(lambda row, u: (row * row * u).sum(), in_axes=(0, None))(
            a, v
        ).sum()

    def direct(a, v):
        return (a * a * v).sum()

    got = ms.grad(mapped, (0, 1))(x, w)
    expected = ms.grad(direct, (0, 1))(x, w)
    for g, e in zip(got, expected, strict=True):
        assert np.allclose(g.asnumpy(), e.asnumpy())


X = Tensor(A)
# `unchecked` (Any): the arguments are wrong on purpose.
unchecked: Any = ms
BAD_CALLS: BadCalls = {
    "fn": (lambda: unchecked.vmap(5), TypeError, "'fn' must be callable"),
    "in_axes-type": (lambda: ms.vmap(_mul, in_axes="a"), TypeError, "'in_axes' must be an int, None"),
    "out_axes-type": (lambda: ms.vmap(_mul, out_axes=1.5), TypeError, "'out_axes' must be an int, None"),
    "in_axes-count": (lambda: ms.vmap(lambda a: a, in_axes=(0, 0))(X), ValueError, "has 2 elements (0, 0) but"),
    "in_axes-bounds": (lambda: ms.vmap(lambda a: a, in_axes=2)(X), ValueError, "must be in [-2, 2) here, but got 2"),
    "out_axes-bounds": (lambda: ms.vmap(lambda a: a, out_axes=2)(X), ValueError, "'out_axes' must be in [-2, 2)"),
    "sizes": (lambda: ms.vmap(_mul)(X, Tensor(np.ones((3, 3)))), ValueError, "same size, but got sizes [2, 3]"),
    "all-none": (lambda: ms.vmap(_mul, in_axes=(None, None))(X, X), ValueError, "map at least one Tensor"),
    "not-tensor": (lambda: ms.vmap(_mul)(X, 3), ValueError, "which is not a Tensor"),
    "empty": (lambda: ms.vmap(lambda a: a)(Tensor(np.ones((0, 2)))), ValueError, "has size 0"),
    "none-differs": (lambda: ms.vmap(lambda a: a.sum(), out_axes=None)(X), ValueError, "differs between calls"),
    "nested-mismatch": (lambda: ms.vmap(lambda t: t, in_axes=((0, 0),))((X,)), ValueError, "must match"),
    "out_axes-count": (lambda: ms.vmap(_row_and_sum, out_axes=(0,))(X), ValueError, "where the output has 2"),
    "out_axes-single": (lambda: ms.vmap(lambda a: a, out_axes=(0,))(X), ValueError, "not a tuple"),
}  # fmt: skip

test_bad_arguments_get_clear_errors = bad_calls_test(BAD_CALLS)
