"""Rank-aware training on 2 ranks.

A stop on any rank stops both at the same step; fit's metrics are global;
BackupAndRestore resumes both ranks after rank 0's epoch.
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.mpi, pytest.mark.slow]


def test_collective_stop_reduced_metrics_and_common_restore(
    run_mpi, script_dir, tmp_path
):
    job = run_mpi([str(script_dir / "rank_callbacks.py"), str(tmp_path)], timeout=180)
    assert job.returncode == 0, job.stderr
    assert job.stdout.strip() == "callbacks ok"
