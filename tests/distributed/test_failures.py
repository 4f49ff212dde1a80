"""No rank waits forever: a rank that raises, dies or hangs ends the whole job, and checkpoints survive.

Each job runs under an outer timeout (a hang fails the test); the bound itself
comes from MPI_Abort (a rank that raises), the launcher (a rank killed by
SIGKILL) and cadence's collective watchdog (a rank that stops answering).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import cadence as ms

pytestmark = [pytest.mark.mpi, pytest.mark.slow]


def committed(directory):
    files = sorted(directory.glob("*.ckpt"))
    if not files:
        return None
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


def resume(run_mpi, script, root, *flags):
    job = run_mpi([script, "resume", str(root), *flags], timeout=120)
    assert job.returncode == 0, job.stderr
    assert "rank 0 finished from epoch 1, the same weights" in job.stdout
    assert "rank 1 finished from epoch 1, the same weights" in job.stdout


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
    # The launcher ends the job at once and names the dead process by its PID; rank 0
    # said at init which PID is which rank.
    assert "Killed (signal 9)" in job.stderr + job.stdout
    named = re.search(r"BAD TERMINATION .*\n=\s+PID (\d+) RUNNING AT", job.stdout)
    assert named is not None, job.stdout
    ranks = dict(re.findall(r"pid (\d+) is rank (\d)", job.stderr))
    assert sorted(ranks.values()) == ["0", "1"], job.stderr
    assert named[1] in ranks
    params = [committed(tmp_path / f"rank_{r}") for r in (0, 1)]
    for name in params[0]:  # both ranks saved the same weights
        np.testing.assert_array_equal(
            params[0][name].asnumpy(), params[1][name].asnumpy()
        )
    resume(run_mpi, script, tmp_path)


@pytest.mark.parametrize("flags", [(), ("--rank0-only",)], ids=["every", "rank0"])
def test_survivor_names_the_killed_rank(run_mpi, script_dir, tmp_path, flags):
    """When the launcher lets the survivors live, rank 0 names rank 1, killed by SIGKILL, by its rank.

    Hydra kills every rank as soon as one is killed by a signal, whatever its
    options (see docs/distributed.md), so here each rank runs under a shell that
    reports the death as exit status 137, which `-disable-auto-cleanup` leaves
    to the survivors: the case of launchers that do not end the job themselves.
    """
    script = str(script_dir / "rank_fail.py")
    job = run_mpi(
        [script, "kill", str(tmp_path), *flags],
        timeout=120,
        launcher=("-disable-auto-cleanup",),
        wrapper=("sh", "-c", '"$@"; exit $?', "rank"),
    )
    assert job.returncode != 0
    assert re.search(
        r"cadence: rank 1 \(pid \d+ on .+\) died .*; rank 0 of 2 was waiting for it in ",
        job.stderr,
    ), job.stderr
    assert committed(tmp_path / "rank_0") is not None
    assert (committed(tmp_path / "rank_1") is None) == bool(flags)
    resume(run_mpi, script, tmp_path, *flags)


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
