"""Atomic file writing: a file appears under its final name complete, or not at all.

The data goes to a temporary file in the destination directory (same file
system, so the rename is atomic), is flushed and fsync'ed, gets its final
mode, and is renamed over the destination with `os.replace`; finally the
directory itself is fsync'ed so the rename survives a power loss. If anything
fails before the rename, the temporary file is removed and the destination is
untouched (an existing file keeps its old content).

A process killed mid-write leaves at most a hidden temporary file named
`.<name>.<random>.tmp` beside the destination, never a partial file under the
destination's name.

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
import os
import tempfile
import threading
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = [
    "TEMP_SUFFIX",
    "FileImage",
    "atomic_write",
    "atomic_write_chunks",
    "fsync_directory",
]

TEMP_SUFFIX = ".tmp"
"""Suffix of the temporary files `atomic_write` creates (they also start with a dot)."""


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
    final, temp, fd = _temporary(path)
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        _discard(temp)
        raise
    _commit(temp, final, mode)


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
    final, temp, fd = _temporary(path)
    try:
        try:
            size = _write_direct(temp, fd, iter(chunks))
        finally:
            os.close(fd)
    except BaseException:
        _discard(temp)
        raise
    _commit(temp, final, mode)
    return size


def _temporary(path: str | os.PathLike[str]) -> tuple[str, str, int]:
    """Check the destination; create the temporary file beside it: (final, temp, fd)."""
    final = os.path.abspath(os.fspath(path))
    directory, name = os.path.split(final)
    if not os.path.isdir(directory):
        raise FileNotFoundError(
            f"cannot write {final!r}: its directory {directory!r} does not exist"
        )
    if os.path.isdir(final):
        raise IsADirectoryError(
            f"cannot write {final!r}: it is a directory, expected a file name"
        )
    fd, temp = tempfile.mkstemp(prefix=f".{name}.", suffix=TEMP_SUFFIX, dir=directory)
    return final, temp, fd


def _discard(temp: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)


def _commit(temp: str, final: str, mode: int) -> None:
    """Give the written, synced temporary file its mode and name; sync the directory."""
    try:
        os.chmod(temp, mode)
        os.replace(temp, final)
    except BaseException:
        _discard(temp)
        raise
    fsync_directory(os.path.dirname(final))


_Bytes = np.ndarray[Any, np.dtype[np.uint8]]
_ALIGN = 4096  # covers 512-byte and 4 KiB logical blocks
_STAGE_BYTES = 8 << 20
_stages = threading.local()


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
            self._buffer[offset : offset + len(view)] = (
                view  # numpy copies without the GIL
            )
            offset += len(view)
        self.size = size
        return size

    def view(self) -> memoryview:
        """The image's bytes (a view of the buffer: valid until the next `fill`)."""
        return self._buffer[: self.size].data

    def write(self, path: str | os.PathLike[str], *, mode: int = 0o400) -> int:
        """Write the image to `path` atomically and durably (as `atomic_write_chunks`); return its size."""
        final, temp, fd = _temporary(path)
        try:
            try:
                direct = _open_direct(temp)
                try:
                    through = _flush(
                        fd if direct is None else direct, fd, self._buffer, self.size, 0
                    )
                    _sync(through, fd, self.size)
                finally:
                    if direct is not None:
                        os.close(direct)
            finally:
                os.close(fd)
        except BaseException:
            _discard(temp)
            raise
        _commit(temp, final, mode)
        return self.size


def _write_direct(temp: str, fd: int, chunks: Iterator[bytes | memoryview]) -> int:
    """Write `chunks` to the file `fd` (opened on `temp`), then sync it; return the size.

    The data is staged in aligned blocks and written through a second descriptor
    opened with `O_DIRECT`; the tail block is padded and the file truncated to
    its true size. If the file system refuses `O_DIRECT` (at open or at the
    first write), everything goes through `fd` instead, buffered.
    """
    direct = _open_direct(temp)
    if (
        direct is None
    ):  # no staging needed: the kernel copies each chunk as it is written
        return _write_buffered(fd, chunks)
    stage, fill, size, through = _stage(), 0, 0, direct
    try:
        for chunk in chunks:
            data = np.frombuffer(chunk, np.uint8)
            while len(data):
                n = min(len(data), len(stage) - fill)
                stage[fill : fill + n] = data[:n]  # numpy copies without the GIL
                fill, data = fill + n, data[n:]
                if fill == len(stage):
                    through = _flush(through, fd, stage, fill, size)
                    size, fill = size + fill, 0
        through = _flush(through, fd, stage, fill, size)
        size += fill
        _sync(through, fd, size)
    finally:
        os.close(direct)
    return size


def _write_buffered(fd: int, chunks: Iterator[bytes | memoryview]) -> int:
    """Write `chunks` to `fd` straight from their buffers, then sync it; return the size."""
    size = 0
    for chunk in chunks:
        view = memoryview(chunk).cast("B")
        _write_all(fd, view, size)
        size += len(view)
    os.fsync(fd)
    return size


def _open_direct(temp: str) -> int | None:
    flag = getattr(os, "O_DIRECT", 0)
    if not flag:
        return None
    try:
        return os.open(temp, os.O_WRONLY | flag)
    except OSError as error:
        if error.errno == errno.EINVAL:  # the file system does not do direct I/O
            return None
        raise


def _flush(through: int, fd: int, stage: _Bytes, fill: int, offset: int) -> int:
    """Write the first `fill` staged bytes at `offset` through the descriptor `through`.

    `through` is the `O_DIRECT` descriptor (the tail is padded to a whole block)
    or `fd`. Returns the descriptor to use from now on: `fd` if the file system
    refused the first direct write (nothing is on disk yet, so nothing is lost).
    """
    if through != fd:
        padded = -(-fill // _ALIGN) * _ALIGN
        stage[fill:padded] = 0
        try:
            _write_all(through, stage[:padded].data, offset)
            return through
        except OSError as error:
            if error.errno != errno.EINVAL or offset:
                raise
    _write_all(fd, stage[:fill].data, offset)
    return fd


def _sync(through: int, fd: int, size: int) -> None:
    """Cut a direct write's padding off the file (`size` bytes) and fsync it."""
    if through != fd:
        os.ftruncate(through, size)
    os.fsync(through)


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
