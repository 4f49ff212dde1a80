"""Where dataset randomness comes from.

Every pass over a pipeline (one epoch of an iterator) draws one 63-bit pass seed;
each random node of the pipeline derives its own generator from that seed and
its position in the tree (`Pass.rng`). The pass seeds come from whichever was
called last of `cadence.dataset.config.set_seed` and `cadence.set_seed` (the
compute context's `"shuffle"` stream), or from OS entropy if neither was.
So a run is reproducible after either `set_seed`, and every epoch sees a new
order.
"""

from __future__ import annotations

import threading
from typing import Final

import numpy as np
import numpy.typing as npt

from ..compute import _context

__all__ = [
    "PEEK_PASS",
    "Pass",
    "augmentation_rng",
    "draw_permutation",
    "get_dataset_seed",
    "new_pass",
    "set_dataset_seed",
]

_lock: Final = threading.Lock()
_seed: int | None = None
_own: np.random.Generator | None = None
# The context's shuffle stream when `config.set_seed` was called. `cadence.set_seed`
# replaces that stream, which is how we notice that it was called later and wins.
_shadowed: np.random.Generator | None = None


def set_dataset_seed(seed: int) -> None:
    """Seed the dataset pass seeds (`cadence.dataset.config.set_seed`)."""
    global _seed, _own, _shadowed
    with _lock:
        _seed = seed
        _own = np.random.default_rng(seed)
        _shadowed = _context.rng("shuffle")


def _own_active() -> bool:
    return _own is not None and _context.rng("shuffle") is _shadowed


def get_dataset_seed() -> int | None:
    """Return the seed of the later of `config.set_seed` and `cadence.set_seed`, else None."""
    return _seed if _own_active() else _context.get_seed()


def _source() -> np.random.Generator:
    if _own is not None and _own_active():
        return _own
    return _context.rng("shuffle")


class Pass:
    """The randomness of one pass over a pipeline: a path of ints from the pass seed.

    Args:
        path: The pass seed followed by the position of the node in the tree.
    """

    __slots__ = ("path",)

    def __init__(self, path: tuple[int, ...]) -> None:
        self.path = path

    def child(self, index: int = 0) -> Pass:
        """Return the pass of child `index` (or of the `index`-th repetition)."""
        return Pass((*self.path, index))

    def rng(self) -> np.random.Generator:
        """Return this node's generator for this pass."""
        return np.random.default_rng(self.path)


PEEK_PASS = Pass((0,))
"""The pass used to count rows and peek at shapes: never draws from the seed source."""


def new_pass() -> Pass:
    """Start a pass: draw its seed from the dataset random source."""
    with _lock:
        seed = int(_source().integers(0, 2**63 - 1))
    return Pass((seed,))


def draw_permutation(n: int) -> npt.NDArray[np.intp]:
    """A permutation of range(n) drawn once from the dataset random source (`Dataset.split`)."""
    with _lock:
        order: npt.NDArray[np.intp] = _source().permutation(n)
    return order


def augmentation_rng() -> np.random.Generator:
    """Return a generator for one call of a random operation (`RandomCrop`, ...).

    It is drawn from the same source as the pass seeds, so `set_seed` makes the
    augmentations of a run reproducible too.
    """
    return new_pass().rng()
