"""Tensor methods that ported MindSpore 2.x code calls (`x.masked_fill(...)`, `x.unsqueeze(0)`, ...)."""

import numpy as np
import pytest

import cadence as ms

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
MASK = np.array([[True, False, True], [False, False, True]])


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


CASES = [
    ("masked_fill", lambda t: t.masked_fill(ms.Tensor(MASK), -1.0), np.where(MASK, -1.0, X)),
    ("unsqueeze", lambda t: t.unsqueeze(1), X[:, None, :]),
    ("permute varargs", lambda t: t.permute(1, 0), X.T),
    ("permute tuple", lambda t: t.permute((1, 0)), X.T),
    ("softmax", lambda t: t.softmax(0), _softmax(X, 0)),
    ("log_softmax", lambda t: t.log_softmax(), np.log(_softmax(X, -1))),
    ("tile", lambda t: t.tile((2, 1)), np.tile(X, (2, 1))),
    ("gather", lambda t: t.gather(ms.Tensor(np.array([2, 0], np.int32)), 1), X[:, [2, 0]]),
    ("int", lambda t: t.int(), X.astype(np.int32)),
    ("bool", lambda t: t.bool(), X.astype(bool)),
    ("numpy", lambda t: t.numpy(), X),
    ("init_data", lambda t: t.init_data(), X),
    ("initializer(...).init_data()", lambda t: ms.common.initializer.initializer(ms.Tensor(X), X.shape).init_data(), X),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_method_gives_numpys_result(call, expected):
    out = call(ms.Tensor(X))
    got = out if isinstance(out, np.ndarray) else out.asnumpy()
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_counting_methods():
    t = ms.Tensor(X)
    assert (t.dim(), t.nelement()) == (2, 6)


def test_masked_fill_is_differentiable_where_not_filled():
    x = ms.Parameter(ms.Tensor(X), name="x")
    grad = ms.ops.grad(lambda a: a.masked_fill(ms.Tensor(MASK), 0.0).sum())(x)
    np.testing.assert_array_equal(grad.asnumpy(), (~MASK).astype(np.float32))
