"""Read checkpoints back from object storage: list them, download one (the latest by default)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cadence import CheckpointUploaded, decode_event

from ._object_store import ChecksumMismatchError, ObjectStore, open_store

if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "LATEST_POINTER",
    "RemoteCheckpoint",
    "download_checkpoint",
    "list_remote_checkpoints",
]

LATEST_POINTER = "cadence-latest.json"
"""Object rewritten after every confirmed upload: the `CheckpointUploaded` event (JSON) of the newest copy."""

_EXTENSIONS = (".ckpt", ".safetensors")


@dataclass(frozen=True)
class RemoteCheckpoint:
    """A checkpoint object in a store.

    Attributes:
        name: Its name relative to the destination (e.g. `mlp-1_50.ckpt`).
        url: Its full URL.
        size: Size in bytes.
        last_modified: When the store last wrote it.
    """

    name: str
    url: str
    size: int
    last_modified: datetime


def _store(source: str, store: Any, options: dict[str, Any], owner: str) -> ObjectStore:
    if store is None:
        return open_store(source, owner=owner, **options)
    if isinstance(store, ObjectStore):
        return store
    return ObjectStore(store, source)


def list_remote_checkpoints(
    source: str, *, store: Any = None, **options: Any
) -> list[RemoteCheckpoint]:
    """Return the checkpoint objects (`.ckpt`, `.safetensors`) directly under `source`, oldest first.

    Args:
        source: A destination URL as `CheckpointUploader` takes it.
        store: Use this store instead of building one from `source`.
        **options: Store options as `CheckpointUploader` takes them (`endpoint`,
            `access_key_id`, `secret_access_key`, `region`, `allow_http`, `config`, `client_options`).

    Example:
        >>> from cadence.callbacks import list_remote_checkpoints
        >>> [c.name for c in list_remote_checkpoints("s3://my-bucket/runs/mlp")]  # doctest: +SKIP
        ['mlp-1_50.ckpt', 'mlp-1_100.ckpt']
    """
    objects = _store(source, store, options, "list_remote_checkpoints")
    found = [
        RemoteCheckpoint(
            name=str(meta["path"]),
            url=objects.url_of(str(meta["path"])),
            size=int(meta["size"]),
            last_modified=meta["last_modified"],
        )
        for meta in objects.list()
        if "/" not in str(meta["path"]) and str(meta["path"]).endswith(_EXTENSIONS)
    ]
    return sorted(found, key=lambda c: (c.last_modified, c.name))


def download_checkpoint(
    source: str,
    directory: str,
    *,
    name: str | None = None,
    store: Any = None,
    **options: Any,
) -> str:
    """Download a checkpoint from object storage into `directory` and return its local path.

    Without `name`, the newest checkpoint a `CheckpointUploader` confirmed (its
    `cadence-latest.json` pointer) is taken, else the most recently modified
    checkpoint object. The file is written atomically and, when the pointer gives
    its sha256, verified; an existing local file of the same name is replaced.

    Args:
        source: A destination URL as `CheckpointUploader` takes it.
        directory: Local directory for the file (created if missing).
        name: The object's name relative to `source` (e.g. `backup.ckpt`).
        store: Use this store instead of building one from `source`.
        **options: Store options as `CheckpointUploader` takes them.

    Raises:
        FileNotFoundError: `source` holds no checkpoint, or no object `name`.
        ChecksumMismatchError: The downloaded bytes do not match the digest the uploader recorded.

    Example:
        >>> from cadence import load_checkpoint
        >>> from cadence.callbacks import download_checkpoint
        >>> path = download_checkpoint("s3://my-bucket/runs/mlp", "./restore")  # doctest: +SKIP
        >>> params = load_checkpoint(path)  # doctest: +SKIP
    """
    given: Any = directory  # checked at run time: callers may pass anything
    if not isinstance(given, str) or not given.strip():
        raise ValueError(
            f"For 'download_checkpoint', the argument 'directory' must be a non-blank str path, but got {directory!r}."
        )
    wanted: Any = name
    if wanted is not None and (not isinstance(wanted, str) or not wanted.strip("/")):
        raise ValueError(
            f"For 'download_checkpoint', the argument 'name' must be a non-blank str, but got {name!r}."
        )
    objects = _store(source, store, options, "download_checkpoint")
    expected: str | None = None
    if name is None:
        name, expected = _latest(objects, source)
    else:
        pointer = _pointer(objects)
        if pointer is not None and pointer.url == objects.url_of(name):
            expected = pointer.sha256
    target = os.path.join(os.path.abspath(directory), os.path.basename(name))
    try:
        digest, _ = objects.download(name, target)
    except FileNotFoundError:
        raise FileNotFoundError(
            f"There is no checkpoint {objects.url_of(name)!r}."
        ) from None
    if expected is not None and digest != expected:
        os.remove(target)
        raise ChecksumMismatchError(
            f"The checkpoint downloaded from {objects.url_of(name)!r} has sha256 {digest}, but {expected} was uploaded."
        )
    return target


def _pointer(objects: ObjectStore) -> CheckpointUploaded | None:
    data = objects.get_bytes(LATEST_POINTER)
    if data is None:
        return None
    try:
        event = decode_event(data.strip())
    except Exception:
        return None
    return event if isinstance(event, CheckpointUploaded) else None


def _latest(objects: ObjectStore, source: str) -> tuple[str, str | None]:
    pointer = _pointer(objects)
    base = objects.url + "/"
    if (
        pointer is not None
        and pointer.url.startswith(base)
        and objects.size(pointer.url[len(base) :]) is not None
    ):
        return pointer.url[len(base) :], pointer.sha256
    found = list_remote_checkpoints(source, store=objects)
    if not found:
        raise FileNotFoundError(f"There is no checkpoint in {objects.url!r}.")
    return found[-1].name, None
