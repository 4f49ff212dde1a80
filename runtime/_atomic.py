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
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["TEMP_SUFFIX", "atomic_write", "fsync_directory"]

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
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temp, mode)
        os.replace(temp, final)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    fsync_directory(directory)


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
