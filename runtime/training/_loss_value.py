"""`loss_value`: the loss of a step as one float, read from what the network returned."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..compute._tensor import Tensor

__all__ = ["loss_value"]


def loss_value(outputs: Any) -> float | None:
    """Return the mean of a step's output as a float, or None when it is not numeric.

    This is the loss the step events carry (`TrainStepEnd.loss`, `EvalStepEnd.loss`)
    and the one the built-in callbacks print, plot and monitor. `outputs` is what the
    network returned (`cb_params.net_outputs`): of a tuple or list, the first element
    counts. A Tensor, numpy array or number gives its mean; an empty array, a string,
    None or anything without a numeric value gives None.

    Example:
        >>> import numpy as np
        >>> from cadence import Tensor, loss_value
        >>> loss_value(Tensor(np.array([1.0, 2.0], np.float32)))
        1.5
        >>> loss_value((Tensor(np.float32(0.25)), "logits")), loss_value("no loss")
        (0.25, None)
    """
    # Runs every step, after kernels that evicted the caches: the usual 0-d float
    # Tensor takes the fewest lookups.
    if outputs.__class__ is Tensor:
        data = outputs._data
        if data.__class__ is np.ndarray and data.ndim == 0 and data.dtype.kind == "f":
            return float(data)
    elif outputs.__class__ is float:
        return outputs
    if isinstance(outputs, tuple | list):
        if not outputs:
            return None
        outputs = outputs[0]
    return _mean(outputs)


def _mean(value: Any) -> float | None:
    if isinstance(value, float):
        return float(value)  # numpy.float64 is a float too: return the Python float
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
