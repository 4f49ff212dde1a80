"""Every `tests/bench/_zoo_*.py` network module keeps the contract `bench_zoo.py` relies on.

The benchmark itself is run by hand (it times things); this checks, fast, that
each discovered module names itself, builds a cadence network whose logits
have `CLASSES` columns for its `batch`, and that one benchmark step runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import bench_zoo  # noqa: E402 (the benchmark folder is put on the path first)

MODULES = bench_zoo.discover()


def test_the_mlp_module_is_discovered():
    assert "MLP" in [m.NAME for m in MODULES]


@pytest.mark.parametrize("zoo", MODULES, ids=[m.NAME for m in MODULES])
def test_module_contract(zoo):
    assert isinstance(zoo.NAME, str) and zoo.NAME
    assert isinstance(zoo.CLASSES, int) and zoo.CLASSES > 1
    for name in ("cadence_network", "torch_network", "batch"):
        assert callable(getattr(zoo, name)), name
    x, y = zoo.batch(2, np.random.default_rng(0))
    assert (
        y.dtype == np.int32 and y.shape == (2,) and ((y >= 0) & (y < zoo.CLASSES)).all()
    )
    import cadence as ms

    logits = zoo.cadence_network()(ms.Tensor(x))
    assert logits.shape == (2, zoo.CLASSES)
    step = bench_zoo.cadence_step(zoo, 2)
    assert np.isfinite(float(step().asnumpy()))


def test_only_selects_by_name():
    assert [m.NAME for m in bench_zoo.discover("mlp")] == ["MLP"]
    assert bench_zoo.discover("no such network") == []
