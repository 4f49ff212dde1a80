"""docs/distributed.md's script, run on 2 ranks, prints what it prints in one process."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = [pytest.mark.mpi, pytest.mark.slow]

DOC = Path(__file__).resolve().parents[2] / "docs" / "distributed.md"


def test_the_guide_script_runs_on_two_ranks(run_mpi, tmp_path):
    text = DOC.read_text()
    script, expected = re.search(
        r"```python\n(.*?)```\s*```text\n(.*?)```", text, re.S
    ).groups()  # type: ignore[union-attr]
    path = tmp_path / "train.py"
    path.write_text(script)
    job = run_mpi([str(path)], timeout=180)
    assert job.returncode == 0, job.stderr
    accuracy = expected.strip().rsplit(" ", 1)[1]
    assert sorted(job.stdout.split("\n")[:2]) == [
        f"rank 0 of 2: accuracy {accuracy}",
        f"rank 1 of 2: accuracy {accuracy}",
    ]
