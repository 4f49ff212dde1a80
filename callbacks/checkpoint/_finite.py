"""Is a run still finite? The checks that keep diverged weights out of checkpoints and backups."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["finite_loss", "finite_weights"]


def finite_loss(cb: Any) -> bool:
    """Whether the last step's loss (`net_outputs`) is finite; True when there is none to judge."""
    value: Any = cb.get("net_outputs")
    if isinstance(value, tuple | list):
        value = value[0] if value else None
    if value is None:
        return True
    data = value.asnumpy() if hasattr(value, "asnumpy") else value
    try:
        return bool(np.isfinite(np.asarray(data, dtype=np.float64)).all())
    except (TypeError, ValueError):
        return True


def finite_weights(network: Any) -> bool:
    """Whether every floating-point parameter of `network` is finite.

    One sum per parameter in its own dtype (a vectorized pass over its memory, no
    temporary array: about a quarter of what copying it costs); only a sum that is
    not finite, from a NaN or infinity or from an overflow, is checked element by
    element.
    """
    for _, param in network.parameters_and_names():
        data = param.asnumpy() if hasattr(param, "asnumpy") else np.asarray(param)
        if data.dtype.kind != "f":
            continue
        with np.errstate(over="ignore", invalid="ignore"):
            total = float(np.sum(data))
        if math.isfinite(total):
            continue
        if not np.isfinite(data).all():
            return False
    return True
