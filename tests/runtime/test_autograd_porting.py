"""Gradients of the porting ops (norms, topk, broadcasting, repeats, cumsum, adaptive max pooling, ClipByNorm) against finite differences."""

from __future__ import annotations

import math

from hypothesis import given, strategies as st

import cadence as ms
from cadence import nn, ops

from .test_autograd import SETTINGS, check, values

VECTOR_ORDS = [None, 1, 2, 3.5, math.inf, -math.inf]
MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]


@SETTINGS
@given(
    ord=st.sampled_from(VECTOR_ORDS),
    dim=st.sampled_from([0, 1, -1]),
    keep=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_vector_norms(ord, dim, keep, seed):  # fmt: skip
    check(lambda a: ops.norm(a, ord, dim, keep), values((3, 4), seed=seed))


@SETTINGS
@given(ord=st.sampled_from(MATRIX_ORDS), keep=st.booleans(), seed=st.integers(0, 1000))
def test_matrix_norms(ord, keep, seed):
    # A batch of two (3, 4) matrices taken over axes (2, 1): the axes' order is the matrix's.
    check(lambda a: ops.norm(a, ord, (2, 1), keep), values((2, 4, 3), seed=seed))


@SETTINGS
@given(
    k=st.integers(1, 4),
    dim=st.sampled_from([0, 1]),
    largest=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_topk_values(k, dim, largest, seed):  # fmt: skip
    x = values((4, 4), seed=seed)
    check(lambda a: ops.topk(a, k, dim, largest)[0], x)


@SETTINGS
@given(seed=st.integers(0, 1000))
def test_broadcasting_and_repeats(seed):
    x = values((3, 1), seed=seed)
    check(lambda a: ops.broadcast_to(a, (2, -1, 4)) * 1.5, x)
    check(lambda a: a.repeat(1, 2) + ops.expand_as(a, ops.ones((3, 2))), x)
    counts = ms.Tensor([2, 0, 3])
    check(lambda a: ops.repeat_interleave(a, counts, 0), x)
    check(lambda a: ops.cumsum(a, 0) + a.cumsum(), x)


@SETTINGS
@given(
    h=st.integers(1, 6),
    w=st.integers(1, 6),
    oh=st.integers(1, 4),
    ow=st.integers(1, 4),
    seed=st.integers(0, 1000),
)
def test_adaptive_max_pool2d(h, w, oh, ow, seed):  # fmt: skip
    # Overlapping windows (oh > h / 2) may share a maximum: its gradient adds up.
    check(
        lambda a: ops.adaptive_max_pool2d(a, (oh, ow)), values((2, 1, h, w), seed=seed)
    )


@SETTINGS
@given(axis=st.sampled_from([None, 0, 1, (0, 1)]), seed=st.integers(0, 1000))
def test_clip_by_norm(axis, seed):
    clip = nn.ClipByNorm(axis)
    check(lambda a: clip(a, ms.Tensor(1.5)), values((3, 4), seed=seed))
