"""Hypothesis strategies for layer geometries, valid by construction.

The kernel tests (CPU against reference) and the autograd tests (tape against finite
differences) draw convolution and pooling cases from the same strategies, each within
its own size limits: finite differences are costly, so the autograd tests ask for less.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import assume, strategies as st
from hypothesis.extra import numpy as hnp


@dataclass(frozen=True)
class Conv2dCase:
    """A batch of `n` images `c` x `h` x `w`, `o` square `k` x `k` filters and their geometry."""

    n: int
    c: int
    o: int
    h: int
    w: int
    k: int
    stride: int
    pad: tuple[int, int, int, int]  # top, bottom, left, right
    dilation: int

    @property
    def input_shape(self) -> tuple[int, int, int, int]:
        return (self.n, self.c, self.h, self.w)

    @property
    def weight_shape(self) -> tuple[int, int, int, int]:
        return (self.o, self.c, self.k, self.k)

    @property
    def strides(self) -> tuple[int, int]:
        return (self.stride, self.stride)

    @property
    def dilations(self) -> tuple[int, int]:
        return (self.dilation, self.dilation)


@st.composite
def conv2d_cases(
    draw: st.DrawFn, *, channels: int, sizes: tuple[int, int], max_pad: int
) -> Conv2dCase:
    """Draw a convolution whose dilated kernel fits the padded input (at least one output row and column).

    `channels` bounds the input and output channels, `sizes` the image height and width,
    `max_pad` each of the four paddings; batch 1-2, kernel 1-3, stride 1-2, dilation 1-2.
    """
    size = st.integers(*sizes)
    small = st.integers(1, 2)
    case = Conv2dCase(
        n=draw(small),
        c=draw(st.integers(1, channels)),
        o=draw(st.integers(1, channels)),
        h=draw(size),
        w=draw(size),
        k=draw(st.integers(1, 3)),
        stride=draw(small),
        pad=draw(st.tuples(*[st.integers(0, max_pad)] * 4)),
        dilation=draw(small),
    )
    span = case.dilation * (case.k - 1) + 1
    assume(case.h + case.pad[0] + case.pad[1] >= span)
    assume(case.w + case.pad[2] + case.pad[3] >= span)
    return case


@dataclass(frozen=True)
class Pool2dCase:
    """A batch of `n` images `c` x `h` x `w` and a square `k` x `k` window moving by `stride`."""

    n: int
    c: int
    h: int
    w: int
    k: int
    stride: int

    @property
    def input_shape(self) -> tuple[int, int, int, int]:
        return (self.n, self.c, self.h, self.w)


@st.composite
def pool2d_cases(
    draw: st.DrawFn, *, channels: int, sizes: tuple[int, int], max_stride: int
) -> Pool2dCase:
    """Draw a pooling whose window (1-3, at most the image's sides) fits the image; batch 1-2."""
    size = st.integers(*sizes)
    n, c, h, w = (
        draw(st.integers(1, 2)),
        draw(st.integers(1, channels)),
        draw(size),
        draw(size),
    )
    k = draw(st.integers(1, min(3, h, w)))
    return Pool2dCase(n, c, h, w, k, draw(st.integers(1, max_stride)))


def small_float32_arrays(bound: float) -> st.SearchStrategy[np.ndarray]:
    """Float32 arrays of 1 to 3 axes of at most 4, elements in [-bound, bound]: the ops tests' inputs."""
    return hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
        elements=st.floats(-bound, bound, width=32),
    )
