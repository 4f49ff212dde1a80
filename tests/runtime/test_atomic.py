"""Atomic writes: complete file or nothing, even when the writer fails or is killed."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import textwrap
import threading
from typing import Any

import pytest

from cadence.checkpoint import _atomic
from cadence.checkpoint._atomic import TEMP_SUFFIX, atomic_write


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
    from cadence.checkpoint._atomic import atomic_write

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
        # A live writer holds its file: even an age limit of zero does not make it stale.
        assert _atomic.remove_stale_temporaries(tmp_path, older_than=0) == []
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
    # Killed, the writer's lock is gone: the file is stale once old enough.
    assert _atomic.remove_stale_temporaries(tmp_path, older_than=3600) == []
    assert _atomic.remove_stale_temporaries(tmp_path, older_than=0) == [
        str(tmp_path / temp)
    ]
    assert _leftovers(tmp_path) == []


def _aged(path: Any, seconds: float) -> None:
    path.write_bytes(b"left by a killed writer")
    past = path.stat().st_mtime - seconds
    os.utime(path, (past, past))


def test_the_first_write_into_a_directory_removes_stale_temporaries(tmp_path):
    age = _atomic.STALE_AFTER_SECONDS + 60
    stale = [
        tmp_path / ".a.ckpt.abcd_123.tmp",
        tmp_path / ".b.safetensors.zzzzzzzz.tmp",
    ]
    for path in stale:
        _aged(path, age)
    young = (
        tmp_path / ".c.ckpt.young000.tmp"
    )  # a writer may have created it a moment ago
    _aged(young, 0)
    foreign = [tmp_path / "notes.tmp", tmp_path / ".x.tmp", tmp_path / "CKP-1_2.tmp"]
    for (
        path
    ) in foreign:  # not names cadence makes (MindSpore's own temporary is CKP-1_2.tmp)
        _aged(path, age)
    with atomic_write(tmp_path / "a.ckpt") as file:
        file.write(b"new")
    remaining = sorted(p.name for p in tmp_path.iterdir())
    assert remaining == sorted(["a.ckpt", young.name, *(p.name for p in foreign)])
    _aged(
        stale[0], age
    )  # once per directory and process: later writes do not list it again
    with atomic_write(tmp_path / "b.ckpt") as file:
        file.write(b"new")
    assert stale[0].exists()


# --- atomic_write_chunks: O_DIRECT from a staging buffer, buffered where refused ---------------


@pytest.fixture
def small_stage(monkeypatch):
    """A 16 KiB staging buffer, so files of a few blocks cross its boundary."""
    monkeypatch.setattr(_atomic, "_STAGE_BYTES", 16 * 1024)
    monkeypatch.setattr(_atomic, "_stages", threading.local())


def _payload(size: int) -> bytes:
    return bytes((i * 7 + 3) % 251 for i in range(size))


def _chunked(data: bytes, piece: int = 1000) -> list[Any]:
    view = memoryview(data)
    return [view[i : i + piece] for i in range(0, len(data), piece)] or [b""]


@pytest.mark.usefixtures("small_stage")
@pytest.mark.parametrize(
    "size", [0, 1, 4095, 4096, 4097, 16 * 1024, 16 * 1024 + 1, 70_001]
)
def test_chunks_are_written_whole_and_read_only(tmp_path, size):
    target = tmp_path / "ckpt.bin"
    data = _payload(size)
    assert _atomic.atomic_write_chunks(target, _chunked(data)) == size
    assert target.read_bytes() == data
    assert _mode(target) == 0o400
    assert _leftovers(tmp_path) == []


def _spy_open(monkeypatch: pytest.MonkeyPatch, *, refuse: bool) -> list[int]:
    flags_seen: list[int] = []
    real_open = os.open

    def spying_open(path: Any, flags: int, *args: Any) -> int:
        if flags & getattr(os, "O_DIRECT", 0):
            flags_seen.append(flags)
            if refuse:
                raise OSError(errno.EINVAL, "no direct I/O here")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", spying_open)
    return flags_seen


def _spy_flags(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the flags of every file `os.open` opens (directories left out)."""
    flags_seen: list[int] = []
    real_open = os.open

    def spying_open(path: Any, flags: int, *args: Any) -> int:
        if not os.path.isdir(path):
            flags_seen.append(flags)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", spying_open)
    return flags_seen


@pytest.mark.skipif(not hasattr(os, "O_DIRECT"), reason="no O_DIRECT on this system")
@pytest.mark.usefixtures("small_stage")
def test_direct_io_is_used_where_the_file_system_has_it(tmp_path, monkeypatch):
    opened = _spy_open(monkeypatch, refuse=False)
    data = _payload(50_000)
    _atomic.atomic_write_chunks(tmp_path / "a", _chunked(data))
    assert len(opened) == 1
    assert (tmp_path / "a").read_bytes() == data


@pytest.mark.skipif(not hasattr(os, "O_DIRECT"), reason="no O_DIRECT on this system")
@pytest.mark.usefixtures("small_stage")
def test_file_system_refusing_direct_io_at_open_gets_buffered_writes(
    tmp_path, monkeypatch
):
    opened = _spy_open(monkeypatch, refuse=True)
    data = _payload(50_000)
    _atomic.atomic_write_chunks(tmp_path / "a", _chunked(data))
    assert len(opened) == 1
    assert (tmp_path / "a").read_bytes() == data
    assert not hasattr(_atomic._stages, "buffer")  # written from the chunks, not staged


def _write_with_chunks(path: Any, data: bytes) -> None:
    _atomic.atomic_write_chunks(path, _chunked(data))


def _write_with_image(path: Any, data: bytes) -> None:
    image = _atomic.FileImage()
    image.fill([data])
    image.write(path)


@pytest.mark.skipif(not hasattr(os, "O_DIRECT"), reason="no O_DIRECT on this system")
@pytest.mark.usefixtures("small_stage")
@pytest.mark.parametrize("write", [_write_with_chunks, _write_with_image])
def test_file_system_refusing_the_first_direct_write_gets_buffered_writes(
    tmp_path, monkeypatch, write
):
    real_pwrite, calls = os.pwrite, []

    def pwrite(fd: int, data: Any, offset: int) -> int:
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(errno.EINVAL, "direct write refused")
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", pwrite)
    opened = _spy_flags(monkeypatch)
    data = _payload(50_000)
    write(tmp_path / "a", data)
    assert (tmp_path / "a").read_bytes() == data
    # created with O_DIRECT, refused at the first write, reopened without it
    assert [bool(flags & os.O_DIRECT) for flags in opened] == [True, False]
    assert _leftovers(tmp_path) == []


@pytest.mark.usefixtures("small_stage")
def test_write_error_propagates_and_leaves_nothing(tmp_path, monkeypatch):
    def pwrite(fd: int, data: Any, offset: int) -> int:
        raise OSError(errno.EIO, "disk on fire")

    monkeypatch.setattr(os, "pwrite", pwrite)
    (tmp_path / "a").write_bytes(b"old")
    with pytest.raises(OSError, match="disk on fire"):
        _atomic.atomic_write_chunks(tmp_path / "a", _chunked(_payload(50_000)))
    assert (tmp_path / "a").read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


@pytest.mark.usefixtures("small_stage")
def test_failing_chunk_source_leaves_the_old_file(tmp_path):
    def chunks() -> Any:
        yield _payload(
            40_000
        )  # more than a staged block: some of it is on disk already
        raise RuntimeError("encoder failed")

    (tmp_path / "a").write_bytes(b"old")
    with pytest.raises(RuntimeError, match="encoder failed"):
        _atomic.atomic_write_chunks(tmp_path / "a", chunks())
    assert (tmp_path / "a").read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


def test_chunks_target_checks_match_atomic_write(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        _atomic.atomic_write_chunks(tmp_path / "missing" / "a", [b"x"])
    with pytest.raises(IsADirectoryError, match="is a directory"):
        _atomic.atomic_write_chunks(tmp_path, [b"x"])


@pytest.mark.usefixtures("small_stage")
def test_systems_without_pwrite_write_sequentially(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "pwrite")
    monkeypatch.delattr(os, "O_DIRECT", raising=False)
    data = _payload(50_000)
    _atomic.atomic_write_chunks(tmp_path / "a", _chunked(data))
    assert (tmp_path / "a").read_bytes() == data


# --- FileImage: a whole file staged in memory, written later ---------------------------


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 70_001])
def test_file_image_writes_exactly_its_bytes(tmp_path, size):
    image = _atomic.FileImage()
    data = _payload(size)
    assert image.fill(_chunked(data)) == size == image.size
    assert bytes(image.view()) == data
    assert image.write(tmp_path / "a") == size
    assert (tmp_path / "a").read_bytes() == data
    assert _mode(tmp_path / "a") == 0o400
    assert _leftovers(tmp_path) == []


def test_file_image_copies_its_chunks_so_they_may_change_after_fill(tmp_path):
    source = bytearray(_payload(10_000))
    image = _atomic.FileImage()
    image.fill([memoryview(source)[:5000], memoryview(source)[5000:]])
    expected = bytes(source)
    source[:] = b"\0" * len(source)
    image.write(tmp_path / "a")
    assert (tmp_path / "a").read_bytes() == expected


def test_file_image_keeps_its_buffer_across_fills_and_grows_when_needed(tmp_path):
    image = _atomic.FileImage()
    image.fill([_payload(10_000)])
    buffer = image.capacity
    assert buffer >= 10_000 and buffer % 4096 == 0
    image.fill([b"short"])  # smaller: the buffer is reused, not reallocated
    assert image.capacity == buffer
    image.write(tmp_path / "a")
    # nothing of the earlier, longer fill:
    assert (tmp_path / "a").read_bytes() == b"short"
    image.fill([_payload(50_000)])
    assert image.capacity >= 50_000
    image.write(tmp_path / "b")
    assert (tmp_path / "b").read_bytes() == _payload(50_000)


@pytest.mark.skipif(not hasattr(os, "O_DIRECT"), reason="no O_DIRECT on this system")
def test_file_image_uses_direct_io_and_falls_back_when_refused(tmp_path, monkeypatch):
    image = _atomic.FileImage()
    data = _payload(30_001)
    image.fill([data])
    opened = _spy_open(monkeypatch, refuse=False)
    image.write(tmp_path / "direct")
    assert len(opened) == 1
    monkeypatch.undo()
    refused = _spy_open(monkeypatch, refuse=True)
    image.write(tmp_path / "buffered")
    assert len(refused) == 1
    assert (
        (tmp_path / "direct").read_bytes()
        == (tmp_path / "buffered").read_bytes()
        == data
    )


def test_file_image_write_error_keeps_the_old_file_and_closes_descriptors(
    tmp_path, monkeypatch
):
    def pwrite(fd: int, data: Any, offset: int) -> int:
        raise OSError(errno.EIO, "disk on fire")

    image = _atomic.FileImage()
    image.fill([_payload(9_000)])
    (tmp_path / "a").write_bytes(b"old")
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0
    monkeypatch.setattr(os, "pwrite", pwrite)
    with pytest.raises(OSError, match="disk on fire"):
        image.write(tmp_path / "a")
    monkeypatch.undo()
    assert (tmp_path / "a").read_bytes() == b"old"
    assert _leftovers(tmp_path) == []
    if before:
        assert len(os.listdir("/proc/self/fd")) == before


@pytest.mark.skipif(not hasattr(os, "O_DIRECT"), reason="no O_DIRECT on this system")
def test_a_file_created_by_a_refused_direct_open_is_not_left_behind(
    tmp_path, monkeypatch
):
    real_open = os.open

    def creates_then_refuses(path: Any, flags: int, *args: Any) -> int:
        if (
            flags & os.O_DIRECT
        ):  # as tmpfs did: the file is created, then O_DIRECT refused
            os.close(real_open(path, flags & ~os.O_DIRECT, *args))
            raise OSError(errno.EINVAL, "no direct I/O here")
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", creates_then_refuses)
    _atomic.atomic_write_chunks(tmp_path / "a", [b"data"])
    image = _atomic.FileImage()
    image.fill([b"image"])
    image.write(tmp_path / "b")
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]
    assert (tmp_path / "a").read_bytes() == b"data"
    assert (tmp_path / "b").read_bytes() == b"image"


@pytest.mark.skipif(not hasattr(os, "O_DIRECT"), reason="no O_DIRECT on this system")
def test_a_failing_close_in_the_direct_fallback_closes_once_and_keeps_its_error(
    tmp_path, monkeypatch
):
    real_close, real_pwrite = os.close, os.pwrite
    closed: list[int] = []

    def pwrite(fd: int, data: Any, offset: int) -> int:
        if not closed:
            raise OSError(errno.EINVAL, "direct write refused")
        return real_pwrite(fd, data, offset)

    def close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)  # Linux releases the descriptor even when close reports an error
        if len(closed) == 1:
            raise OSError(errno.EIO, "close failed")

    image = _atomic.FileImage()
    image.fill([_payload(5_000)])
    monkeypatch.setattr(os, "pwrite", pwrite)
    monkeypatch.setattr(os, "close", close)
    with pytest.raises(OSError, match="close failed"):
        image.write(tmp_path / "a")
    monkeypatch.undo()
    assert len(closed) == 1  # never a second close of a number another thread may reuse
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this system")
def test_a_symlink_to_a_directory_is_a_directory_target(tmp_path):
    (tmp_path / "real").mkdir()
    link = tmp_path / "link"
    try:
        link.symlink_to(tmp_path / "real", target_is_directory=True)
    except OSError:
        pytest.skip("cannot create symlinks here")
    with pytest.raises(IsADirectoryError, match="is a directory"), atomic_write(link):
        pytest.fail("the block must not run for a directory target")
    assert link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["link", "real"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_forked_child_draws_its_own_temporary_names():
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next name draw and leave at once
        os.write(write, repr(_atomic._names.random()).encode())
        os._exit(0)
    os.close(write)
    child = float(os.read(read, 100))
    os.close(read)
    os.waitpid(pid, 0)
    assert child != _atomic._names.random()
