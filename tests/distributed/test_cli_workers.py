"""`cadence train --workers 2` launches itself through MPI; `mpiexec -n 2 cadence train` works as it is."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import cadence as ms
from cadence.cli._workers import _with_output_dir, _without_workers, threads_per_rank
from tests.distributed.conftest import ended, rank_pids
from tests.helpers.processes import run_session

pytestmark = [pytest.mark.mpi, pytest.mark.slow]


def run_cli(args, cwd, timeout=300):
    done = run_session(
        [sys.executable, "-m", "cadence", *args], timeout=timeout, cwd=cwd
    )
    return done.returncode, done.stdout, done.stderr


def test_train_with_two_workers_writes_one_run(tmp_path):
    code, out, err = run_cli(
        [
            "train",
            "--workers",
            "2",
            "--epochs",
            "2",
            "--batch-size",
            "32",
            "--output-dir",
            "run",
        ],
        tmp_path,
    )
    assert code == 0, err
    assert "on 2 workers (batch 16 each)" in out
    assert out.count("Test accuracy:") == 1  # rank 0 reports; rank 1 prints nothing
    accuracy = float(out.split("Test accuracy: ")[1].split()[0])
    assert accuracy > 0.8
    run = tmp_path / "run"
    names = sorted(p.name for p in (run / "checkpoints").glob("*.ckpt"))
    assert [n for n in names if "best" not in n] == ["mlp-1_41.ckpt", "mlp-2_41.ckpt"]
    assert len([n for n in names if n.startswith("mlp-best-")]) == 1
    assert (run / "model.ckpt").is_file()
    # Only rank 0 writes the backup; every rank restores it by broadcast.
    assert [p.relative_to(run).as_posix() for p in run.glob("backup/**/*.ckpt")] == [
        "backup/backup.ckpt"
    ]


class Job:
    """`cadence train --workers 2` running in the background, in a session of its own."""

    def __init__(self, cwd, epochs):
        self.run = cwd / "run"
        self.out, self.err = cwd / "out.txt", cwd / "err.txt"
        args = [
            "train",
            "--workers",
            "2",
            "--epochs",
            str(epochs),
            "--batch-size",
            "32",
        ]
        with self.out.open("w") as out, self.err.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cadence", *args, "--output-dir", "run"],
                cwd=cwd,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )

    def ranks_after_epoch_1(self, limit=240.0):
        """Wait until epoch 1's checkpoint is committed; return rank -> PID of the ranks."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and self.proc.poll() is None:
            ranks = rank_pids(self.proc.pid)
            if (self.run / "checkpoints" / "mlp-1_41.ckpt").exists() and len(
                ranks
            ) == 2:
                return ranks
            time.sleep(0.02)
        self.finish(0)
        pytest.fail(f"epoch 1 did not end within {limit:g} s:\n{self.err.read_text()}")

    def finish(self, limit=120.0):
        """Wait for the launcher (kill its session past `limit` s); return (status, stdout, stderr)."""
        try:
            self.proc.wait(limit)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)
            pytest.fail(f"the job outlived {limit:g} s:\n{self.err.read_text()}")
        return self.proc.returncode, self.out.read_text(), self.err.read_text()

    def checkpoints_whole(self):
        files = sorted((self.run / "checkpoints").glob("*.ckpt"))
        assert files
        for f in files:
            params = ms.load_checkpoint(str(f))
            assert all(
                np.isfinite(p.asnumpy()).all()
                for p in params.values()
                if isinstance(p, ms.Parameter)
            )


def test_a_rank_killed_mid_epoch_is_named_and_the_run_resumes(tmp_path):
    job = Job(tmp_path, epochs=20)
    ranks = job.ranks_after_epoch_1()
    os.kill(ranks[1], signal.SIGKILL)
    code, _, err = job.finish()
    assert code != 0
    assert f"cadence: rank 1 of 2 (pid {ranks[1]} on " in err, err
    assert "was killed by SIGKILL" in err
    assert all(ended(pid) for pid in ranks.values())
    job.checkpoints_whole()
    code, out, err = run_cli(
        [
            "train",
            "--workers",
            "2",
            "--resume",
            "--output-dir",
            "run",
            "--epochs",
            "20",
        ],
        tmp_path,
    )
    assert code == 0, err
    assert "Test accuracy:" in out
    assert (job.run / "checkpoints" / "mlp-20_41.ckpt").is_file()


@pytest.mark.parametrize(
    ("sig", "status", "said"),
    [
        (signal.SIGINT, 130, "interrupted"),
        (signal.SIGTERM, 143, "terminated (SIGTERM)"),
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_ctrl_c_or_sigterm_stops_every_rank(tmp_path, sig, status, said):
    job = Job(tmp_path, epochs=200)
    ranks = job.ranks_after_epoch_1()
    os.kill(job.proc.pid, sig)  # the launcher alone, as a terminal or a scheduler does
    code, _, err = job.finish()
    assert code == status, err
    assert f"cadence train: {said}" in err
    assert (
        err.count("To continue after the last finished epoch: cadence train --resume")
        == 1
    )
    # Every rank stopped after the same step: none was left waiting for the watchdog.
    assert "waited" not in err
    assert all(ended(pid) for pid in ranks.values())
    job.checkpoints_whole()


def test_global_batch_must_split_evenly(run_mpi, tmp_path):
    job = run_mpi(
        [
            "-m",
            "cadence",
            "train",
            "--batch-size",
            "33",
            "--output-dir",
            str(tmp_path / "r"),
        ],
        timeout=120,
    )
    assert job.returncode != 0
    assert (
        "--batch-size 33 is the global batch of 2 workers and must be a multiple of their number"
        in job.stderr
    )


def test_relaunch_arguments():
    assert _without_workers(["train", "--workers", "4", "--epochs", "2"]) == [
        "train",
        "--epochs",
        "2",
    ]
    assert _without_workers(["train", "--workers=4"]) == ["train"]
    assert _with_output_dir(["train", "--output-dir", "a", "--lr", "0.1"], "b") == [  # type: ignore[arg-type]
        "train",
        "--lr",
        "0.1",
        "--output-dir",
        "b",
    ]
    assert threads_per_rank(10**6) == 1
