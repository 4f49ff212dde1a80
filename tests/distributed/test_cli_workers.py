"""`cadence train --workers 2` launches itself through MPI; `mpiexec -n 2 cadence train` works as it is."""

from __future__ import annotations

import sys

import pytest

from cadence.cli._workers import _with_output_dir, _without_workers, threads_per_rank
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
