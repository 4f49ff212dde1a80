"""Keeping freed host memory for reuse (`cadence.compute._host_memory`): the faults it saves, the opt-out."""

import subprocess
import sys

import pytest

from cadence.compute import _host_memory

# Allocates, writes and frees a 4 MiB array ten times; prints the page faults of the last nine.
_PROBE = """
import resource, sys
import numpy as np
from cadence.compute._host_memory import keep_freed_memory
print(keep_freed_memory())
faults = 0
for i in range(10):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    a = np.empty(1 << 20, np.float32)
    a[:] = 1.0
    del a
    if i:
        faults += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(faults)
"""


def _probe(value: str) -> tuple[str, int]:
    env = {"PATH": "/usr/bin:/bin", _host_memory.ENV_VAR: value}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    applied, faults = done.stdout.split()
    return applied, int(faults)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc only")
def test_a_freed_array_is_reused_without_page_faults_and_the_opt_out_restores_glibcs_default():
    applied, kept = _probe("1")
    assert applied == "True"
    assert kept < 100  # nine 4 MiB arrays: 9 x 1024 pages if each were fresh
    applied, default = _probe("0")
    assert applied == "False"
    assert (
        default > kept + 100
    )  # glibc adapts its own thresholds too, but late and partly


def test_a_bad_setting_is_refused_by_name(monkeypatch):
    monkeypatch.setattr(_host_memory, "_applied", None)
    monkeypatch.setenv(_host_memory.ENV_VAR, "yes")
    with pytest.raises(
        ValueError, match=r"CADENCE_KEEP_FREED_MEMORY.*'0' or '1'.*'yes'"
    ):
        _host_memory.keep_freed_memory()
