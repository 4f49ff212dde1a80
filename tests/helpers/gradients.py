"""Central finite differences: what the tape's gradients are checked against."""

from collections.abc import Callable
from typing import Any

import numpy as np

import cadence as ms


def numeric_gradient(
    loss: Callable[[ms.Tensor], Any], x: np.ndarray, eps: float = 1e-6
) -> np.ndarray:
    """The gradient of the scalar `loss` at the float64 array `x`, one element at a time (keep `x` small)."""
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        numeric[i] = (
            float(loss(ms.Tensor(hi)).asnumpy()) - float(loss(ms.Tensor(lo)).asnumpy())
        ) / (2 * eps)
    return numeric
