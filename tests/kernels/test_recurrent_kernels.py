"""The CPU recurrent and embedding kernels against their `reference` twins (Hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, strategies as st

from cadence.kernels import cpu_kernels, reference
from tests.helpers.tolerance import Tolerance

cpu = cpu_kernels()
TOL: dict[type, Tolerance] = {
    np.float32: {"rtol": 2e-4, "atol": 2e-5},
    np.float64: {"rtol": 1e-10, "atol": 1e-12},
}
GATES = (1, 1, 4, 3)


def layer_case(mode, steps, rows, units, dtype, seed, bias):
    """Arguments of one layer direction: (xw, h0, c0, w_hh, b_hh, lengths) and a backward seed."""
    rng = np.random.default_rng(seed)
    width = GATES[mode] * units

    def r(*shape, scale=1.0):
        return (rng.normal(size=shape) * scale).astype(dtype)

    lengths = rng.integers(0, steps + 1, rows)
    forward = (r(steps, rows, width), r(rows, units), r(rows, units), r(width, units, scale=0.5),
               r(width) if bias else None, lengths)  # fmt: skip
    seeds = (r(steps, rows, units), r(rows, units), r(rows, units))
    return forward, seeds


def assert_all_close(got, want, dtype):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, **TOL[dtype])


# One layer direction: mode, steps, rows, units, reverse, bias, dtype, seed.
LAYERS = st.tuples(
    st.integers(0, 3), st.integers(1, 6), st.integers(1, 4), st.integers(1, 5),
    st.booleans(), st.booleans(), st.sampled_from([np.float32, np.float64]), st.integers(0, 2**16),
)  # fmt: skip


@given(LAYERS)
def test_recurrent_forward_and_backward_match_reference(layer):
    mode, steps, rows, units, reverse, bias, dtype, seed = layer
    (xw, h0, c0, w_hh, b_hh, lengths), (dy, dh_n, dc_n) = layer_case(
        mode, steps, rows, units, dtype, seed, bias
    )
    got = cpu.recurrent_forward(mode, xw, h0, c0, w_hh, b_hh, lengths, reverse)
    want = reference.recurrent_forward(mode, xw, h0, c0, w_hh, b_hh, lengths, reverse)
    assert_all_close(got, want, dtype)
    saved = want[1:]
    assert_all_close(
        cpu.recurrent_backward(mode, dy, dh_n, dc_n, w_hh, *saved, lengths, reverse),
        reference.recurrent_backward(
            mode, dy, dh_n, dc_n, w_hh, *saved, lengths, reverse
        ),
        dtype,
    )


@given(
    vocab=st.integers(1, 9),
    width=st.integers(1, 5),
    ids=st.lists(st.integers(0, 8), max_size=12),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_embedding_lookup_and_scatter_add_match_reference(vocab, width, ids, dtype):
    index = np.array([i % vocab for i in ids], np.int64)
    table = np.random.default_rng(vocab).normal(size=(vocab, width)).astype(dtype)
    dy = np.random.default_rng(width).normal(size=(len(index), width)).astype(dtype)
    np.testing.assert_array_equal(
        cpu.embedding_forward(table, index), reference.embedding_forward(table, index)
    )
    assert_all_close(
        (cpu.embedding_backward(dy, index, vocab),),
        (reference.embedding_backward(dy, index, vocab),),
        dtype,
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: cpu.recurrent_forward(
                5, *layer_case(0, 2, 2, 3, np.float32, 0, True)[0], False
            ),
            "mode",
        ),
        (
            lambda: cpu.recurrent_forward(
                2, *layer_case(0, 2, 2, 3, np.float32, 0, True)[0], False
            ),
            "`xw` must have shape",
        ),
        (
            lambda: cpu.recurrent_forward(
                0,
                *layer_case(0, 2, 2, 3, np.float32, 0, True)[0][:5],
                np.ones(3, np.int64),
                False,
            ),
            "`lengths`",
        ),
        (
            lambda: cpu.embedding_forward(np.ones((3, 2), np.float32), np.array([3])),
            r"\[0, 3\)",
        ),
        (
            lambda: cpu.embedding_forward(np.ones((3, 2), np.float32), np.array([[1]])),
            "1-D integer",
        ),
        (
            lambda: cpu.embedding_backward(
                np.ones((2, 2), np.float32), np.array([1]), 3
            ),
            "`dy` must have shape",
        ),
    ],
)
def test_kernel_arguments_are_checked_by_name(call, message):
    with pytest.raises((ValueError, IndexError), match=message):
        call()


@pytest.mark.parametrize(("rows", "threads"), [(16, 2), (23, 2), (40, 3), (9, 2)])
@pytest.mark.parametrize("mode", [0, 2, 3])
def test_row_blocks_on_several_threads_match_reference_and_restore_blas(
    mode, rows, threads
):
    # Enough rows for the CPU loops to split the batch over `threads` threads (8 rows a block at least).
    from threadpoolctl import threadpool_info, threadpool_limits  # type: ignore[import-untyped]

    (xw, h0, c0, w_hh, b_hh, lengths), (dy, dh_n, dc_n) = layer_case(
        mode, 5, rows, 3, np.float64, rows, True
    )
    with threadpool_limits(limits=threads, user_api="blas"):
        got = cpu.recurrent_forward(mode, xw, h0, c0, w_hh, b_hh, lengths, True)
        grads = cpu.recurrent_backward(
            mode, dy, dh_n, dc_n, w_hh, *got[1:], lengths, True
        )
        after = {
            lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"
        }
    want = reference.recurrent_forward(mode, xw, h0, c0, w_hh, b_hh, lengths, True)
    assert_all_close(got, want, np.float64)
    assert_all_close(
        grads,
        reference.recurrent_backward(
            mode, dy, dh_n, dc_n, w_hh, *want[1:], lengths, True
        ),
        np.float64,
    )
    assert after == {threads}
