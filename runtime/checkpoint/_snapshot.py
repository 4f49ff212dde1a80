"""`CheckpointSnapshot`: capture a checkpoint in memory now, write it to a file later."""

from __future__ import annotations

import contextlib
import itertools
import threading
import zlib
from typing import TYPE_CHECKING, Any

from . import _ckpt_format
from ._atomic import FileImage
from ._serialization import (
    _check_append_dict,
    _check_bool,
    _check_callable,
    _check_format,
    _check_save_obj,
    _checkpoint_path,
    checkpoint_chunks,
)

if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Iterator

__all__ = ["CheckpointSnapshot"]


class CheckpointSnapshot:
    """A checkpoint's bytes, captured in memory at one moment and written to a file later.

    `capture` serializes the parameters into a page-aligned buffer (one copy
    of their bytes: training can change them as soon as it returns); `write`
    commits those bytes to a file from any thread, as `save_checkpoint` does:
    atomically (a temporary file, fsync, rename, directory fsync) and, where
    the file system allows it, with `O_DIRECT` straight from the buffer. A
    snapshot is reusable: its buffer stays mapped from one capture to the
    next, which spares the CPU the page faults of fresh memory (the buffer
    grows when a capture needs more). This is how `ModelCheckpoint` saves
    without stalling the step; a callback of yours can do the same.

    Capturing and writing the same snapshot at once is an error (it raises
    `RuntimeError`); keep one snapshot per file in flight.

    Example:
        >>> from cadence import CheckpointSnapshot, load_checkpoint, nn
        >>> import os, tempfile
        >>> net = nn.Dense(3, 2)
        >>> snapshot = CheckpointSnapshot()
        >>> snapshot.capture(net, append_dict={"step_num": 7})
        >>> path = os.path.join(tempfile.mkdtemp(), "net.ckpt")
        >>> snapshot.write(path) == snapshot.size == os.path.getsize(path)
        True
        >>> sorted(load_checkpoint(path))
        ['bias', 'step_num', 'weight']
    """

    def __init__(self) -> None:
        self._image = FileImage()
        self._format: str | None = None
        self._in_use = threading.Lock()
        # A `.ckpt` capture with crc_check leaves room for its CRC trailer, filled in by the
        # first `write`: the CRC pass runs in the writer's thread, not in the capturing one.
        self._crc_pending = False

    @property
    def format(self) -> str | None:
        """The format of the captured bytes (`"ckpt"` or `"safetensors"`); None before a capture."""
        return self._format

    @property
    def size(self) -> int:
        """Bytes captured: the size of the file `write` makes (0 before a capture)."""
        return self._image.size

    def capture(
        self,
        save_obj: Any,
        append_dict: dict[str, Any] | None = None,
        *,
        choice_func: Callable[[str], bool] | None = None,
        format: str = "ckpt",
        crc_check: bool = False,
    ) -> None:
        """Serialize `save_obj` (and `append_dict`) into this snapshot, replacing what it held.

        Args:
            save_obj: As in `save_checkpoint`: an `nn.Cell`, a list of `Parameter`
                or of `{"name": str, "data": Tensor | str}` dicts, or a dict of names
                to `Parameter`, `Tensor`, `numpy.ndarray` or str.
            append_dict: Extra entries after the parameters, as in `save_checkpoint`.
            choice_func: `choice_func(name) -> bool`; only names it accepts are saved.
            format: `"ckpt"` (MindSpore's container) or `"safetensors"`.
            crc_check: Store MindSpore's CRC-32 of the data, as `save_checkpoint` does.
                For `"ckpt"` the CRC is computed by `write` (in the writing thread).

        Raises:
            TypeError: A wrong type for an argument, an `append_dict` entry or a
                value that has no checkpoint dtype.
            ValueError: A bad `format`.
            RuntimeError: The snapshot is being written by another thread.
        """
        func = "CheckpointSnapshot.capture"
        _check_save_obj(func, save_obj)
        _check_append_dict(func, append_dict)
        format = _check_format(func, format)
        _check_callable(func, "choice_func", choice_func)
        _check_bool(func, "crc_check", crc_check)
        crc_later = crc_check and format == "ckpt"
        with self._exclusive(func):
            self._format = None
            chunks = checkpoint_chunks(
                func,
                save_obj,
                append_dict,
                choice_func,
                format,
                crc_check=crc_check and not crc_later,
            )
            if crc_later:  # a placeholder, the size of the trailer
                chunks = itertools.chain(
                    chunks, [bytes(_ckpt_format.CRC_TRAILER_BYTES)]
                )
            self._image.fill(chunks)
            self._crc_pending = crc_later
            self._format = format

    def write(self, ckpt_file_name: str | os.PathLike[str]) -> int:
        """Write the captured bytes to `ckpt_file_name` atomically and durably; return the file's size.

        `.ckpt` or `.safetensors` (after the captured format) is appended when the
        name does not end with it, as `save_checkpoint` does. An existing file is
        replaced. The snapshot keeps its bytes: it can be written again.

        Raises:
            TypeError: `ckpt_file_name` is not a str or path.
            IsADirectoryError: `ckpt_file_name` names a directory.
            FileNotFoundError: Its directory does not exist.
            RuntimeError: Nothing was captured yet, or another thread is capturing.
        """
        func = "CheckpointSnapshot.write"
        path = _checkpoint_path(func, ckpt_file_name)
        with self._exclusive(func):
            if self._format is None:
                raise RuntimeError(
                    f"For '{func}', there is nothing to write: call 'capture' first."
                )
            if not path.endswith("." + self._format):
                path += "." + self._format
            if self._crc_pending:
                view = self._image.view()
                body = len(view) - _ckpt_format.CRC_TRAILER_BYTES
                view[body:] = _ckpt_format.crc_trailer(zlib.crc32(view[:body]))
                self._crc_pending = False
            return self._image.write(path)

    @contextlib.contextmanager
    def _exclusive(self, func: str) -> Iterator[None]:
        if not self._in_use.acquire(blocking=False):
            raise RuntimeError(
                f"For '{func}', the snapshot is in use by another thread (a capture or write is running); "
                "use one snapshot per file in flight."
            )
        try:
            yield
        finally:
            self._in_use.release()
