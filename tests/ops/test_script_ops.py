"""gather_elements, max/min, chunk, tensor_dot and isclose against numpy on generated inputs.

MindSpore's results for fixed inputs, gradients included, are in `mindspore_ops.json`
("gather_elements GatherD ...", "max min with indices", ...); finite-difference
gradients are in `test_model_zoo_ops.py`; argument errors in `test_porting_ops.py`.
"""

import numpy as np
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

from cadence import Tensor, ops
from tests.helpers.strategies import small_float32_arrays

arrays = small_float32_arrays(4)


@given(x=arrays, data=st.data())
def test_gather_elements_is_take_along_axis(x, data):
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    size = x.shape[dim]
    shape = tuple(
        data.draw(st.integers(1, 5))
        if d == dim % x.ndim
        else data.draw(st.integers(1, n))
        for d, n in enumerate(x.shape)
    )
    index = data.draw(
        hnp.arrays(np.int64, shape, elements=st.integers(-size, size - 1))
    )
    got = ops.gather_elements(Tensor(x), dim, Tensor(index)).asnumpy()
    np.testing.assert_array_equal(
        got, np.take_along_axis(_cropped(x, shape, dim), index % size, dim)
    )


def _cropped(x, shape, dim):
    """`x` cut to the index's shape off `dim` (gather_elements reads only those rows)."""
    return x[
        tuple(
            slice(None) if d == dim % x.ndim else slice(0, n)
            for d, n in enumerate(shape)
        )
    ]


@given(x=arrays, data=st.data(), keepdims=st.booleans())
def test_max_and_min_are_the_first_extreme_and_its_index(x, data, keepdims):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    for fn, pick, extreme in (
        (ops.max, np.argmax, np.max),
        (ops.min, np.argmin, np.min),
    ):
        value, index = fn(Tensor(x), axis, keepdims)
        np.testing.assert_array_equal(
            value.asnumpy(), extreme(x, axis, keepdims=keepdims)
        )
        want = pick(x, axis)
        np.testing.assert_array_equal(
            index.asnumpy(), np.expand_dims(want, axis) if keepdims else want
        )
        assert index.asnumpy().dtype == np.int64


@given(x=arrays, data=st.data())
def test_chunk_pieces_join_back_and_are_at_most_chunks(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    chunks = data.draw(st.integers(1, 6))
    pieces = ops.chunk(Tensor(x), chunks, axis)
    assert 1 <= len(pieces) <= chunks
    sizes = [p.shape[axis] for p in pieces]
    assert len(set(sizes[:-1])) <= 1 and sizes[-1] <= sizes[0]
    np.testing.assert_array_equal(
        np.concatenate([p.asnumpy() for p in pieces], axis), x
    )


@given(x=arrays, data=st.data())
def test_tensor_dot_is_numpys_tensordot(x, data):
    k = data.draw(st.integers(0, x.ndim))
    extra = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    y = data.draw(
        hnp.arrays(
            np.float32,
            x.shape[x.ndim - k :] + extra,
            elements=st.floats(-4, 4, width=32),
        )
    )
    got = ops.tensor_dot(Tensor(x), Tensor(y), k).asnumpy()
    np.testing.assert_allclose(got, np.tensordot(x, y, k), rtol=1e-5, atol=1e-5)
    perm = data.draw(st.permutations(range(x.ndim)))
    pairs = (tuple(perm[:1]), (0,)) if x.ndim else ((), ())
    z = np.moveaxis(x, perm[0], 0) if x.ndim else x
    got = ops.tensor_dot(Tensor(x), Tensor(z), pairs).asnumpy()
    np.testing.assert_allclose(got, np.tensordot(x, z, pairs), rtol=1e-5, atol=1e-5)


@given(
    x=arrays,
    noise=st.floats(-1e-3, 1e-3),
    rtol=st.sampled_from([0.0, 1e-5, 1e-2]),
    equal_nan=st.booleans(),
)
def test_isclose_is_numpys(x, noise, rtol, equal_nan):
    y = (x + np.float32(noise)).astype(np.float32)
    y.flat[0] = np.nan
    got = ops.isclose(Tensor(x), Tensor(y), rtol, 1e-4, equal_nan).asnumpy()
    np.testing.assert_array_equal(got, np.isclose(x, y, rtol, 1e-4, equal_nan))
