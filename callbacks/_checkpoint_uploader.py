"""`CheckpointUploader`: copy every saved checkpoint to object storage from a worker subscriber."""

from __future__ import annotations

import os
import threading
import time
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio
import anyio.to_thread

from cadence import (
    Callback,
    CheckpointSaved,
    CheckpointUploaded,
    DrainTimeoutError,
    TrainEpochBegin,
    encode_event,
)
from cadence.validation import (
    check_bool,
    check_choice,
    check_number,
    check_positive_int,
    check_type,
)

from .checkpoint._files import file_sha256
from .upload._credentials import MissingCredentialsError, missing_credentials
from .upload._ledger import LedgerRecord, UploadLedger, default_ledger_path
from .upload._object_store import (
    ChecksumMismatchError,
    ObjectStore,
    is_transient,
    open_store,
)
from .upload._remote import LATEST_POINTER
from .upload._report import UploadIncompleteError, UploadIncompleteWarning, UploadReport

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from cadence import EventBus, RunContext, Subscription

__all__ = ["CheckpointUploader"]

_OWNER = "CheckpointUploader"
_MIN_PART = 5 << 20  # S3's smallest multipart part
_FIRST = -(
    2**62
)  # bus order of the ledger recorder: before every other CheckpointSaved subscriber
_WATCH_S = 0.05  # how often an upload in progress looks at the run-end deadline
_SAVED_BEFORE_SLACK_NS = 2_000_000_000  # file times may be coarse: treat files this close to the run start as ours

State = Literal[
    "queued", "uploading", "uploaded", "stored", "failed", "pending", "dropped"
]
_DELETABLE = frozenset({"uploaded", "stored", "dropped"})
T = TypeVar("T")


@dataclass
class _File:
    """One checkpoint file the uploader owes the store."""

    path: str
    name: str
    ledger: UploadLedger
    sha256: str | None
    size: int
    epoch: int | None
    step: int
    time_ns: int
    seq: int
    recovered: bool = False
    state: State = "queued"
    error: str | None = None
    attempts: int = 0
    seconds: float = 0.0

    def record(
        self, op: Any, destination: str, error: str | None = None
    ) -> LedgerRecord:
        return LedgerRecord(
            op=op, destination=destination, path=self.path, name=self.name, sha256=self.sha256, size=self.size,
            epoch=self.epoch, step=self.step, time_ns=self.time_ns, error=error,
        )  # fmt: skip


class _DeadlinePassedError(Exception):
    """The run-end deadline passed while a file was being uploaded."""


class CheckpointUploader(Callback):
    """Copy every saved checkpoint to object storage without making training wait.

    It subscribes to `CheckpointSaved` (published by `ModelCheckpoint`, or by you) as
    a worker with its own bounded queue, so uploads run off the training thread; a
    step waits only when that queue is full and `overflow="block"`. For each file:

    1. it is recorded as owed in the upload ledger (written in the publishing thread
       before anything is queued, made durable with fsync by the worker before upload);
    2. it is uploaded under its file name below `destination` in one atomic put,
       multipart above `chunk_size`: the object appears whole or not at all;
    3. the stored copy is verified: read back and compared by sha256 with the
       digest the checkpoint writer computed (`verify="sha256"`), or by size;
    4. transient failures (connection refused, time-outs, server errors, checksum
       mismatch) are retried with exponential backoff and jitter (stamina), up to
       `attempts` tries within `retry_timeout` seconds; refused credentials and
       other permanent errors are not retried;
    5. once confirmed: the ledger says so, `CheckpointUploaded` is published, the
       `cadence-latest.json` pointer object is rewritten, remote retention keeps
       the newest `keep_last` objects it uploaded, and local retention may delete
       the file.

    Local retention: every callback in the run with `add_deletion_gate` (a
    `ModelCheckpoint`) is asked to keep a file until its upload is confirmed, and,
    with `verify="sha256"`, to put each file's digest in its `CheckpointSaved`
    (`request_sha256`). Put the uploader after `ModelCheckpoint` in the callback list.

    At the end of the run the uploader gives queued and running uploads
    `drain_timeout` more seconds, then stops; `report` (also `cb_params.checkpoint_uploads`)
    says which files did not reach the store, and `on_incomplete` decides whether that
    warns (`UploadIncompleteWarning`), raises (`UploadIncompleteError`) or stays quiet.
    A run that failed gets the list as a note on its exception. Files left owed (a
    failure, the deadline, a crash or kill) stay in the ledger, and the next run with
    the same destination and ledger uploads them first, without re-uploading any
    already stored intact.

    Args:
        destination: `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`,
            `file:///dir` or `memory://name/prefix`.
        endpoint: S3 endpoint URL (else `AWS_ENDPOINT_URL`); an `http://` endpoint implies `allow_http`.
        access_key_id: S3 access key id (else `AWS_ACCESS_KEY_ID`).
        secret_access_key: S3 secret (else `AWS_SECRET_ACCESS_KEY`).
        region: S3 region (else `AWS_REGION`).
        allow_http: Allow plain-HTTP endpoints (else `AWS_ALLOW_HTTP`).
        store_config: Other store settings by obstore's names (GCS, Azure credentials, ...).
        client_options: obstore HTTP client options (`timeout`, `connect_timeout`, ...).
        allow_instance_metadata: Let obstore ask the cloud's instance-metadata endpoint for
            credentials when no other source is set. Off by default: a run whose destination
            has no credentials then fails at its beginning, naming the variables to set.
        store: Use this store instead of building one from `destination` (an obstore
            store, or a `cadence.callbacks` `ObjectStore`).
        verify: `"sha256"` (read the object back and compare digests) or `"size"`.
        attempts: Tries per file, the first included.
        retry_timeout: Seconds after which a file is not tried again; None: no limit.
        backoff: `(first, longest)` wait between tries, in seconds (jitter added).
        keep_last: Keep only the newest this many objects this uploader stored (per
            ledger), deleting older ones after each upload; None keeps all.
        queue_size: Checkpoints that may wait for upload before `overflow` applies.
        overflow: `"block"`, `"drop_oldest"`, `"latest"` or `"error"` (see `EventBus.subscribe`).
            Dropped files are not uploaded (the report lists them) and local retention may delete them.
        drain_timeout: Seconds uploads may go on after training ended; None: until done.
        ledger: Path of the ledger file; None: one per checkpoint directory, outside it
            (`default_ledger_path`: in the user's state directory).
        recover: Upload what the ledger says an earlier run still owed.
        chunk_size: Multipart part size in bytes (>= 5 MiB); smaller files go in one request.
        max_concurrency: Parts uploaded at once.
        on_incomplete: `"warn"`, `"raise"` or `"ignore"` when files did not reach the store.
        name: Subscriber name in bus statistics and errors.

    Raises:
        TypeError: An argument has the wrong type.
        ValueError: An argument is out of range or `destination` is not a supported URL.

    Example:
        >>> from cadence.callbacks import CheckpointConfig, CheckpointUploader, ModelCheckpoint
        >>> ckpt = ModelCheckpoint("mlp", "./ckpt", CheckpointConfig(save_checkpoint_steps=50, keep_checkpoint_max=3))  # doctest: +SKIP
        >>> upload = CheckpointUploader("s3://my-bucket/runs/mlp", keep_last=10)  # doctest: +SKIP
        >>> model.train(5, dataset, callbacks=[ckpt, upload])  # doctest: +SKIP
        >>> upload.report.not_uploaded  # doctest: +SKIP
        ()
    """

    def __init__(
        self,
        destination: str,
        *,
        endpoint: str | None = None,
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
        region: str | None = None,
        allow_http: bool | None = None,
        store_config: dict[str, Any] | None = None,
        client_options: dict[str, Any] | None = None,
        allow_instance_metadata: bool = False,
        store: Any = None,
        verify: str = "sha256",
        attempts: int = 10,
        retry_timeout: float | None = 300.0,
        backoff: tuple[float, float] = (0.25, 10.0),
        keep_last: int | None = None,
        queue_size: int = 64,
        overflow: str = "block",
        drain_timeout: float | None = 300.0,
        ledger: str | None = None,
        recover: bool = True,
        chunk_size: int = 8 << 20,
        max_concurrency: int = 4,
        on_incomplete: str = "warn",
        name: str | None = None,
    ) -> None:
        check_type(destination, "destination", str, _OWNER)
        self.allow_instance_metadata = check_bool(
            allow_instance_metadata, "allow_instance_metadata", _OWNER
        )
        # Explicit credentials, for the check at run begin (a given `store` is the user's to configure).
        self._credentials: dict[str, Any] | None = None
        if store is None:
            self._credentials = {
                **(store_config or {}), "access_key_id": access_key_id,
                "secret_access_key": secret_access_key,
            }  # fmt: skip
            self.store = open_store(
                destination, endpoint=endpoint, access_key_id=access_key_id, secret_access_key=secret_access_key,
                region=region, allow_http=allow_http, config=store_config, client_options=client_options, owner=_OWNER,
            )  # fmt: skip
        elif isinstance(store, ObjectStore):
            self.store = store
        else:
            self.store = ObjectStore(store, destination)
        self.destination = self.store.url
        self.verify = check_choice(verify, "verify", ("sha256", "size"), _OWNER)
        self.attempts = check_positive_int(attempts, "attempts", _OWNER)
        self.retry_timeout = None if retry_timeout is None else check_number(
            retry_timeout, "retry_timeout", _OWNER, minimum=0, inclusive=False
        )  # fmt: skip
        self.backoff = _check_backoff(backoff)
        self.keep_last = (
            None
            if keep_last is None
            else check_positive_int(keep_last, "keep_last", _OWNER)
        )
        self.queue_size = check_positive_int(queue_size, "queue_size", _OWNER)
        self.overflow = check_choice(
            overflow, "overflow", ("block", "drop_oldest", "latest", "error"), _OWNER
        )
        self.drain_timeout = None if drain_timeout is None else check_number(
            drain_timeout, "drain_timeout", _OWNER, minimum=0
        )  # fmt: skip
        if ledger is not None:
            check_type(ledger, "ledger", str, _OWNER)
        self._ledger_path = None if ledger is None else os.path.abspath(ledger)
        self.recover = check_bool(recover, "recover", _OWNER)
        self.chunk_size = check_positive_int(chunk_size, "chunk_size", _OWNER)
        if chunk_size < _MIN_PART:
            raise ValueError(
                f"For '{_OWNER}', the argument 'chunk_size' must be an int >= {_MIN_PART} (5 MiB, the smallest "
                f"multipart part), but got {chunk_size!r}."
            )
        self.max_concurrency = check_positive_int(
            max_concurrency, "max_concurrency", _OWNER
        )
        self.on_incomplete = check_choice(
            on_incomplete, "on_incomplete", ("warn", "raise", "ignore"), _OWNER
        )
        if name is not None:
            check_type(name, "name", str, _OWNER)
        self.name = name or _OWNER
        self.report: UploadReport | None = None
        """What the last run achieved (None before the first run ends)."""
        self._lock = threading.Condition(threading.Lock())
        self._files: dict[str, _File] = {}
        self._order: list[_File] = []
        self._ledgers: dict[str, UploadLedger] = {}
        self._seq = 0
        self._deadline: float | None = None
        self._started_ns = 0
        self._in_run = False
        self._backlog: list[_File] = []
        self._backlog_due = False
        self._bus: EventBus | None = None
        self._subs: list[Subscription[Any]] = []
        self._checkpoints: list[Any] = []
        self._notes: list[str] = []

    # --- hooks ---------------------------------------------------------------------------

    def on_train_begin(self, run_context: RunContext) -> None:
        """Check credentials; subscribe the ledger recorder and the upload worker; hold local deletions; find owed files.

        Raises:
            MissingCredentialsError: The destination has no credentials (and
                `allow_instance_metadata` is off): the run fails before its first step.
        """
        bus = run_context.bus
        if bus is None:
            raise RuntimeError(
                f"{_OWNER} needs a run's event bus; this RunContext belongs to no run."
            )
        if self._credentials is not None and not self.allow_instance_metadata:
            # Read now, not at construction: the environment is the run's.
            missing = missing_credentials(self.destination, self._credentials)
            if missing is not None:
                raise MissingCredentialsError(
                    f"For '{_OWNER}', {missing} Or pass them as arguments (`access_key_id`, "
                    "`store_config`). The cloud's instance-metadata endpoint is asked only when "
                    "allowed: `allow_instance_metadata=True`."
                )
        cb = run_context.original_args()
        with self._lock:
            self._files, self._order, self._notes = {}, [], []
            self._deadline = None
            self._started_ns = time.time_ns()
            self._in_run = True
        self.report = None
        self._bus = bus
        callbacks = list(cb.get("list_callback", None) or [])
        for callback in callbacks:
            gate = getattr(callback, "add_deletion_gate", None)
            if callable(gate) and not any(c is callback for c in self._checkpoints):
                gate(self._may_delete)
                self._checkpoints.append(callback)
                if self.verify == "sha256" and callable(
                    digests := getattr(callback, "request_sha256", None)
                ):
                    digests()  # hashed once, by the writer, as the file is committed
        self._backlog = self._find_backlog(callbacks) if self.recover else []
        self._backlog_due = bool(self._backlog)
        self._subs = [
            bus.subscribe(
                CheckpointSaved, self._record, order=_FIRST, name=f"{self.name}.ledger"
            ),
            bus.subscribe(
                (CheckpointSaved, TrainEpochBegin),
                self._work,
                mode="worker",
                when=self._wanted,
                queue_size=self.queue_size,
                overflow=self.overflow,
                name=self.name,
            ),
        ]
        bus.start_workers()  # before the first step, not inside it

    def on_train_end(self, run_context: RunContext) -> None:
        """Training ended: uploads have `drain_timeout` seconds from now."""
        self._start_deadline()

    def on_run_failed(self, run_context: RunContext, exception: BaseException) -> None:
        """The run failed: uploads have `drain_timeout` seconds from now."""
        self._start_deadline()

    def on_run_ended(self, run_context: RunContext) -> None:
        """Wait for uploads up to the deadline, then publish the report (and warn or raise as configured)."""
        if not self._subs:
            return
        self._start_deadline()
        cb = run_context.original_args()
        error = cb.get("exception")
        if isinstance(
            error, DrainTimeoutError
        ):  # the run's own drain gave up: so do we, now
            with self._lock:
                self._deadline = time.monotonic()
        else:
            self._settle()
        for sub in self._subs:
            sub.unsubscribe()
        self._subs = []
        for ledger in list(
            self._ledgers.values()
        ):  # lines of files the worker never reached
            ledger.sync()
        with self._lock:
            self._in_run = False
        report = self._make_report()
        self.report = report
        cb["checkpoint_uploads"] = report
        for checkpoint in self._checkpoints:
            retry = getattr(checkpoint, "retry_deletions", None)
            if callable(retry):
                retry()
        if report.complete or self.on_incomplete == "ignore":
            return
        if error is not None:
            error.add_note(f"cadence: {report.format()}")
        elif self.on_incomplete == "raise":
            raise UploadIncompleteError(report)
        else:
            warnings.warn(UploadIncompleteWarning(report), stacklevel=2)

    # --- the publishing (training) thread ----------------------------------------------------

    def _record(self, event: CheckpointSaved) -> None:
        """Inline, first of all `CheckpointSaved` subscribers: the file is owed from now on."""
        path = os.path.abspath(event.path)
        ledger = self._ledger_for(path)
        with self._lock:
            self._seq += 1
            file = _File(
                path=path, name=os.path.basename(path), ledger=ledger, sha256=event.sha256,
                size=event.size_bytes, epoch=event.epoch, step=event.step, time_ns=event.time_ns, seq=self._seq,
            )  # fmt: skip
            self._track(file)
        # On the training thread: one write(2), no fsync (0.3-0.4 ms); the worker syncs it
        # before uploading. A killed process loses nothing; see `UploadLedger.append`.
        ledger.append(file.record("queued", self.destination), durable=False)

    def _wanted(self, event: Any) -> bool:
        """Worker filter: every `CheckpointSaved`; the first `TrainEpochBegin` when files are owed from before."""
        if isinstance(event, CheckpointSaved):
            return True
        due, self._backlog_due = self._backlog_due, False
        return due

    def _start_deadline(self) -> None:
        with self._lock:
            if self._deadline is None and self.drain_timeout is not None:
                self._deadline = time.monotonic() + self.drain_timeout

    def _settle(self) -> None:
        """Wait until the upload worker is idle (nothing queued or running), or the deadline passed."""
        while self._worker_busy():
            with self._lock:
                deadline = self._deadline
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return
                self._lock.wait(
                    _WATCH_S if remaining is None else min(_WATCH_S, remaining)
                )

    def _worker_busy(self) -> bool:
        bus = self._bus
        if bus is None:
            return False
        for stats in bus.statistics().subscribers:
            if stats.name == self.name and stats.mode == "worker":
                return stats.queue_depth > 0
        return False

    # --- the worker ----------------------------------------------------------------------------

    async def _work(self, event: CheckpointSaved | TrainEpochBegin) -> None:
        if isinstance(event, TrainEpochBegin):
            for owed in self._backlog:
                await self._upload(owed)
            self._backlog = []
            return
        path = os.path.abspath(event.path)  # noqa: ASYNC240 - a string operation (the path is absolute)
        with self._lock:
            file = self._files.get(path)
            if file is None or file.time_ns != event.time_ns:
                return  # saved again since: the newer event uploads the newer bytes
            dropped = []
            if self.overflow in ("drop_oldest", "latest"):
                dropped = [
                    f
                    for f in self._order
                    if f.state == "queued" and f.seq < file.seq and not f.recovered
                ]
                for older in dropped:
                    older.state = "dropped"
        for older in dropped:
            older.ledger.append(older.record("dropped", self.destination))
        await self._upload(file)

    async def _upload(self, file: _File) -> None:
        with self._lock:
            if file.state != "queued":
                return
            if self._deadline is not None and time.monotonic() >= self._deadline:
                file.state = "pending"
                self._lock.notify_all()
                return
            file.state = "uploading"
        outcome: State = "failed"
        try:
            # The `queued` line becomes durable before the store sees the file.
            await anyio.to_thread.run_sync(file.ledger.sync)
            found = await self._until_deadline(lambda: self._retrying(file))
            outcome = "stored" if found else "uploaded"
        except _DeadlinePassedError:
            outcome = "pending"
        except Exception as exc:
            file.error = f"{type(exc).__name__}: {_first_line(exc)}"
            await anyio.to_thread.run_sync(
                self._record_failure, file, isinstance(exc, FileNotFoundError)
            )
        else:
            await anyio.to_thread.run_sync(
                file.ledger.append, file.record("uploaded", self.destination)
            )
            if self._bus is not None:
                self._bus.publish(self._uploaded_event(file))
            await anyio.to_thread.run_sync(self._after_upload, file)
        finally:
            with self._lock:
                file.state = outcome
                self._lock.notify_all()

    async def _retrying(self, file: _File) -> bool:
        import stamina

        first, longest = self.backoff
        async for attempt in stamina.retry_context(
            on=is_transient, attempts=self.attempts, timeout=self.retry_timeout, wait_initial=first,
            wait_max=longest, wait_jitter=first,
        ):  # fmt: skip
            with attempt:
                file.attempts = attempt.num
                return await anyio.to_thread.run_sync(
                    self._put_and_verify, file, abandon_on_cancel=True
                )
        raise AssertionError(
            "unreachable: stamina raises after the last attempt"
        )  # pragma: no cover

    async def _until_deadline(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run `work()`, cancelled when the run-end deadline passes (a thread still uploading is abandoned)."""
        result: list[T] = []
        with anyio.CancelScope() as scope:

            async def watch() -> None:
                while True:
                    deadline = self._deadline
                    if deadline is not None and time.monotonic() >= deadline:
                        scope.cancel()
                        return
                    await anyio.sleep(_WATCH_S)

            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(watch)
                    result.append(await work())
                    group.cancel_scope.cancel()
            except (
                BaseExceptionGroup
            ) as group_error:  # the task group wraps what `work()` raised
                if len(group_error.exceptions) == 1:
                    raise group_error.exceptions[0] from group_error.exceptions[
                        0
                    ].__cause__
                raise
        if not result:
            raise _DeadlinePassedError
        return result[0]

    # --- blocking work (worker threads) ---------------------------------------------------------

    def _put_and_verify(self, file: _File) -> bool:
        """Upload and verify one file; return True when an intact copy was already stored (owed files only)."""
        store = self.store
        if file.sha256 is None and self.verify == "sha256":
            file.sha256 = file_sha256(file.path)
        if file.recovered and self._verified(file):
            return True
        start = time.perf_counter()
        store.put_file(
            file.name,
            file.path,
            chunk_size=self.chunk_size,
            max_concurrency=self.max_concurrency,
        )
        file.seconds += time.perf_counter() - start
        if not self._verified(file):
            raise ChecksumMismatchError(
                f"The stored copy of {file.path!r} at {store.url_of(file.name)!r} does not match the local file "
                f"({'sha256' if self.verify == 'sha256' else 'size'} differs)."
            )
        return False

    def _record_failure(self, file: _File, missing: bool) -> None:
        lost = missing and not os.path.exists(file.path)
        file.ledger.append(
            file.record("lost" if lost else "failed", self.destination, file.error)
        )

    def _verified(self, file: _File) -> bool:
        store = self.store
        if self.verify == "size":
            return store.size(file.name) == file.size
        try:
            digest, size = store.sha256(file.name)
        except FileNotFoundError:
            return False
        return digest == file.sha256 and size == file.size

    def _after_upload(self, file: _File) -> None:
        """Rewrite the remote `latest` pointer, apply remote retention, let local retention delete."""
        store = self.store
        try:
            store.put_bytes(
                LATEST_POINTER, encode_event(self._uploaded_event(file)) + b"\n"
            )
        except Exception as exc:
            self._note(
                f"could not update {store.url_of(LATEST_POINTER)}: {type(exc).__name__}: {_first_line(exc)}"
            )
        if self.keep_last is not None:
            stored = file.ledger.stored(self.destination)
            for old in stored[: max(0, len(stored) - self.keep_last)]:
                try:
                    store.delete(old.name)
                except Exception as exc:
                    self._note(
                        f"remote retention could not delete {store.url_of(old.name)}: {type(exc).__name__}"
                    )
                    continue
                file.ledger.append(
                    LedgerRecord(
                        op="deleted",
                        destination=self.destination,
                        path=old.path,
                        name=old.name,
                    )
                )
        for checkpoint in self._checkpoints:
            retry = getattr(checkpoint, "retry_deletions", None)
            if callable(retry):
                retry()

    def _uploaded_event(self, file: _File) -> CheckpointUploaded:
        return CheckpointUploaded(
            path=file.path, url=self.store.url_of(file.name), epoch=file.epoch, step=file.step,
            size_bytes=file.size, sha256=file.sha256 if self.verify == "sha256" else None, attempts=file.attempts,
        )  # fmt: skip

    def _note(self, text: str) -> None:
        with self._lock:
            self._notes.append(text)

    # --- ledgers, owed files, local retention ----------------------------------------------------

    def _ledger_for(self, path: str) -> UploadLedger:
        ledger_path = self._ledger_path or default_ledger_path(os.path.dirname(path))
        ledger = self._ledgers.get(ledger_path)
        if ledger is None:
            ledger = self._ledgers[ledger_path] = UploadLedger(ledger_path)
        return ledger

    def _find_backlog(self, callbacks: list[Any]) -> list[_File]:
        """Read the ledgers this run can know of and track every file an earlier run still owes."""
        paths = []
        if self._ledger_path is not None:
            paths.append(self._ledger_path)
        else:
            for callback in callbacks:
                directory = getattr(callback, "directory", None)
                if isinstance(directory, str):
                    paths.append(default_ledger_path(directory))
        backlog = []
        for ledger_path in dict.fromkeys(paths):
            ledger = self._ledgers.get(ledger_path) or UploadLedger(ledger_path)
            self._ledgers[ledger_path] = ledger
            ledger.compact()
            for record in ledger.owed(self.destination):
                with self._lock:
                    self._seq += 1
                    file = _File(
                        path=record.path, name=record.name, ledger=ledger, sha256=record.sha256,
                        size=record.size or 0, epoch=record.epoch, step=record.step, time_ns=record.time_ns,
                        seq=self._seq, recovered=True,
                    )  # fmt: skip
                    self._refresh(file)
                    self._track(file)
                backlog.append(file)
        return backlog

    @staticmethod
    def _refresh(file: _File) -> None:
        """An owed file may have been rewritten since it was recorded: upload what is there now."""
        try:
            size = os.path.getsize(file.path)
        except OSError:
            return  # gone: the upload attempt reports it
        if size != file.size:
            file.size, file.sha256 = size, None

    def _track(self, file: _File) -> None:
        # Called with the lock held.
        previous = self._files.get(file.path)
        if previous is not None and previous.state == "queued":
            self._order.remove(previous)
        self._files[file.path] = file
        self._order.append(file)

    def _may_delete(self, path: str) -> bool:
        """Deletion gate for `ModelCheckpoint` retention: True once `path`'s upload is confirmed."""
        path = os.path.abspath(path)
        with self._lock:
            file = self._files.get(path)
            if file is not None:
                return file.state in _DELETABLE
            if not self._in_run:
                return True
            started = self._started_ns
        try:
            mtime = os.stat(path).st_mtime_ns
        except FileNotFoundError:
            return True
        # Saved in this run but not announced yet (ModelCheckpoint publishes at its next hook): keep it.
        return mtime < started - _SAVED_BEFORE_SLACK_NS

    # --- the report ------------------------------------------------------------------------------

    def _make_report(self) -> UploadReport:
        with self._lock:
            files = list(self._order)
            notes = tuple(self._notes)
        by_state: dict[str, list[_File]] = {}
        for file in files:
            by_state.setdefault(file.state, []).append(file)
        return UploadReport(
            destination=self.destination,
            uploaded=tuple(f.path for f in by_state.get("uploaded", [])),
            already_stored=tuple(f.path for f in by_state.get("stored", [])),
            failed={
                f.path: f.error or "unknown error" for f in by_state.get("failed", [])
            },
            pending=tuple(
                f.path for f in files if f.state in ("pending", "queued", "uploading")
            ),
            dropped=tuple(f.path for f in by_state.get("dropped", [])),
            bytes_uploaded=sum(f.size for f in by_state.get("uploaded", [])),
            upload_seconds=sum(f.seconds for f in by_state.get("uploaded", [])),
            notes=notes,
        )

    def __repr__(self) -> str:
        return f"CheckpointUploader({self.destination!r})"


def _check_backoff(backoff: Any) -> tuple[float, float]:
    if (
        not isinstance(backoff, tuple)
        or len(backoff) != 2
        or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in backoff
        )
        or not 0 < backoff[0] <= backoff[1]
    ):
        raise ValueError(
            f"For '{_OWNER}', the argument 'backoff' must be a tuple (first, longest) of seconds with "
            f"0 < first <= longest, but got {backoff!r}."
        )
    return float(backoff[0]), float(backoff[1])


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
