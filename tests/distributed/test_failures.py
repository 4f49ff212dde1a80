"""No rank waits forever: a rank that raises, dies or hangs ends the whole job, and checkpoints survive.

Each job runs under an outer timeout (a hang fails the test); the bound itself
comes from MPI_Abort (a rank that raises), the launcher (a rank killed by
SIGKILL) and cadence's collective watchdog (a rank that stops answering).
"""

from __future__ import annotations

import numpy as np
import pytest

import cadence as ms

pytestmark = [pytest.mark.mpi, pytest.mark.slow]


def committed(directory):
    files = sorted(directory.glob("*.ckpt"))
    assert [f.name for f in files] == [
        "net-1_8.ckpt"
    ]  # epoch 1 ended; epoch 2 never did
    params = ms.load_checkpoint(str(files[0]))
    assert all(
        np.isfinite(p.asnumpy()).all()
        for p in params.values()
        if isinstance(p, ms.Parameter)
    )
    return params


def resume(run_mpi, script, root):
    job = run_mpi([script, "resume", str(root)], timeout=120)
    assert job.returncode == 0, job.stderr
    assert "rank 0 finished from epoch 1" in job.stdout
    assert "rank 1 finished from epoch 1" in job.stdout


def test_rank_that_raises_aborts_the_job_and_names_itself(
    run_mpi, script_dir, tmp_path
):
    script = str(script_dir / "rank_fail.py")
    job = run_mpi([script, "raise", str(tmp_path)], timeout=120)
    assert job.returncode != 0
    assert "RuntimeError: rank 1 broke on purpose" in job.stderr
    assert "cadence: rank 1 of 2 failed with RuntimeError" in job.stderr
    assert "Aborting the job so that no other rank waits for it" in job.stderr
    for rank in (0, 1):
        committed(tmp_path / f"rank_{rank}")
    resume(run_mpi, script, tmp_path)


def test_rank_killed_mid_epoch_ends_the_job(run_mpi, script_dir, tmp_path):
    script = str(script_dir / "rank_fail.py")
    job = run_mpi([script, "kill", str(tmp_path)], timeout=120)
    assert job.returncode != 0
    assert "Killed (signal 9)" in job.stderr + job.stdout  # the launcher's report
    params = [committed(tmp_path / f"rank_{r}") for r in (0, 1)]
    for name in params[0]:  # both ranks saved the same weights
        np.testing.assert_array_equal(
            params[0][name].asnumpy(), params[1][name].asnumpy()
        )
    resume(run_mpi, script, tmp_path)


def test_rank_that_hangs_is_cut_off_by_the_watchdog(run_mpi, script_dir, tmp_path):
    script = str(script_dir / "rank_fail.py")
    job = run_mpi(
        [script, "hang", str(tmp_path)], timeout=120, env={"CADENCE_COMM_TIMEOUT": "3"}
    )
    assert job.returncode != 0
    # Rank 0 waits in the next collective: the step's stop vote.
    assert (
        "cadence: rank 0 of 2 waited 3 s in stop vote; another rank failed or stalled"
        in job.stderr
    )
    committed(tmp_path / "rank_0")
