"""The communication API and the collective primitives on 2 ranks (one job, many checks)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.mpi, pytest.mark.slow]


def test_rank_api(run_mpi, script_dir):
    job = run_mpi([str(script_dir / "rank_api.py")], timeout=120)
    assert job.returncode == 0, job.stderr
    assert job.stdout.strip() == "api ok"
