"""One object-store destination (`s3://`, `gs://`, `az://`, `file://`, `memory://`) over obstore's sync API.

obstore's async API runs on asyncio only; its sync API is thread-safe and releases
the GIL, so callers on any anyio backend run these methods in worker threads
(`anyio.to_thread.run_sync`). Nothing here retries: obstore's own request retries
are kept short, and the uploader retries whole files with backoff.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from cadence import CadenceError

if TYPE_CHECKING:
    from obstore.store import ObjectStore as ObstoreStore

__all__ = [
    "SCHEMES",
    "ChecksumMismatchError",
    "ObjectStore",
    "is_transient",
    "open_store",
]

SCHEMES = ("s3", "gs", "az", "file", "memory")
"""Destination schemes cadence accepts (obstore also spells Azure `abfs`, `abfss`, `azure`, `adl`)."""
_AZURE_ALIASES = ("abfs", "abfss", "azure", "adl")
_MEMORY_STORES: dict[str, Any] = {}  # memory://<name> -> one MemoryStore per process
_MEMORY_LOCK = threading.Lock()
_READ_CHUNK = 8 << 20
# A failed request is retried by obstore a few times within this bound (a lost part of a
# multipart upload need not restart the file); longer outages are the uploader's to retry.
_REQUEST_RETRIES: dict[str, Any] = {
    "max_retries": 2,
    "retry_timeout": timedelta(seconds=10),
    "backoff": {
        "init_backoff": timedelta(milliseconds=100),
        "max_backoff": timedelta(seconds=2),
        "base": 2,
    },
}


class ChecksumMismatchError(CadenceError):
    """The stored copy of a file does not have the bytes that were uploaded."""


def is_transient(exc: BaseException) -> bool:
    """Return whether retrying the operation that raised `exc` may succeed.

    Refused credentials, missing permissions, invalid paths and unsupported
    operations are permanent, and so is a local file that is gone; connection
    failures, time-outs, server errors (obstore's `GenericError`) and a checksum
    mismatch are transient.
    """
    from obstore import exceptions as obx

    permanent = (
        obx.PermissionDeniedError,
        obx.UnauthenticatedError,
        obx.InvalidPathError,
        obx.NotSupportedError,
        obx.UnknownConfigurationKeyError,
        obx.AlreadyExistsError,
        obx.PreconditionError,
        obx.NotModifiedError,
        FileNotFoundError,
        IsADirectoryError,
        PermissionError,
        ValueError,
        TypeError,
    )
    if isinstance(exc, ChecksumMismatchError):
        return True
    if isinstance(exc, permanent):
        return False
    return isinstance(exc, obx.GenericError | obx.BaseError | OSError | TimeoutError)


class ObjectStore:
    """A destination: an obstore store and the key prefix under it; every method is synchronous and thread-safe.

    Args:
        store: An obstore store (`S3Store`, `GCSStore`, `AzureStore`, `LocalStore`, `MemoryStore`).
        url: The destination URL keys are relative to (used to name stored objects).
        prefix: Key prefix added here (obstore stores built from a URL carry their own).
    """

    def __init__(self, store: ObstoreStore, url: str, prefix: str = "") -> None:
        self.store = store
        self.url = url.rstrip("/")
        self.prefix = prefix.strip("/")

    def key(self, name: str) -> str:
        """Return the store key of `name` (a path relative to the destination)."""
        name = name.strip("/")
        return f"{self.prefix}/{name}" if self.prefix else name

    def url_of(self, name: str) -> str:
        """Return the URL of `name`, e.g. `s3://bucket/run/CKP-1_5.ckpt`."""
        return f"{self.url}/{name.strip('/')}"

    def put_file(
        self, name: str, path: str, *, chunk_size: int, max_concurrency: int
    ) -> str | None:
        """Upload the local file `path` as `name` (multipart above `chunk_size`), atomically; return the ETag."""
        import obstore

        with open(path, "rb") as file:
            result = obstore.put(
                self.store,
                self.key(name),
                file,
                chunk_size=chunk_size,
                max_concurrency=max_concurrency,
            )
        return result.get("e_tag")

    def put_bytes(self, name: str, data: bytes) -> None:
        """Store `data` as `name` (a single atomic put)."""
        import obstore

        obstore.put(self.store, self.key(name), data, use_multipart=False)

    def get_bytes(self, name: str) -> bytes | None:
        """Return the bytes of `name`, or None when there is no such object."""
        import obstore

        try:
            return bytes(obstore.get(self.store, self.key(name)).bytes())
        except FileNotFoundError:
            return None

    def size(self, name: str) -> int | None:
        """Return the stored size of `name`, or None when there is no such object."""
        import obstore

        try:
            return int(obstore.head(self.store, self.key(name))["size"])
        except FileNotFoundError:
            return None

    def sha256(self, name: str) -> tuple[str, int]:
        """Read `name` back and return the sha256 hex digest and size of its bytes.

        Raises:
            FileNotFoundError: There is no such object.
        """
        import obstore

        digest, size = hashlib.sha256(), 0
        for chunk in obstore.get(self.store, self.key(name)).stream(
            min_chunk_size=_READ_CHUNK
        ):
            digest.update(chunk)
            size += len(chunk)
        return digest.hexdigest(), size

    def download(self, name: str, path: str) -> tuple[str, int]:
        """Copy `name` to the local file `path` atomically (temporary file, fsync, rename); return sha256 and size."""
        import obstore

        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        fd, temp = tempfile.mkstemp(
            prefix=f".{os.path.basename(path)}.", suffix=".download", dir=directory
        )
        digest, size = hashlib.sha256(), 0
        try:
            with os.fdopen(fd, "wb") as file:
                for chunk in obstore.get(self.store, self.key(name)).stream(
                    min_chunk_size=_READ_CHUNK
                ):
                    view = memoryview(chunk)
                    file.write(view)
                    digest.update(view)
                    size += len(view)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
            raise
        return digest.hexdigest(), size

    def delete(self, name: str) -> None:
        """Delete `name`; deleting a missing object is not an error."""
        import obstore

        with contextlib.suppress(FileNotFoundError):
            obstore.delete(self.store, self.key(name))

    def list(self) -> list[dict[str, Any]]:
        """Return the metadata (`path` relative to the destination, `size`, `last_modified`) of every object."""
        import obstore

        prefix = self.prefix
        found = []
        for batch in obstore.list(self.store, prefix or None):
            for meta in batch:
                item = dict(meta)
                key = str(item["path"])
                item["path"] = (
                    key[len(prefix) + 1 :]
                    if prefix and key.startswith(prefix + "/")
                    else key
                )
                found.append(item)
        return found

    def __repr__(self) -> str:
        return f"<ObjectStore {self.url!r}>"


def open_store(
    destination: str,
    *,
    endpoint: str | None = None,
    access_key_id: str | None = None,
    secret_access_key: str | None = None,
    region: str | None = None,
    allow_http: bool | None = None,
    config: dict[str, Any] | None = None,
    client_options: dict[str, Any] | None = None,
    owner: str = "open_store",
) -> ObjectStore:
    """Build the store a destination URL names, from explicit options first and the environment second.

    obstore reads the standard variables itself for whatever is not given:
    `AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ALLOW_HTTP` for `s3://`;
    `GOOGLE_SERVICE_ACCOUNT` / `GOOGLE_APPLICATION_CREDENTIALS` for `gs://`;
    `AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY` (and the other
    `AZURE_*` names) for `az://`.

    Args:
        destination: `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`,
            `file:///absolute/dir` (created if missing) or `memory://name/prefix` (one
            in-memory store per name, shared within the process).
        endpoint: S3: the endpoint URL (an `http://` one implies `allow_http`); Azure: the endpoint.
        access_key_id: S3 access key id.
        secret_access_key: S3 secret access key.
        region: S3 region.
        allow_http: Allow plain-HTTP endpoints.
        config: Further store configuration keys as obstore names them (e.g.
            `{"service_account_path": ...}` for GCS, `{"account_name": ..., "account_key": ...}` for Azure).
        client_options: obstore HTTP client options (`timeout`, `connect_timeout`, ...).
        owner: Name used in error messages.

    Raises:
        ValueError: The URL's scheme is not one of `s3`, `gs`, `az`, `file`, `memory`, or it has no bucket.
        TypeError: An option has the wrong type.
    """
    if not isinstance(destination, str):
        raise TypeError(
            f"For '{owner}', the argument 'destination' must be a str URL, but got {destination!r} of type "
            f"{type(destination).__name__!r}."
        )
    parts = urlsplit(destination)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES and scheme not in _AZURE_ALIASES and scheme != "s3a":
        raise ValueError(
            f"For '{owner}', the argument 'destination' must be an 's3://', 'gs://', 'az://', 'file://' or "
            f"'memory://' URL, but got {destination!r}."
        )
    for name, value in (
        ("endpoint", endpoint),
        ("access_key_id", access_key_id),
        ("secret_access_key", secret_access_key),
        ("region", region),
    ):
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"For '{owner}', the argument '{name}' must be a str or None, but got {value!r}."
            )
    if allow_http is not None and not isinstance(allow_http, bool):
        raise TypeError(
            f"For '{owner}', the argument 'allow_http' must be a bool or None, but got {allow_http!r}."
        )
    for name, mapping in (("config", config), ("client_options", client_options)):
        if mapping is not None and not isinstance(mapping, dict):
            raise TypeError(
                f"For '{owner}', the argument '{name}' must be a dict or None, but got {mapping!r}."
            )
    if scheme == "memory":
        return _memory_store(parts.netloc, parts.path)
    if scheme == "file":
        return _local_store(destination, parts.netloc, parts.path, owner)
    if not parts.netloc:
        raise ValueError(
            f"For '{owner}', the argument 'destination' must name a bucket or container, e.g. "
            f"'{scheme}://bucket/prefix', but got {destination!r}."
        )
    from obstore.store import from_url

    options: dict[str, Any] = dict(config or {})
    client: dict[str, Any] = dict(client_options or {})
    if scheme in ("s3", "s3a"):
        given = {
            "endpoint": endpoint,
            "access_key_id": access_key_id,
            "secret_access_key": secret_access_key,
            "region": region,
        }
        options.update(
            {key: value for key, value in given.items() if value is not None}
        )
        if (
            allow_http is None
            and endpoint is not None
            and endpoint.startswith("http://")
        ):
            allow_http = True
    elif endpoint is not None:
        options["endpoint"] = endpoint
    if allow_http is not None:
        client["allow_http"] = allow_http
    from obstore.exceptions import BaseError

    try:
        build: Any = from_url  # one call for every scheme: the overloads are per scheme
        store = build(
            destination.rstrip("/"), config=options or None, client_options=client or None,
            retry_config=_REQUEST_RETRIES,
        )  # fmt: skip
    except BaseError as exc:
        raise ValueError(
            f"For '{owner}', the store for 'destination' {destination!r} cannot be configured from the given "
            f"options and the environment: {str(exc).strip().splitlines()[0]}"
        ) from exc
    return ObjectStore(store, destination)


def _memory_store(name: str, path: str) -> ObjectStore:
    from obstore.store import MemoryStore

    with _MEMORY_LOCK:
        store = _MEMORY_STORES.get(name)
        if store is None:
            store = _MEMORY_STORES[name] = MemoryStore()
    return ObjectStore(store, f"memory://{name}/{path.strip('/')}", prefix=path)


def _local_store(destination: str, host: str, path: str, owner: str) -> ObjectStore:
    from obstore.store import LocalStore

    if host not in ("", "localhost") or not path.startswith("/"):
        raise ValueError(
            f"For '{owner}', the argument 'destination' must be an absolute path for 'file://', such as "
            "'file:///data/ckpt', but got "
            f"{destination!r}."
        )
    Path(path).mkdir(parents=True, exist_ok=True)
    return ObjectStore(LocalStore(path), f"file://{path.rstrip('/')}")
