"""The communication API and the collective primitives on 2 ranks (one job, many checks)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.mpi, pytest.mark.slow]


def test_rank_api(run_mpi, script_dir):
    job = run_mpi([str(script_dir / "rank_api.py")], timeout=120)
    assert job.returncode == 0, job.stderr
    assert job.stdout.strip() == "api ok"


# Rank 1 ends at once; rank 0 works on. MPI must be finalized at exit: hydra takes a rank
# that exits without MPI_Finalize for a failed one and kills the others (reporting success).
FINISH_FIRST = """
import time
from cadence.communication import get_rank, init
init()
if get_rank() == 0:
    time.sleep(2)
print(f"rank {get_rank()} finished", flush=True)
"""


def test_a_rank_that_finishes_first_leaves_the_others_working(run_mpi):
    job = run_mpi(["-c", FINISH_FIRST], timeout=120)
    assert job.returncode == 0, job.stderr
    assert sorted(job.stdout.split("\n")) == ["", "rank 0 finished", "rank 1 finished"]
