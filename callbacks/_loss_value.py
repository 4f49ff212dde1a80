"""The loss of a step, read from `cb_params.net_outputs` (one helper for every built-in callback)."""

from __future__ import annotations

from typing import Any

import numpy as np

from cadence import Tensor

__all__ = ["loss_value", "mean_value"]


def loss_value(outputs: Any) -> float | None:
    """Return the mean of a step's output (of its first element for a tuple or list), or None if not numeric."""
    if isinstance(outputs, tuple | list):
        if not outputs:
            return None
        outputs = outputs[0]
    return mean_value(outputs)


def mean_value(value: Any) -> float | None:
    """Return the mean of `value` (a Tensor, array, or number) as a float, or None if it is not numeric."""
    # Runs every step: the common cases (a 0-d Tensor, a Python float) take the short paths.
    if isinstance(value, float):
        return value
    data = value.asnumpy() if isinstance(value, Tensor) else value
    if isinstance(data, np.ndarray | np.generic):
        if data.dtype.kind not in "biuf" or data.size == 0:
            return None
        return float(data) if data.ndim == 0 else float(data.mean())
    if isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if isinstance(data, str | bytes) or data is None:
        return None
    try:
        return float(np.mean(np.asarray(data, dtype=np.float64)))
    except (TypeError, ValueError):
        return None
