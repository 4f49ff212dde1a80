"""Histogram statistics of a parameter, cheap enough for the training thread.

`SummaryCollector` summarizes parameters where they live, at the step it
collects, instead of copying them for its writer: a copy of a few megabytes
lands in freshly mapped memory, and faulting those pages in costs more than
reading the values once. Here the exact statistics take one vectorized numba
pass (min and max compared as integers, sums in float64), and the bucket
counts of a large tensor come from a sample of evenly spaced runs of values.
The training thread only measures (`histogram_stats`); the writer thread turns
the measurements into TensorBoard's bucket lists (`histogram_raw_args`).
"""

from __future__ import annotations

import functools
import math
import types
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "HISTOGRAM_BINS",
    "HISTOGRAM_SAMPLE",
    "HistogramStats",
    "histogram",
    "histogram_raw_args",
    "histogram_stats",
]

HISTOGRAM_BINS = 64
"""Equal-width buckets per histogram (tensorboardX's `add_histogram` converts to
float64 and sorts into ~1,500 exponential buckets, five times the work)."""

HISTOGRAM_SAMPLE = 1 << 15
"""Bucket counts of larger tensors come from a sample of this many values: binning
every value of a 400,000-value weight would cost 0.6 ms of the training step; the
sample leaves about 500 values per bucket (a relative error of about 5% on a
bucket of average height). It is taken as evenly spaced runs of `_RUN` consecutive
values, one 64-byte cache line of float32 each: a sample strided value by value
would touch every line of the tensor, and so cost as much memory traffic as
binning all of it."""

_RUN = 16

# Sums may be reassociated (vectorized); nothing assumes the values are finite.
_SUMS = {"reassoc", "contract"}


@functools.cache
def _kernels() -> Any:
    """Compile (or load from numba's cache) the kernels on first use: `import cadence` stays numba-free."""
    import numba

    def extremes_and_sums(
        flat: Any, keys: Any, low_bits: Any
    ) -> tuple[Any, Any, float, float]:  # pragma: no cover - compiled
        # One pass: the smallest and largest order key (see `_INTEGER_VIEWS`) and the
        # float64 sum and sum of squares. Integer min/max vectorize where float
        # min/max, with their NaN rules, do not.
        shift = keys.itemsize * 8 - 1
        lo = hi = _order_key(keys[0], shift, low_bits)
        total = 0.0
        squares = 0.0
        for i in range(flat.size):
            k = _order_key(keys[i], shift, low_bits)
            lo = min(lo, k)
            hi = max(hi, k)
            x = np.float64(flat[i])
            total += x
            squares += x * x
        return (
            _order_key(lo, shift, low_bits),
            _order_key(hi, shift, low_bits),
            total,
            squares,
        )

    def _order_key(k: Any, shift: int, low_bits: Any) -> Any:  # pragma: no cover
        # float bits -> order key, and back: the map is its own inverse
        return k ^ ((k >> shift) & low_bits)

    def bucket_counts(
        flat: Any, runs: int, low: float, scale: float, counts: Any
    ) -> int:  # pragma: no cover - compiled
        # Add to `counts` the bucket of every value (runs == 0) or of `runs` evenly
        # spaced runs of _RUN consecutive values; return how many were binned.
        last = counts.size - 1
        n: int = flat.size
        if runs == 0:
            for i in range(n):
                k = int((flat[i] - low) * scale)
                counts[min(max(k, 0), last)] += 1
            return n
        spacing = n // runs
        for r in range(runs):
            start = r * spacing
            for i in range(start, start + _RUN):
                k = int((flat[i] - low) * scale)
                counts[min(max(k, 0), last)] += 1
        return runs * _RUN

    jit = numba.njit(nogil=True, cache=True)
    _order_key = jit(_order_key)
    return types.SimpleNamespace(
        extremes_and_sums=numba.njit(nogil=True, cache=True, fastmath=_SUMS)(
            extremes_and_sums
        ),
        bucket_counts=jit(bucket_counts),
    )


# Floats ordered as signed integers: flipping the low bits of a negative float's
# bit pattern makes integer order equal float order (NaNs sort beyond the infinities).
_INTEGER_VIEWS = {
    np.dtype(np.float32): (np.int32, np.int32(0x7FFFFFFF)),
    np.dtype(np.float64): (np.int64, np.int64(0x7FFFFFFFFFFFFFFF)),
}


class HistogramStats(NamedTuple):
    """What the training thread measures of a tensor; `histogram_raw_args` makes the rest."""

    min: float
    max: float
    num: int
    sum: float
    sum_squares: float
    low: float
    high: float
    counts: Any  # int64 bucket counts of the (possibly sampled) values
    scale: float  # tensor size / values binned


def histogram_stats(
    values: Any, bins: int = HISTOGRAM_BINS, sample: int = HISTOGRAM_SAMPLE
) -> HistogramStats | None:
    """Measure `values` for a histogram (see `histogram`); None if no value is finite.

    This is the part that reads the tensor, so it runs where the tensor is
    current (the training thread): one pass for the extremes and the sums, one
    over a sample for the buckets. `values` is only read.
    """
    flat = np.asarray(values).reshape(-1)
    if flat.dtype not in _INTEGER_VIEWS:
        flat = flat.astype(np.float64)
    if not flat.size:
        return None
    kernels = _kernels()
    low, high, total, squares = _extremes_and_sums(kernels, flat)
    if not (math.isfinite(low) and math.isfinite(high)):  # NaN or inf somewhere
        flat = flat[np.isfinite(flat)]
        if not flat.size:
            return None
        low, high, total, squares = _extremes_and_sums(kernels, flat)
    # All values, or runs of _RUN consecutive ones (at most `sample` in all).
    runs = 0 if flat.size <= max(sample, _RUN) else max(sample // _RUN, 1)
    # A constant tensor gets one bucket around its value.
    lo, hi = (low, high) if high > low else (low - 0.5, high + 0.5)
    counts = np.zeros(bins, np.int64)
    picked = int(kernels.bucket_counts(flat, runs, lo, bins / (hi - lo), counts))
    return HistogramStats(
        low,
        high,
        int(flat.size),
        float(total),
        float(squares),
        lo,
        hi,
        counts,
        flat.size / picked,
    )


def _extremes_and_sums(kernels: Any, flat: Any) -> tuple[float, float, float, float]:
    """(min, max, sum, sum of squares) of a 1-d float32 or float64 array, in one pass."""
    view, low_bits = _INTEGER_VIEWS[flat.dtype]
    lo_bits, hi_bits, total, squares = kernels.extremes_and_sums(
        flat, flat.view(view), low_bits
    )
    low = float(np.array(lo_bits, view).view(flat.dtype))
    high = float(np.array(hi_bits, view).view(flat.dtype))
    return low, high, total, squares


def histogram_raw_args(stats: HistogramStats) -> dict[str, Any]:
    """Return the arguments of tensorboardX's `histogram_raw` for `stats` (the writer thread's part)."""
    bins = len(stats.counts)
    counts = stats.counts * stats.scale if stats.scale != 1 else stats.counts
    return {
        "min": stats.min,
        "max": stats.max,
        "num": stats.num,
        "sum": stats.sum,
        "sum_squares": stats.sum_squares,
        "bucket_limits": np.linspace(stats.low, stats.high, bins + 1).tolist(),
        "bucket_counts": [0, *counts.tolist()],
    }


def histogram(
    values: Any, bins: int = HISTOGRAM_BINS, sample: int = HISTOGRAM_SAMPLE
) -> dict[str, Any] | None:
    """Return the arguments of tensorboardX's `histogram_raw` for `values`; None if none is finite.

    `min`, `max`, `num`, `sum` and `sum_squares` are exact (sums accumulated in
    float64). The bucket counts of a tensor larger than `sample` values come
    from a sample of at most `sample` values (evenly spaced runs), scaled to the
    tensor's size. Non-finite values (a diverged parameter) are left out rather
    than failing the run. TensorBoard reads `bucket_limits` as right edges, so
    an empty bucket ending at the minimum comes first. `values` is only read:
    the result holds no reference to it.
    """
    stats = histogram_stats(values, bins, sample)
    return None if stats is None else histogram_raw_args(stats)
