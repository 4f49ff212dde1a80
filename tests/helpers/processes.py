"""Running a short Python program in a fresh interpreter, as the import and isolation tests do."""

from __future__ import annotations

import os
import subprocess
import sys

__all__ = ["environment_without", "run_python"]


def environment_without(*names: str) -> dict[str, str]:
    """This process's environment without the variables `names`."""
    return {k: v for k, v in os.environ.items() if k not in names}


def run_python(
    code: str,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 120.0,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run `python -c code *args` with this interpreter and return its text output.

    Bounded by `timeout` seconds (`subprocess.TimeoutExpired` past it); with `check`, a
    non-zero exit raises `subprocess.CalledProcessError`.
    """
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=check,
    )
