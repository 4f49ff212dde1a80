"""The shared window's loops, in one process: row sums and the SGD step taken from them.

The multi-rank tests (tests/distributed/rank_api.py) run them on 2 ranks; these
cover every row count the loops special-case (1, 2, and the general loop).
"""

from __future__ import annotations

import numpy as np
import pytest

from cadence.communication._node_window import sum_columns
from cadence.nn._window_plan import _step_from_rows


def rows_and_mean(count: int, lo: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    rows = np.random.default_rng(count).standard_normal((count, 40)).astype(np.float32)
    total = rows[0, lo : lo + n].copy()
    for r in range(1, count):  # row by row, in order, as the ranks add
        total += rows[r, lo : lo + n]
    return rows, total / np.float32(3)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_sum_columns_adds_the_rows_in_order(count):
    rows, mean = rows_and_mean(count, 5, 20)
    out = np.full(40, -1.0, np.float32)
    sum_columns(rows, 5, 25, out, np.float32(3))
    assert np.array_equal(out[5:25], mean)
    assert (out[:5] == -1).all() and (out[25:] == -1).all()  # only its columns


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("wd", [0.0, 0.01])
def test_sgd_step_from_rows_is_the_separate_update(count, wd):
    rows, mean = rows_and_mean(count, 5, 20)
    param = np.linspace(-1, 1, 20, dtype=np.float32)
    p64, g64 = param.astype(np.float64), mean.astype(np.float64)
    expected = (p64 - 0.1 * (g64 + wd * p64 if wd else g64)).astype(np.float32)
    _step_from_rows(rows, 5, param, np.float32(3), 0.1, wd)
    assert np.array_equal(param, expected)
