"""Atomic file writing: a file appears under its final name complete, or not at all.

The data goes to a temporary file in the destination directory (same file
system, so the rename is atomic), is flushed and fsync'ed, gets its final
mode, and is renamed over the destination with `os.replace`; finally the
directory itself is fsync'ed so the rename survives a power loss. If anything
fails before the rename, the temporary file is removed and the destination is
untouched (an existing file keeps its old content).

A process killed mid-write leaves at most a hidden temporary file named
`.<name>.<random>.tmp` beside the destination, never a partial file under the
destination's name. A writer holds an exclusive `flock` on its temporary file
until it is renamed or removed, and the first write a process makes into a
directory removes the temporaries there that nobody holds and that are older
than `STALE_AFTER_SECONDS` (see `remove_stale_temporaries`): what killed
writers left behind does not pile up.

`atomic_write_chunks` does the same for a large payload given as chunks (a
checkpoint): where the file system allows it, the bytes go to the disk with
`O_DIRECT` from one page-aligned staging buffer, so the kernel neither copies
them into its page cache nor writes them back later. That costs the machine
about half the CPU of a buffered write plus fsync, which matters when training
keeps every core busy (measured in `tests/bench/bench_callbacks.py`).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import random
import re
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = [
    "STALE_AFTER_SECONDS",
    "TEMP_SUFFIX",
    "FileImage",
    "atomic_write",
    "atomic_write_chunks",
    "fsync_directory",
    "remove_stale_temporaries",
]

TEMP_SUFFIX = ".tmp"
"""Suffix of the temporary files `atomic_write` creates (they also start with a dot)."""

STALE_AFTER_SECONDS = 60.0
"""Age after which an unlocked temporary file counts as left by a killed writer.

The lock alone decides in all but one case: between creating its file and
locking it (microseconds) a live writer holds no lock yet; the age keeps a
cleaner from removing such a file."""

if sys.platform != "win32":  # Windows has no flock: temporaries are not cleaned there
    import fcntl


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str], *, mode: int = 0o400
) -> Iterator[BinaryIO]:
    """Open a binary file that replaces `path` atomically when the block exits cleanly.

    Args:
        path: The destination file. Its directory must exist.
        mode: Permission bits the finished file gets (default read-only for the
            owner, as MindSpore's checkpoints).

    Yields:
        A binary file object opened on the temporary file.

    Raises:
        FileNotFoundError: If the destination directory does not exist.
        IsADirectoryError: If `path` is a directory.

    Example:
        >>> with atomic_write(target) as f:  # doctest: +SKIP
        ...     f.write(payload)
    """
    temp = _Temporary(path)
    try:
        with os.fdopen(temp.fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        temp.discard()
        raise
    temp.commit(mode)


def atomic_write_chunks(
    path: str | os.PathLike[str],
    chunks: Iterable[bytes | memoryview],
    *,
    mode: int = 0o400,
) -> int:
    """Write the concatenated `chunks` to `path` atomically; return the file's size.

    Like `atomic_write`, but the bytes bypass the page cache (`O_DIRECT`) where
    the file system supports it, falling back to buffered writes where it does
    not. Chunks may be views of live arrays: each is copied once, into the
    staging buffer (or the kernel's), before the next is taken.
    """
    return _write_through(path, mode, lambda temp: _write_chunks(temp, iter(chunks)))


def _write_through(
    path: str | os.PathLike[str], mode: int, write: Callable[[_Temporary], int]
) -> int:
    """Create the temporary file (`O_DIRECT` where allowed), `write` it, commit it; return its size.

    `write` writes and syncs the file and returns its size; if anything fails the
    temporary file is removed and the destination left as it was.
    """
    temp = _Temporary(path, direct=True)
    try:
        try:
            size = write(temp)
        finally:
            temp.close()
    except BaseException:
        temp.discard()
        raise
    temp.commit(mode)
    return size


_CREATE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
)
_NAME_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_RANDOM_LENGTH = 8
# Only names this module makes: `.<name>.<8 random characters>.tmp`.
_TEMP_NAME = re.compile(
    rf"\..+\.[{_NAME_CHARACTERS}]{{{_RANDOM_LENGTH}}}{re.escape(TEMP_SUFFIX)}"
)
_cleaned: set[str] = set()  # directories this process has cleaned (once each)
_cleaned_lock = threading.Lock()


def remove_stale_temporaries(
    directory: str | os.PathLike[str], *, older_than: float | None = None
) -> list[str]:
    """Remove the temporary files killed writers left in `directory`; return their paths.

    A file is removed only if its name is one this module makes, no writer holds
    its lock (every live writer does, in any process on this machine), and it
    was last modified more than `older_than` seconds ago (default
    `STALE_AFTER_SECONDS`, read at the call). Files that vanish or
    cannot be opened meanwhile are skipped. Returns `[]` where `flock` does not
    exist (Windows).
    """
    if sys.platform == "win32":
        return []
    removed = []
    if older_than is None:
        older_than = STALE_AFTER_SECONDS
    now = time.time()
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    for name in names:
        if not _TEMP_NAME.fullmatch(name):
            continue
        path = os.path.join(directory, name)
        if _is_stale(path, now - older_than):
            removed.append(path)
    return removed


def _is_stale(path: str, cutoff: float) -> bool:
    """Remove `path` and return True if it is unlocked and older than `cutoff`."""
    try:
        fd = os.open(
            path,
            os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
        )
    except OSError:
        return False
    try:
        if os.fstat(fd).st_mtime > cutoff:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a live writer holds it
        # Locked by us now: a writer that opened it later could not lock it.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return True
    finally:
        os.close(fd)


def _clean_once(directory: str) -> None:
    """Remove stale temporaries in `directory` the first time this process writes there."""
    with _cleaned_lock:
        if directory in _cleaned:
            return
        _cleaned.add(directory)
    remove_stale_temporaries(directory)


_names = random.Random()  # temporary names cost no system call (as tempfile's)
if hasattr(os, "register_at_fork"):  # a forked child draws its own names
    os.register_at_fork(after_in_child=_names.seed)


class _Temporary:
    """The hidden temporary file a write goes to before it is renamed into place.

    Every system call made while training counts (each one hands the GIL back and
    forth with the training thread), so the file is created with one `open`:
    with `O_DIRECT` when asked and the file system allows it (`direct`); a missing
    directory is reported from that `open`'s error.
    """

    def __init__(self, path: str | os.PathLike[str], *, direct: bool = False) -> None:
        self.final = os.path.abspath(os.fspath(path))
        self.directory, name = os.path.split(self.final)
        # A directory (or a symlink to one, which a rename would replace) is refused up front.
        if os.path.isdir(self.final):
            raise IsADirectoryError(
                f"cannot write {self.final!r}: it is a directory, expected a file name"
            )
        flags = _CREATE | (getattr(os, "O_DIRECT", 0) if direct else 0)
        _clean_once(self.directory)
        for _ in range(100):
            random_part = "".join(_names.choices(_NAME_CHARACTERS, k=_RANDOM_LENGTH))
            self.path = os.path.join(
                self.directory, f".{name}.{random_part}{TEMP_SUFFIX}"
            )
            try:
                self.fd = os.open(self.path, flags, 0o600)
            except FileExistsError:
                continue
            except (FileNotFoundError, NotADirectoryError):
                raise FileNotFoundError(
                    f"cannot write {self.final!r}: its directory {self.directory!r} does not exist"
                ) from None
            except OSError as error:
                if error.errno != errno.EINVAL or flags == _CREATE:
                    raise
                self.discard()  # no direct I/O on this file system: it may exist already
                flags = _CREATE
                continue
            self.direct = flags != _CREATE
            self.open = True
            self._lock()
            return
        raise FileExistsError(f"cannot create a temporary file beside {self.final!r}")

    def _lock(self) -> None:
        # Marks the file as in use for `remove_stale_temporaries`; the lock goes with the
        # last descriptor, so a killed writer's file is unlocked.
        if sys.platform != "win32":
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def write_block(self, stage: _Bytes, fill: int, offset: int) -> None:
        """Write the first `fill` bytes of `stage` at `offset` (padded to whole blocks if direct).

        If the file system refuses the first direct write, the file is reopened
        without `O_DIRECT` (nothing is on disk yet, so nothing is lost).
        """
        if self.direct:
            padded = -(-fill // _ALIGN) * _ALIGN
            stage[fill:padded] = 0
            try:
                _write_all(self.fd, stage[:padded].data, offset)
                return
            except OSError as error:
                if error.errno != errno.EINVAL or offset:
                    raise
            self.close()
            self.fd = os.open(self.path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
            self.open, self.direct = True, False
            self._lock()
        _write_all(self.fd, stage[:fill].data, offset)

    def sync(self, size: int) -> None:
        """Cut a direct write's padding off the file (`size` bytes) and fsync it."""
        if self.direct:
            os.ftruncate(self.fd, size)
        os.fsync(self.fd)

    def close(self) -> None:
        if self.open:
            self.open = False
            os.close(self.fd)

    def discard(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def commit(self, mode: int) -> None:
        """Give the written, synced, closed file its mode and name; sync the directory."""
        try:
            os.chmod(self.path, mode)
            os.replace(self.path, self.final)
        except BaseException:
            self.discard()
            raise
        fsync_directory(self.directory)


_Bytes = np.ndarray[Any, np.dtype[np.uint8]]
_ALIGN = 4096  # covers 512-byte and 4 KiB logical blocks
_STAGE_BYTES = 8 << 20
_stages = threading.local()


_STREAM_MIN_BYTES = 64 << 10
"""Chunks at least this large are copied into a buffer with streaming stores (see `_copy_into`)."""


def _copy_into(buffer: _Bytes, offset: int, data: _Bytes) -> None:
    """`buffer[offset:offset + len(data)] = data`, without the GIL.

    Large chunks go through `cadence.kernels`' `stream_copy`: the buffer is next
    read by the disk, so its cache lines are written without being read first
    and without evicting the training step's data (a third less time for a
    checkpoint capture inside training, see `kernels/_memory.py`). Small chunks
    take numpy's copy.
    """
    if len(data) >= _STREAM_MIN_BYTES:
        _stream_copy()(buffer, offset, data)
    else:
        buffer[offset : offset + len(data)] = data


@functools.cache
def _stream_copy() -> Callable[[_Bytes, int, _Bytes], None]:
    """The streaming copy kernel, imported (with numba) on first use: `import cadence` stays numba-free."""
    from cadence.kernels import memory_kernels

    copy: Callable[[_Bytes, int, _Bytes], None] = memory_kernels().stream_copy
    return copy


def _aligned(size: int) -> _Bytes:
    """A new page-aligned byte buffer of `size` bytes (a multiple of `_ALIGN`)."""
    raw = np.empty(size + _ALIGN, np.uint8)
    start = -raw.ctypes.data % _ALIGN
    return raw[start : start + size]


def _stage() -> _Bytes:
    """This thread's page-aligned staging buffer (kept: faulting 8 MiB in costs CPU too)."""
    stage = getattr(_stages, "buffer", None)
    if stage is None or len(stage) != _STAGE_BYTES:
        stage = _stages.buffer = _aligned(_STAGE_BYTES)
    return stage


class FileImage:
    """A whole file's bytes in one reusable page-aligned buffer, written atomically later.

    `fill` copies the chunks in (one copy, into memory that stays mapped from one
    fill to the next); `write` commits them to a file like `atomic_write_chunks`,
    straight from the buffer with `O_DIRECT` where the file system allows it, so
    no further copy is made. The buffer grows when a fill needs more room and is
    otherwise kept. Not thread-safe: the owner must not fill while a write runs.
    """

    def __init__(self) -> None:
        self._buffer: _Bytes = np.empty(0, np.uint8)
        self.size = 0
        """Bytes filled in (the size of the file `write` makes)."""

    @property
    def capacity(self) -> int:
        """Bytes the buffer holds without growing."""
        return len(self._buffer)

    def fill(self, chunks: Iterable[bytes | memoryview]) -> int:
        """Replace the image with the concatenated `chunks`; return its size."""
        views = [np.frombuffer(chunk, np.uint8) for chunk in chunks]
        size = sum(len(view) for view in views)
        padded = -(-size // _ALIGN) * _ALIGN
        if padded > len(self._buffer):
            self._buffer = _aligned(padded)
        offset = 0
        for view in views:
            _copy_into(self._buffer, offset, view)
            offset += len(view)
        self.size = size
        return size

    def view(self) -> memoryview:
        """The image's bytes (a view of the buffer: valid until the next `fill`)."""
        return self._buffer[: self.size].data

    def write(self, path: str | os.PathLike[str], *, mode: int = 0o400) -> int:
        """Write the image to `path` atomically and durably (as `atomic_write_chunks`); return its size."""
        return _write_through(path, mode, self._write_to)

    def _write_to(self, temp: _Temporary) -> int:
        temp.write_block(self._buffer, self.size, 0)
        temp.sync(self.size)
        return self.size


def _write_chunks(temp: _Temporary, chunks: Iterator[bytes | memoryview]) -> int:
    """Write `chunks` to the temporary file, then sync it; return the size.

    With `O_DIRECT`, the data is staged in aligned blocks and the file truncated
    to its true size after the padded tail; without, each chunk is written
    straight from its buffer (the kernel copies it).
    """
    if not temp.direct:
        size = 0
        for chunk in chunks:
            view = memoryview(chunk).cast("B")
            _write_all(temp.fd, view, size)
            size += len(view)
        temp.sync(size)
        return size
    stage, fill, size = _stage(), 0, 0
    for chunk in chunks:
        data = np.frombuffer(chunk, np.uint8)
        while len(data):
            n = min(len(data), len(stage) - fill)
            _copy_into(stage, fill, data[:n])
            fill, data = fill + n, data[n:]
            if fill == len(stage):
                temp.write_block(stage, fill, size)
                size, fill = size + fill, 0
    temp.write_block(stage, fill, size)
    size += fill
    temp.sync(size)
    return size


def _write_all(fd: int, view: memoryview, offset: int) -> None:
    pwrite = getattr(os, "pwrite", None)
    if pwrite is None:  # Windows: buffered only, and always sequential
        os.lseek(fd, offset, os.SEEK_SET)
    while len(view):
        written = os.write(fd, view) if pwrite is None else pwrite(fd, view, offset)
        view, offset = view[written:], offset + written


def fsync_directory(directory: str | os.PathLike[str]) -> None:
    """Flush a directory's entries (renames, creations, deletions) to disk.

    A no-op where directories cannot be opened (Windows).
    """
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
