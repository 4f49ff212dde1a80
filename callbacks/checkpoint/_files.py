"""Checkpoint file names, directories, prefix de-duplication and retention choices (no I/O policy here).

The rules are MindSpore's (reference §7.3.2-§7.3.4): a file of prefix `P` is
`P-<epoch>_<step in epoch>.<format>`; the files a `ModelCheckpoint` manages are
those named `P-<no letters>.<format>`; prefix de-duplication looks at every
`.ckpt`/`.safetensors` file that starts with `P` followed by a non-letter.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from typing import Any

from cadence import atomic_write
from cadence.validation import check_type

__all__ = [
    "BREAKPOINT_SUFFIX",
    "InFlight",
    "atomic_write_text",
    "check_directory",
    "check_prefix",
    "dedup_prefix",
    "ensure_directory",
    "file_sha256",
    "latest_checkpoint",
    "managed_files",
    "oldest_first",
    "step_in_epoch",
]

BREAKPOINT_SUFFIX = "_breakpoint.ckpt"
_CHECKPOINT_EXTENSIONS = (".ckpt", ".safetensors")
_SUFFIX_NUMBER = re.compile(r"_(\d+)-")
_EPOCH_STEP = re.compile(r"-(\d+)_(\d+)(?:_breakpoint)?\.(?:ckpt|safetensors)$")


def check_prefix(prefix: Any, owner: str) -> None:
    """Raise ValueError unless `prefix` is callable or a str without '/'."""
    if callable(prefix):
        return
    if not isinstance(prefix, str) or "/" in prefix:
        raise ValueError(
            f"For '{owner}', the argument 'prefix' for checkpoint file name is invalid: it must be callable or a "
            f"str that does not contain '/', but got {prefix!r}."
        )


def check_directory(path: Any, owner: str, name: str) -> str:
    """Return `path` as an absolute path; raise as MindSpore's path check (TypeError, ValueError, NotADirectoryError)."""
    if not isinstance(path, str):
        raise TypeError(
            f"For '{owner}', the argument '{name}' must be a str path, but got {path!r} of type {type(path).__name__!r}."
        )
    if not path.strip():
        raise ValueError(
            f"For '{owner}', the argument '{name}' must be a non-blank path, but got {path!r}."
        )
    absolute = os.path.realpath(os.path.expanduser(path))
    if os.path.exists(absolute) and not os.path.isdir(absolute):
        raise NotADirectoryError(
            f"For '{owner}', the argument '{name}' must be a directory, but {absolute!r} is a file."
        )
    return absolute


def ensure_directory(path: Any, owner: str, name: str) -> str:
    """Check `path` (see `check_directory`), create it with mode 0o700 if missing, and return it."""
    absolute = check_directory(path, owner, name)
    try:
        os.makedirs(absolute, mode=0o700, exist_ok=True)
    except OSError as exc:  # the same class, with the argument named
        raise type(exc)(
            exc.errno,
            f"For '{owner}', the argument '{name}' must name a directory that exists or can be "
            f"created, but {absolute!r} cannot be: {exc.strerror}",
        ) from exc
    return absolute


def dedup_prefix(directory: str, prefix: str, *, breakpoints: bool = False) -> str:
    """Return `prefix`, or `prefix_<n>` when files of `prefix` (or of `prefix_<k>`, k < n) exist.

    With `breakpoints`, only `*_breakpoint.ckpt` files count; otherwise they are skipped.
    """
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return prefix
    highest = 0
    for name in names:
        is_breakpoint = name.endswith(BREAKPOINT_SUFFIX)
        if (
            is_breakpoint != breakpoints
            or os.path.splitext(name)[1] not in _CHECKPOINT_EXTENSIONS
        ):
            continue
        if not name.startswith(prefix) or name[len(prefix) : len(prefix) + 1].isalpha():
            continue
        rest = name[len(prefix) :]
        if rest.startswith("-"):
            highest = max(highest, 1)
        else:
            match = _SUFFIX_NUMBER.match(rest)
            if match is not None:
                highest = max(highest, int(match.group(1)) + 1)
    return f"{prefix}_{highest}" if highest else prefix


def managed_files(directory: str, prefix: str, format: str) -> list[str]:
    """Return the paths retention manages: `<prefix>-<no letters>.<format>` in `directory`."""
    extension = "." + format
    start = prefix + "-"
    found = []
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    for name in names:
        if name.endswith(extension) and name.startswith(start):
            middle = name[len(prefix) : -len(extension)]
            if not any(ch.isalpha() for ch in middle):
                found.append(os.path.join(directory, name))
    return found


def _epoch_step(name: str) -> tuple[int, int]:
    """(epoch, step in epoch) from a MindSpore checkpoint name `...-<epoch>_<step>.<format>`, else (-1, -1)."""
    match = _EPOCH_STEP.search(name)
    return (int(match[1]), int(match[2])) if match else (-1, -1)


def latest_checkpoint(directory: str, prefix: str | None = None) -> str | None:
    """Return the path of the most recently committed checkpoint in `directory`, or None if it holds none.

    Every checkpoint file is committed by a rename from a hidden temporary file,
    so a file under its final name is complete and its modification time is its
    commit time: no pointer file is needed beside the checkpoints. Ties (file
    systems with coarse times) go to the later epoch and step in the name.

    Args:
        directory: The checkpoint directory.
        prefix: Only files `<prefix>-<epoch>_<step>.<format>` (and other names
            `ModelCheckpoint` manages for that prefix); None: every `.ckpt` and
            `.safetensors` file.

    Raises:
        TypeError: `directory` or `prefix` is not a str.

    Example:
        >>> import tempfile
        >>> latest_checkpoint(tempfile.mkdtemp()) is None
        True
    """
    check_type(directory, "directory", str, "latest_checkpoint")
    check_type(prefix, "prefix", (str, type(None)), "latest_checkpoint")
    if prefix is None:
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            return None
        paths = [
            os.path.join(directory, n)
            for n in names
            if n.endswith(_CHECKPOINT_EXTENSIONS) and not n.startswith(".")
        ]
    else:
        paths = [
            p
            for fmt in ("ckpt", "safetensors")
            for p in managed_files(directory, prefix, fmt)
        ]
    best: tuple[int, tuple[int, int], str] | None = None
    for path in paths:
        try:
            mtime = os.stat(path).st_mtime_ns
        except FileNotFoundError:  # deleted by retention meanwhile
            continue
        key = (mtime, _epoch_step(os.path.basename(path)), path)
        if best is None or key > best:
            best = key
    return None if best is None else best[2]


def oldest_first(paths: list[str], order: dict[str, int]) -> list[str]:
    """Sort `paths` by modification time, ties broken by our own commit order (`order`).

    When every path is one this process committed (in `order`), commit order is
    modification order and no file is stat'ed: retention runs beside training,
    where every system call costs the training thread a GIL handover.
    """
    if all(path in order for path in paths):
        return sorted(paths, key=order.__getitem__)

    def key(path: str) -> tuple[int, int, str]:
        try:
            mtime = os.stat(path).st_mtime_ns
        except FileNotFoundError:
            mtime = -1
        return (mtime, order.get(path, -1), path)

    return sorted(paths, key=key)


def step_in_epoch(cur_step_num: int, batch_num: int) -> int:
    """Return MindSpore's step within the epoch, `(cur_step_num - 1) % batch_num + 1`."""
    return (cur_step_num - 1) % batch_num + 1 if batch_num > 0 else cur_step_num


def file_sha256(path: str) -> str:
    """Return the hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def atomic_write_text(path: str, text: str, *, mode: int = 0o644) -> None:
    """Write `text` to `path` atomically (see `cadence.atomic_write`)."""
    with atomic_write(path, mode=mode) as file:
        file.write(text.encode("utf-8"))


class InFlight:
    """The process-wide set of checkpoint paths being written; retention never deletes them.

    Two `ModelCheckpoint`s may share a directory and a prefix (MindSpore gives two
    instances created before either trains the same prefix), so one's retention
    must not remove a file the other is still writing.
    """

    _lock = threading.Lock()
    _paths: set[str] = set()  # noqa: RUF012 - deliberately shared by all instances

    @classmethod
    def add(cls, path: str) -> None:
        """Mark `path` as being written."""
        with cls._lock:
            cls._paths.add(path)

    @classmethod
    def discard(cls, path: str) -> None:
        """Mark `path` as committed (or abandoned)."""
        with cls._lock:
            cls._paths.discard(path)

    @classmethod
    def contains(cls, path: str) -> bool:
        """Return whether `path` is being written."""
        with cls._lock:
            return path in cls._paths
