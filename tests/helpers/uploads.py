"""What the checkpoint-upload tests share: a callback that saves files, a store that fails midway.

Used by the `CheckpointUploader` tests on memory, local, S3 and Azure stores and by the
store-credential tests; a child process imports it too (with the repository root on `sys.path`).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

import obstore

from cadence import Callback, CheckpointSaved, CheckpointUploaded, Model, RunContext
from cadence.callbacks import ObjectStore
from cadence.testing import ListDataset, constant_network

__all__ = ["FailsReadingMidway", "Saver", "WatchedStore", "run", "sha"]


class Saver(Callback):
    """Writes a `size`-byte checkpoint file every `every` steps and publishes `CheckpointSaved`, as ModelCheckpoint does."""

    def __init__(self, directory: Path, every: int = 1, size: int = 2048) -> None:
        self.directory = directory
        self.every = every
        self.size = size
        self.paths: list[str] = []

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        step = cb.cur_step_num
        if step % self.every:
            return
        path = str(self.directory / f"ck-{step}.ckpt")
        block = hashlib.sha256(path.encode()).digest()  # each file's bytes differ
        data = (block * (self.size // len(block) + 1))[: self.size]
        Path(path).write_bytes(data)
        self.paths.append(path)
        run_context.publish(
            CheckpointSaved(
                path=path, epoch=cb.cur_epoch_num, step=step, format="ckpt", size_bytes=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
            )
        )  # fmt: skip


def run(callbacks: list[Any], steps: int) -> list[CheckpointUploaded]:
    """Train one epoch of `steps` steps with `callbacks`; return the `CheckpointUploaded` events."""
    model = Model(constant_network())
    seen: list[CheckpointUploaded] = []
    model.bus.subscribe(CheckpointUploaded, seen.append)
    model.train(1, ListDataset.of_steps(steps), callbacks=callbacks)
    return seen


def sha(path: str) -> str:
    """The SHA-256 of the file at `path`, in hex."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


class FailsReadingMidway(ObjectStore):
    """A store whose uploads read the file through a reader that fails after the first 5 MiB part."""

    def put_file(
        self, name: str, path: str, *, chunk_size: int, max_concurrency: int
    ) -> str | None:
        with open(path, "rb") as file:

            class Reader:
                def read(self, n: int = -1) -> bytes:
                    if file.tell() >= 5 << 20:
                        raise OSError("disk read failed")
                    return file.read(n)

                def seek(self, offset: int, whence: int = 0) -> int:
                    return file.seek(offset, whence)

                def tell(self) -> int:
                    return file.tell()

            obstore.put(self.store, self.key(name), Reader(), chunk_size=chunk_size)  # type: ignore[arg-type]
        return None


class WatchedStore(ObjectStore):
    """The store of `base`, whose puts wait for `gate` (when given) and set `failed` when one raises."""

    def __init__(
        self, base: ObjectStore, *, gate: threading.Event | None = None
    ) -> None:
        super().__init__(base.store, base.url)
        self.gate = gate
        self.failed = threading.Event()

    def put_file(
        self, name: str, path: str, *, chunk_size: int, max_concurrency: int
    ) -> str | None:
        if self.gate is not None:
            assert self.gate.wait(60), "the store's gate never opened"
        try:
            return super().put_file(
                name, path, chunk_size=chunk_size, max_concurrency=max_concurrency
            )
        except Exception:
            self.failed.set()
            raise
