"""CPU loops for the `_optim_updates` optimizers: each `_optim_elements` body inlined in a plain loop.

Hyperparameters stay Python floats: the loops compute in float64 and round
once on store, as the CPU table's other updates do.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from numba.extending import register_jitable

from . import _numba_cache, _optim_elements
from ._checks import check_float_array
from ._optim_updates import OptimizerTarget, optimizer_updates

__all__ = [
    "adagrad_update",
    "adam_amsgrad_update",
    "adam_weight_decay_update",
    "flat_state",
    "lamb_update",
    "rmsprop_update",
    "run_loop",
]

Array = npt.NDArray[Any]


# Cached on disk, keyed on this file and the bodies' (see `_numba_cache`).
_CACHE = _numba_cache.install(__file__, _optim_elements.__file__)


def _loop(body: Any) -> Any:
    # register_jitable, not numba.jit: numba keys a cached closure on what it closes
    # over, and a plain function pickles by name while a dispatcher carries a random
    # id, so a closure over a dispatcher would miss the cache in every new process.
    element = register_jitable(error_model="numpy", inline="always")(body)

    @numba.jit(nogil=True, cache=_CACHE, error_model="numpy")
    def loop(p: Array, g: Array, a: Array, b: Array, c: Array, h: Any) -> None:
        for i in range(p.size):
            element(p, g, a, b, c, h, i)

    return loop


# `flat_state` and `run_loop` serve the CPU table's SGD, Momentum and Adam updates too.
def flat_state(name: str, a: Array) -> Array:
    """Check a float array updated in place; return it flat (a view)."""
    check_float_array(name, a)
    return a.reshape(-1)


def _grad(param: Array, g: Array) -> Array:
    check_float_array("grad", g)
    if g.size != param.size:
        raise ValueError(
            f"Kernel argument `grad` must have shape {param.shape}, but got {g.shape}."
        )
    return g.reshape(-1)


def _sum_of_squares(flat: Array) -> float:
    return float(np.dot(flat, flat.astype(np.float64)))


def run_loop(loop: Any, param: Array, *args: Any) -> None:
    """Run a compiled loop over the flat arrays (the host needs no launch geometry)."""
    loop(*args)


# Hyperparameters stay Python floats: `scalar` is `float` whatever the parameter's dtype.
_TARGET = OptimizerTarget(
    _loop, run_loop, flat_state, _grad, lambda p: float, np.empty_like, _sum_of_squares
)
adam_weight_decay_update, adam_amsgrad_update, rmsprop_update, adagrad_update, lamb_update = optimizer_updates(_TARGET)  # fmt: skip
