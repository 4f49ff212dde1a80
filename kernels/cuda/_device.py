"""What every CUDA kernel module shares: the `numba.cuda` handle, launch geometry, transfer counters.

Imports numba and numpy only, so `_array` and the kernel modules can all build on it.
"""

from __future__ import annotations

import importlib
import threading
from collections import Counter
from typing import Any

import numba

# numba.cuda has no type information; device-side names (cuda.grid, ...) are dynamic.
cuda: Any = importlib.import_module("numba.cuda")
config: Any = numba.config

__all__ = [
    "MAXDIM",
    "SIMULATOR",
    "contiguous_strides",
    "count",
    "cuda",
    "launch",
    "reset_statistics",
    "statistics",
]

MAXDIM = 6
SIMULATOR = bool(config.ENABLE_CUDASIM)
# The simulator runs every thread as a Python thread: keep launches small there.
# Every kernel uses a grid-stride loop, so any launch size gives the same result.
THREADS = 8 if SIMULATOR else 256
MAX_BLOCKS = 2 if SIMULATOR else 4096


def launch(n: int) -> tuple[int, int]:
    """Return (blocks, threads per block) for a grid-stride kernel over `n` items."""
    return max(1, min(MAX_BLOCKS, -(-n // THREADS))), THREADS


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Return the element strides of a C-contiguous array of `shape`."""
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


# --- transfer and fallback accounting --------------------------------------------------
_stats_lock = threading.Lock()
_stats: Counter[str] = Counter()


def count(key: str, n: int = 1) -> None:
    """Add `n` to the counter `key`."""
    with _stats_lock:
        _stats[key] += n


def statistics() -> dict[str, int]:
    """Return counters: `to_device`, `to_host` (copies) and `fallback:<numpy name>` (host fallbacks)."""
    with _stats_lock:
        return dict(_stats)


def reset_statistics() -> None:
    """Zero every counter."""
    with _stats_lock:
        _stats.clear()
