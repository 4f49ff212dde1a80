"""Atomic writes: complete file or nothing, even when the writer fails or is killed."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from cadence._atomic import TEMP_SUFFIX, atomic_write


def _mode(path: Any) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _leftovers(directory: Any) -> list[str]:
    return sorted(name for name in os.listdir(directory) if name.endswith(TEMP_SUFFIX))


def _write_then_fail(target: Any, error: BaseException) -> None:
    with atomic_write(target) as file:
        file.write(b"partial data")
        raise error


def test_writes_the_file_read_only(tmp_path):
    target = tmp_path / "a.bin"
    with atomic_write(target) as file:
        file.write(b"hello")
    assert target.read_bytes() == b"hello"
    assert _mode(target) == 0o400
    assert os.listdir(tmp_path) == ["a.bin"]


def test_mode_is_configurable(tmp_path):
    target = tmp_path / "a.bin"
    with atomic_write(str(target), mode=0o644) as file:
        file.write(b"x")
    assert _mode(target) == 0o644


def test_replaces_an_existing_read_only_file(tmp_path):
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")
    target.chmod(0o400)
    with atomic_write(target) as file:
        file.write(b"new")
    assert target.read_bytes() == b"new"


def test_failure_midway_leaves_nothing_under_the_final_name(tmp_path):
    target = tmp_path / "a.bin"
    with pytest.raises(OSError, match="disk full"):
        _write_then_fail(target, OSError("disk full"))
    assert not target.exists()
    assert os.listdir(tmp_path) == []


def test_failure_midway_keeps_the_old_file_intact(tmp_path):
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt):
        _write_then_fail(target, KeyboardInterrupt())
    assert target.read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


def test_missing_directory_is_named(tmp_path):
    missing = tmp_path / "nope"
    with (
        pytest.raises(
            FileNotFoundError, match=r"its directory '.*nope' does not exist"
        ),
        atomic_write(missing / "a.bin"),
    ):
        pass


def test_directory_target_is_rejected(tmp_path):
    with (
        pytest.raises(IsADirectoryError, match="it is a directory"),
        atomic_write(tmp_path),
    ):
        pass


_CHILD = textwrap.dedent(
    """
    import sys
    from cadence._atomic import atomic_write

    chunk = b"x" * (1 << 20)
    with atomic_write(sys.argv[1]) as file:
        file.write(chunk)
        file.flush()
        print("writing", flush=True)
        while True:  # a write that never ends: the parent kills us in the middle of it
            file.write(chunk)
            file.seek(0)
    """
)


@pytest.mark.parametrize("existing", [None, b"previous checkpoint"])
def test_process_killed_mid_write_leaves_no_partial_file(tmp_path, existing):
    target = tmp_path / "big.ckpt"
    if existing is not None:
        target.write_bytes(existing)
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(target)],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "writing\n"
        assert (
            len(_leftovers(tmp_path)) == 1
        )  # the temporary file, hidden beside the target
        child.kill()
    finally:
        child.wait()
        child.stdout.close()  # type: ignore[union-attr]
    if existing is None:
        assert not target.exists()
    else:
        assert target.read_bytes() == existing
    (temp,) = _leftovers(tmp_path)
    assert temp.startswith(".big.ckpt.")
