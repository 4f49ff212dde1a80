"""NaN-carrying inputs and the max/min/clip calls that must propagate NaN as numpy does.

The CPU tests run these through cadence's ops, the CUDA suite through device arrays;
both compare with numpy on the same drawn values, NaN for NaN.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["NAN_CALLS", "nan_pairs"]

# A few elements, one in three NaN: small enough for the CUDA simulator.
_element = st.one_of(
    st.just(float("nan")),
    st.floats(-4, 4, width=32),
    st.floats(-4, 4, width=32),
)


def nan_pairs() -> st.SearchStrategy[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]]:
    """Draw two float32 arrays of shape (2, 3), each element NaN with probability about 1/3."""
    array = hnp.arrays(np.float32, (2, 3), elements=_element)
    return st.tuples(array, array)


# name -> f(a, b) in numpy's spelling, run on host arrays and on device arrays alike.
NAN_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "maximum": lambda a, b: np.maximum(a, b),
    "minimum": lambda a, b: np.minimum(a, b),
    "clip": lambda a, b: np.clip(a, -1.0, 1.0),
    "max axis 1": lambda a, b: a.max(axis=1),
    "min axis 0": lambda a, b: a.min(axis=0),
    "max all": lambda a, b: a.max(),
    "min all": lambda a, b: a.min(),
}
