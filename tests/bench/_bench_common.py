"""What the benchmark scripts share: the CPU's name, the best-of-blocks rate, bootstrap intervals, the test helpers.

The scripts run as `python tests/bench/<name>.py`, so this folder is on `sys.path`;
`repository_root_on_path()` adds the repository root, for `tests.s3server` and `tests.helpers`.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else what `platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def best_rate(step: Callable[[], Any], batch: int, steps: int, blocks: int) -> float:
    """Samples per second of the fastest of `blocks` timed blocks of `steps` steps.

    Three untimed calls first, for JIT compilation and warm-up. The fastest block, not the
    mean: on a shared machine a slow block measures the other processes, not the code.
    """
    for _ in range(3):
        step()
    rates = []
    for _ in range(blocks):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        rates.append(batch * steps / (time.perf_counter() - t0))
    return max(rates)


def token_batch(
    rng: np.random.Generator, size: int, vocab: int, length: int, classes: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """A batch for the text networks of `bench_zoo`: int32 token ids (size, length) and int32 labels."""
    tokens = rng.integers(0, vocab, (size, length)).astype(np.int32)
    return tokens, rng.integers(0, classes, size).astype(np.int32)


def repository_root_on_path() -> None:
    """Put the repository root on `sys.path`, so that `tests.s3server` and `tests.helpers` import."""
    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)


def parse_options(
    doc: str | None, options: dict[str, dict[str, Any]], argv: list[str] | None = None
) -> argparse.Namespace:
    """Parse `argv` (default: the command line) with one option per entry of `options`.

    Each entry is an option's name and its `add_argument` keywords; the parser's
    description is the first line of the script's docstring `doc`.
    """
    parser = argparse.ArgumentParser(description=(doc or "").strip().split("\n")[0])
    for name, keywords in options.items():
        parser.add_argument(name, **keywords)
    return parser.parse_args(argv)


def bootstrap_interval(
    values: list[float],
    statistic: Callable[..., Any] = np.median,
    confidence: float = 0.95,
    resamples: int = 10_000,
) -> tuple[float, float]:
    """A bootstrap interval for `statistic` (by default the median) of `values`, in %.

    The values are resampled with replacement (fixed seed: the same values give the
    same interval), and the interval is the central `confidence` share of the
    resampled statistics.
    """
    data = np.asarray(values, dtype=np.float64)
    picks = np.random.default_rng(0).integers(0, len(data), (resamples, len(data)))
    stats = statistic(data[picks], axis=1)
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(stats, [tail, 100.0 - tail])
    return float(low), float(high)
