"""The linter, the formatter and the type checker are clean over the whole project."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=900
    )


@pytest.mark.slow
def test_ruff_check_is_clean():
    result = run(sys.executable, "-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_ruff_format_is_clean():
    result = run(sys.executable, "-m", "ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_mypy_strict_is_clean(tmp_path):
    result = run(
        sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr
