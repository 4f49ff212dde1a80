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
from ._parallel import in_spans

__all__ = [
    "MIN_SPLIT_ELEMENTS",
    "adadelta_update",
    "adagrad_update",
    "adam_amsgrad_update",
    "adam_weight_decay_update",
    "asgd_update",
    "flat_state",
    "ftrl_update",
    "lamb_update",
    "proximal_adagrad_update",
    "rmsprop_update",
    "rprop_update",
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


MIN_SPLIT_ELEMENTS = 1 << 18
"""The fewest elements of a parameter a thread updates (below, the hand-off costs more than it saves)."""


def _span_of(args: tuple[Any, ...], size: int, start: int, stop: int) -> list[Any]:
    """Cut each flat array of `size` elements in `args` to [start, stop) (the scalars stay as they are)."""
    return [
        a[start:stop]
        if isinstance(a, np.ndarray) and a.ndim == 1 and a.size == size
        else a
        for a in args
    ]


def _run_span(
    loop: Any, args: tuple[Any, ...], size: int, start: int, stop: int
) -> None:
    loop(*_span_of(args, size, start, stop))


def run_loop(loop: Any, param: Array, *args: Any) -> None:
    """Run a compiled element loop over the flat arrays (the host needs no launch geometry).

    A large parameter's elements split over the kernel threads (`_parallel.in_spans`):
    each element's update reads and writes that element only, so the spans are
    independent. Serial, ResNet-18's update (11 M parameters, 62 calls) left the
    other core idle for about 6 ms a step (batch 32, `tests/bench/bench_scaling.py`).
    """
    in_spans(_run_span, param.size, MIN_SPLIT_ELEMENTS, loop, args, param.size)


# Hyperparameters stay Python floats: `scalar` is `float` whatever the parameter's dtype.
_TARGET = OptimizerTarget(
    _loop, run_loop, flat_state, _grad, lambda p: float, np.empty_like, _sum_of_squares
)
(adam_weight_decay_update, adam_amsgrad_update, rmsprop_update, adagrad_update, lamb_update,
 adadelta_update, proximal_adagrad_update, rprop_update, asgd_update, ftrl_update) = optimizer_updates(_TARGET)  # fmt: skip
