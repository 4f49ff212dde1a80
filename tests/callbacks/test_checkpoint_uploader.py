"""CheckpointUploader on in-memory and local stores: every guarantee of issue 6 without a server."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from obstore.exceptions import GenericError, PermissionDeniedError
from obstore.store import MemoryStore

from cadence import (
    Callback,
    CheckpointSaved,
    CheckpointUploaded,
    DrainTimeoutError,
    Model,
    RunContext,
)
from cadence.callbacks import (
    CheckpointUploader,
    ChecksumMismatchError,
    ObjectStore,
    UploadIncompleteError,
    UploadIncompleteWarning,
    default_ledger_path,
    download_checkpoint,
    list_remote_checkpoints,
)
from cadence.testing import ListDataset, constant_network
from tests.helpers.uploads import FailsReadingMidway, Saver

FAST: dict[str, Any] = {"backoff": (0.01, 0.02)}


# --- helpers -------------------------------------------------------------------------------


class ScriptedStore(ObjectStore):
    """An in-memory store whose puts can fail, corrupt, or wait for a gate."""

    def __init__(
        self,
        url: str = "memory://scripted/run",
        failures: list[BaseException] | None = None,
    ) -> None:
        super().__init__(MemoryStore(), url)
        self.failures = list(failures or [])
        self.corrupt = 0
        self.gate: threading.Event | None = None
        self.waiting = threading.Semaphore(0)
        self.puts: list[str] = []
        self.lock = threading.Lock()

    def open_gate(self) -> None:
        """Let the puts waiting for the gate (and every later one) go on."""
        assert self.gate is not None, "the store has no gate"
        self.gate.set()

    def put_file(
        self, name: str, path: str, *, chunk_size: int, max_concurrency: int
    ) -> str | None:
        if self.gate is not None:
            self.waiting.release()
            assert self.gate.wait(30), "test store gate never opened"
        with self.lock:
            self.puts.append(name)
            failure = self.failures.pop(0) if self.failures else None
            corrupt = self.corrupt > 0
            self.corrupt -= corrupt
        if failure is not None:
            raise failure
        if corrupt:
            self.put_bytes(name, b"not the checkpoint")
            return None
        return super().put_file(
            name, path, chunk_size=chunk_size, max_concurrency=max_concurrency
        )


def stalled_uploads(
    directory: Path, **options: Any
) -> tuple[ScriptedStore, Saver, CheckpointUploader]:
    """A store whose uploads wait for `store.gate`, a Saver into `directory`, an uploader to the store."""
    store = ScriptedStore()
    store.gate = threading.Event()
    return (
        store,
        Saver(directory),
        CheckpointUploader(store.url, store=store, **options),
    )


class StepLog(Callback):
    """Records the global step number at each step end."""

    def __init__(self) -> None:
        self.steps: list[int] = []

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.steps.append(run_context.original_args().cur_step_num)


class FakeCheckpoint(Callback):
    """The deletion-gate side of ModelCheckpoint: asks the gates before deleting."""

    def __init__(self, directory: Path) -> None:
        self.directory = str(directory)
        self.gates: list[Any] = []

    def add_deletion_gate(self, gate: Any) -> None:
        self.gates.append(gate)

    def retry_deletions(self) -> list[str]:
        return []

    def may_delete(self, path: str) -> bool:
        return all(gate(path) for gate in self.gates)


def ledger_file(directory: Path) -> Path:
    """The default upload ledger of the checkpoints in `directory`: outside it."""
    return Path(default_ledger_path(str(directory)))


def train(
    callbacks: list[Any], steps: int = 4, epochs: int = 1, **model_kwargs: Any
) -> Model:
    model = Model(constant_network(), **model_kwargs)
    model.train(epochs, ListDataset.of_steps(steps), callbacks=callbacks)
    return model


def memory_url() -> str:
    return f"memory://tests/{uuid.uuid4().hex[:8]}"


# --- uploads and events ----------------------------------------------------------------------


def test_every_saved_file_is_uploaded_verified_and_announced(tmp_path: Path) -> None:
    destination = memory_url()
    saver = Saver(tmp_path)
    uploader = CheckpointUploader(destination)
    model = Model(constant_network())
    seen: list[CheckpointUploaded] = []
    model.bus.subscribe(CheckpointUploaded, seen.append)
    model.train(2, ListDataset.of_steps(3), callbacks=[saver, uploader])

    assert [e.path for e in seen] == saver.paths
    first = seen[0]
    assert first.url == f"{destination}/ck-1.ckpt"
    assert (first.epoch, first.step, first.attempts) == (1, 1, 1)
    assert first.sha256 == hashlib.sha256(Path(saver.paths[0]).read_bytes()).hexdigest()
    assert uploader.report is not None and uploader.report.complete
    assert uploader.report.uploaded == tuple(saver.paths)
    store = ObjectStore(
        MemoryStore(), destination
    )  # a fresh handle on the same memory:// name
    assert store.url == destination
    for path in saver.paths:
        got = download_checkpoint(
            destination, str(tmp_path / "back"), name=os.path.basename(path)
        )
        assert Path(got).read_bytes() == Path(path).read_bytes()


def test_file_destination_writes_the_objects(tmp_path: Path) -> None:
    target = tmp_path / "remote" / "run"
    saver = Saver(tmp_path, every=2)
    train([saver, CheckpointUploader(f"file://{target}")])
    assert sorted(p.name for p in target.iterdir()) == [
        "cadence-latest.json",
        "ck-2.ckpt",
        "ck-4.ckpt",
    ]
    assert (target / "ck-4.ckpt").read_bytes() == Path(saver.paths[-1]).read_bytes()
    latest = json.loads((target / "cadence-latest.json").read_text())
    assert latest["type"] == "CheckpointUploaded" and latest["step"] == 4


def test_ledger_records_queued_then_uploaded(tmp_path: Path) -> None:
    destination = memory_url()
    saver = Saver(tmp_path, every=2)
    train([saver, CheckpointUploader(destination)])
    lines = [
        json.loads(line) for line in ledger_file(tmp_path).read_text().splitlines()
    ]
    ops = [(line["op"], line["name"]) for line in lines]
    assert ops.index(("queued", "ck-2.ckpt")) < ops.index(("uploaded", "ck-2.ckpt"))
    assert sorted(ops) == sorted(
        [
            ("queued", "ck-2.ckpt"),
            ("uploaded", "ck-2.ckpt"),
            ("queued", "ck-4.ckpt"),
            ("uploaded", "ck-4.ckpt"),
        ]
    )
    assert {line["destination"] for line in lines} == {destination}


def test_the_training_thread_writes_the_queued_line_and_the_worker_fsyncs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    synced_on: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced_on.append(threading.current_thread().name)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    training_thread = threading.current_thread().name
    saver = Saver(tmp_path, every=1)
    train([saver, CheckpointUploader(memory_url())], steps=3)
    ops = [
        json.loads(line)["op"]
        for line in ledger_file(tmp_path).read_text().splitlines()
    ]
    assert ops.count("queued") == ops.count("uploaded") == 3
    # Each `uploaded` line, and the `queued` ones (one fsync covers those written since the last)...
    assert len(synced_on) >= 4
    assert training_thread not in synced_on  # ...made durable off the training thread


# --- retries, permanent failures, checksums ------------------------------------------------------


def test_transient_failures_are_retried_with_backoff(tmp_path: Path) -> None:
    store = ScriptedStore(
        failures=[GenericError("connection reset"), ConnectionRefusedError("refused")]
    )
    uploader = CheckpointUploader(store.url, store=store, **FAST)
    model = Model(constant_network())
    seen: list[CheckpointUploaded] = []
    model.bus.subscribe(CheckpointUploaded, seen.append)
    model.train(1, ListDataset.of_steps(1), callbacks=[Saver(tmp_path), uploader])
    assert store.puts == ["ck-1.ckpt"] * 3
    assert [e.attempts for e in seen] == [3]
    assert uploader.report is not None and uploader.report.complete


def test_permanent_failure_is_not_retried_and_is_reported(tmp_path: Path) -> None:
    store = ScriptedStore(failures=[PermissionDeniedError("SignatureDoesNotMatch")])
    uploader = CheckpointUploader(store.url, store=store, **FAST)
    saver = Saver(tmp_path, every=2)
    with pytest.warns(
        UploadIncompleteWarning, match=r"1 checkpoint file\(s\) did not reach"
    ) as caught:
        train([saver, uploader])
    assert store.puts == [
        "ck-2.ckpt",
        "ck-4.ckpt",
    ]  # no retry of the refused one; the next file went on
    report = uploader.report
    assert report is not None
    assert list(report.failed) == [saver.paths[0]]
    assert "PermissionDeniedError" in report.failed[saver.paths[0]]
    assert report.uploaded == (saver.paths[1],)
    assert caught[0].message.report is report  # type: ignore[union-attr]


def test_retries_give_up_after_attempts(tmp_path: Path) -> None:
    store = ScriptedStore(failures=[GenericError("503 Slow Down")] * 3)
    uploader = CheckpointUploader(
        store.url, store=store, attempts=3, on_incomplete="raise", **FAST
    )
    with pytest.raises(
        UploadIncompleteError, match="GenericError: 503 Slow Down"
    ) as info:
        train([Saver(tmp_path), uploader], steps=1)
    assert store.puts == ["ck-1.ckpt"] * 3
    assert info.value.report.not_uploaded == (str(tmp_path / "ck-1.ckpt"),)


def test_a_corrupted_copy_is_detected_and_uploaded_again(tmp_path: Path) -> None:
    store = ScriptedStore()
    store.corrupt = 1
    uploader = CheckpointUploader(store.url, store=store, **FAST)
    saver = Saver(tmp_path)
    train([saver, uploader], steps=1)
    assert store.puts == ["ck-1.ckpt", "ck-1.ckpt"]
    assert (
        store.sha256("ck-1.ckpt")[0]
        == hashlib.sha256(Path(saver.paths[0]).read_bytes()).hexdigest()
    )


def test_a_copy_that_stays_corrupt_is_never_announced(tmp_path: Path) -> None:
    store = ScriptedStore()
    store.corrupt = 2
    uploader = CheckpointUploader(
        store.url, store=store, attempts=2, on_incomplete="ignore", **FAST
    )
    model = Model(constant_network())
    seen: list[CheckpointUploaded] = []
    model.bus.subscribe(CheckpointUploaded, seen.append)
    model.train(1, ListDataset.of_steps(1), callbacks=[Saver(tmp_path), uploader])
    assert seen == []
    assert uploader.report is not None
    assert "ChecksumMismatchError" in next(iter(uploader.report.failed.values()))


def test_upload_is_whole_or_nothing_when_reading_fails_midway(tmp_path: Path) -> None:
    store = FailsReadingMidway(MemoryStore(), "memory://whole")
    uploader = CheckpointUploader(
        store.url,
        store=store,
        attempts=2,
        on_incomplete="ignore",
        chunk_size=5 << 20,
        **FAST,
    )
    train([Saver(tmp_path, size=12 << 20), uploader], steps=1)
    assert store.list() == []  # no part of the file is visible
    assert uploader.report is not None and "disk read failed" in next(
        iter(uploader.report.failed.values())
    )


# --- local retention waits for the upload ----------------------------------------------------------


def test_local_file_is_held_until_its_upload_is_confirmed(tmp_path: Path) -> None:
    store, saver, uploader = stalled_uploads(tmp_path)
    checkpoint = FakeCheckpoint(tmp_path)
    held: list[bool] = []

    class Probe(Callback):
        def on_train_end(self, run_context: RunContext) -> None:
            assert store.waiting.acquire(timeout=30)  # the upload is in progress
            held.append(checkpoint.may_delete(saver.paths[0]))
            store.open_gate()

    train([checkpoint, saver, uploader, Probe()], steps=1)
    assert held == [False]
    assert checkpoint.may_delete(saver.paths[0])
    # a file saved in this run but not announced yet is held too; an old file is not
    fresh, old = tmp_path / "fresh.ckpt", tmp_path / "old.ckpt"
    fresh.write_bytes(b"x")
    old.write_bytes(b"x")
    os.utime(old, (1, 1))
    uploader._in_run, uploader._started_ns = True, fresh.stat().st_mtime_ns
    assert not checkpoint.may_delete(str(fresh))
    assert checkpoint.may_delete(str(old))


def test_failed_upload_keeps_the_local_file(tmp_path: Path) -> None:
    store = ScriptedStore(failures=[PermissionDeniedError("denied")])
    checkpoint = FakeCheckpoint(tmp_path)
    saver = Saver(tmp_path)
    train(
        [
            checkpoint,
            saver,
            CheckpointUploader(store.url, store=store, on_incomplete="ignore"),
        ],
        steps=1,
    )
    assert not checkpoint.may_delete(saver.paths[0])


def test_model_checkpoint_retention_deletes_only_uploaded_files(tmp_path: Path) -> None:
    from cadence import nn
    from cadence.callbacks import CheckpointConfig, ModelCheckpoint

    store = ScriptedStore(
        failures=[PermissionDeniedError("denied")]
    )  # the first file never reaches the store
    config = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=1)
    ckpt = ModelCheckpoint("net", str(tmp_path), config)
    uploader = CheckpointUploader(store.url, store=store, on_incomplete="ignore")
    network = nn.Dense(2, 1)
    model = Model(network, nn.MSELoss(), nn.SGD(network.trainable_params(), 0.1))
    import numpy as np

    data = ListDataset([(np.ones((1, 2), np.float32), np.ones((1, 1), np.float32))] * 3)
    model.train(1, data, callbacks=[ckpt, uploader])
    left = sorted(p.name for p in tmp_path.glob("*.ckpt"))
    assert "net-1_1.ckpt" in left  # its upload failed: retention must keep it
    assert "net-1_3.ckpt" in left  # the newest
    assert "net-1_2.ckpt" not in left  # uploaded, then retention deleted it
    assert store.size("net-1_2.ckpt") is not None


@pytest.mark.parametrize(("verify", "hashed"), [("sha256", True), ("size", False)])
def test_model_checkpoint_hashes_files_only_for_an_uploader_that_verifies_digests(
    tmp_path: Path, verify: str, hashed: bool
) -> None:
    from cadence import CheckpointSaved, nn
    from cadence.callbacks import CheckpointConfig, ModelCheckpoint

    ckpt = ModelCheckpoint(
        "net", str(tmp_path), CheckpointConfig(save_checkpoint_steps=1)
    )
    uploader = CheckpointUploader(memory_url(), verify=verify)
    network = nn.Dense(2, 1)
    model = Model(network, nn.MSELoss(), nn.SGD(network.trainable_params(), 0.1))
    saved: list[CheckpointSaved] = []
    model.bus.subscribe(CheckpointSaved, saved.append)
    import numpy as np

    data = ListDataset([(np.ones((1, 2), np.float32), np.ones((1, 1), np.float32))] * 2)
    model.train(1, data, callbacks=[ckpt, uploader])
    assert len(saved) == 2
    for event in saved:
        digest = hashlib.sha256(Path(event.path).read_bytes()).hexdigest()
        assert event.sha256 == (digest if hashed else None)
    assert uploader.report is not None and uploader.report.complete


# --- a slow store never blocks a step, unless overflow="block" and the queue is full -----------------


def test_slow_store_does_not_block_training(tmp_path: Path) -> None:
    store, saver, uploader = stalled_uploads(
        tmp_path, queue_size=2, overflow="drop_oldest"
    )

    class Release(StepLog):
        def on_train_step_end(self, run_context: RunContext) -> None:
            super().on_train_step_end(run_context)
            if len(self.steps) == 1:
                # The first upload is in progress (stuck) before step 2 publishes anything.
                assert store.waiting.acquire(timeout=30)

        def on_train_end(self, run_context: RunContext) -> None:
            store.open_gate()  # only now: every step ran with uploads stuck

    release = Release()
    with pytest.warns(UploadIncompleteWarning, match="dropped"):
        train([saver, uploader, release], steps=8)
    assert release.steps == list(range(1, 9))
    report = uploader.report
    assert report is not None
    assert (
        report.uploaded[0] == saver.paths[0]
    )  # the one in progress when the store stalled
    assert report.uploaded[-2:] == tuple(
        saver.paths[-2:]
    )  # the newest queue_size files
    assert set(report.dropped) == set(saver.paths) - set(report.uploaded)
    assert all(
        json.loads(line)["op"] != "failed"
        for line in ledger_file(tmp_path).read_text().splitlines()
    )


def test_block_overflow_makes_the_step_wait_when_the_queue_is_full(
    tmp_path: Path,
) -> None:
    store, saver, uploader = stalled_uploads(tmp_path, queue_size=1, overflow="block")
    log = StepLog()
    runner = threading.Thread(
        target=train, args=([log, saver, uploader],), kwargs={"steps": 5}
    )
    runner.start()
    assert store.waiting.acquire(
        timeout=30
    )  # file 1 is being uploaded; file 2 fills the queue
    runner.join(0.5)
    assert runner.is_alive()  # step 3's checkpoint cannot be queued
    assert log.steps == [1, 2, 3]
    store.open_gate()
    runner.join(30)
    assert not runner.is_alive()
    assert log.steps == [1, 2, 3, 4, 5]
    assert uploader.report is not None and uploader.report.uploaded == tuple(
        saver.paths
    )


# --- run end: drain with a deadline, the report ---------------------------------------------------------


def test_deadline_reports_exactly_the_files_not_uploaded(tmp_path: Path) -> None:
    store, saver, uploader = stalled_uploads(
        tmp_path, drain_timeout=0.2, on_incomplete="raise"
    )
    try:
        with pytest.raises(UploadIncompleteError) as info:
            train([saver, uploader], steps=3)
    finally:
        store.open_gate()
    report = info.value.report
    assert report.pending == tuple(saver.paths)
    assert report.uploaded == ()
    assert all(path in str(info.value) for path in saver.paths)
    # the ledger keeps them owed
    ops = {
        json.loads(line)["op"]
        for line in ledger_file(tmp_path).read_text().splitlines()
    }
    assert ops == {"queued"}


def test_model_drain_timeout_names_the_files_on_the_run_error(tmp_path: Path) -> None:
    store, saver, uploader = stalled_uploads(tmp_path, drain_timeout=None)
    try:
        with pytest.raises(DrainTimeoutError) as info:
            train([saver, uploader], steps=2, drain_timeout=0.2)
    finally:
        store.open_gate()
    assert info.value.pending == {"CheckpointUploader": 2}
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert all(f"pending: {path}" in notes for path in saver.paths)
    assert uploader.report is not None and set(uploader.report.pending) == set(
        saver.paths
    )


def test_report_lands_in_cb_params(tmp_path: Path) -> None:
    reports: list[Any] = []

    class Read(Callback):
        def on_run_ended(self, run_context: RunContext) -> None:
            reports.append(run_context.original_args().get("checkpoint_uploads"))

    uploader = CheckpointUploader(memory_url())
    train([Saver(tmp_path), uploader, Read()], steps=2)
    assert reports == [uploader.report]


# --- the ledger: the next run uploads what is owed, not what is there ------------------------------------


def test_next_run_uploads_what_an_earlier_run_still_owed(tmp_path: Path) -> None:
    destination = memory_url()
    broken = ScriptedStore(destination, failures=[PermissionDeniedError("denied")] * 2)
    saver = Saver(tmp_path)
    train(
        [saver, CheckpointUploader(destination, store=broken, on_incomplete="ignore")],
        steps=3,
    )
    owed = saver.paths[:2]

    store = ScriptedStore(destination)
    store.store = broken.store  # same objects: ck-3 is there already
    checkpoint = FakeCheckpoint(tmp_path)
    uploader = CheckpointUploader(destination, store=store)
    train([checkpoint, uploader], steps=1)
    assert sorted(store.puts) == sorted(os.path.basename(p) for p in owed)
    assert uploader.report is not None and set(uploader.report.uploaded) == set(owed)
    assert all(
        store.sha256(os.path.basename(p))[0]
        == hashlib.sha256(Path(p).read_bytes()).hexdigest()
        for p in owed
    )

    # a third run owes nothing
    again = ScriptedStore(destination)
    train(
        [FakeCheckpoint(tmp_path), CheckpointUploader(destination, store=again)],
        steps=1,
    )
    assert again.puts == []


def test_a_copy_already_stored_intact_is_not_uploaded_again(tmp_path: Path) -> None:
    # A run killed after the upload but before the ledger said so.
    destination = memory_url()
    path = tmp_path / "ck-9.ckpt"
    path.write_bytes(b"weights" * 100)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    ledger_file(tmp_path).parent.mkdir(parents=True, exist_ok=True)
    ledger_file(tmp_path).write_text(
        json.dumps({"op": "queued", "destination": destination, "path": str(path), "name": path.name,
                    "sha256": digest, "size": 700, "step": 9}) + "\n"
        + '{"op": "uploaded", "destinat'  # a torn last line
    )  # fmt: skip
    store = ScriptedStore(destination)
    ObjectStore.put_file(
        store, path.name, str(path), chunk_size=5 << 20, max_concurrency=1
    )
    uploader = CheckpointUploader(destination, store=store)
    model = Model(constant_network())
    seen: list[CheckpointUploaded] = []
    model.bus.subscribe(CheckpointUploaded, seen.append)
    model.train(
        1, ListDataset.of_steps(1), callbacks=[FakeCheckpoint(tmp_path), uploader]
    )
    assert store.puts == []
    assert uploader.report is not None and uploader.report.already_stored == (
        str(path),
    )
    assert [(e.path, e.attempts) for e in seen] == [(str(path), 1)]


def test_killed_run_leaves_a_ledger_the_next_run_completes(tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    script = textwrap.dedent(
        f"""
        import hashlib, os, sys, threading
        sys.path.insert(0, {str(Path(__file__).parents[2])!r})
        from cadence import Model
        from cadence.callbacks import CheckpointUploader, ObjectStore, open_store
        from cadence.testing import ListDataset, constant_network
        from tests.helpers.uploads import Saver
        from pathlib import Path

        class Stalls(ObjectStore):
            def put_file(self, name, path, **kw):
                if name != "ck-1.ckpt":
                    print("STALLED", flush=True)
                    threading.Event().wait()
                return super().put_file(name, path, **kw)

        base = open_store("file://{remote}")
        store = Stalls(base.store, base.url)
        uploader = CheckpointUploader(base.url, store=store)
        Model(constant_network()).train(1, ListDataset.of_steps(3), callbacks=[Saver(Path({str(tmp_path)!r})), uploader])
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    with child.stdout:
        try:
            assert child.stdout.readline().strip() == "STALLED"
        finally:
            child.kill()
            child.wait()
    assert sorted(p.name for p in remote.iterdir()) == [
        "cadence-latest.json",
        "ck-1.ckpt",
    ]

    base = ScriptedStore(f"file://{remote}")
    from obstore.store import LocalStore

    base.store = LocalStore(str(remote))
    uploader = CheckpointUploader(base.url, store=base)
    train([FakeCheckpoint(tmp_path), uploader], steps=1)
    assert sorted(base.puts) == ["ck-2.ckpt", "ck-3.ckpt"]
    assert sorted(p.name for p in remote.glob("*.ckpt")) == [
        "ck-1.ckpt",
        "ck-2.ckpt",
        "ck-3.ckpt",
    ]


# --- remote retention, reading back -------------------------------------------------------------------------


def test_remote_keeps_the_last_n_uploaded(tmp_path: Path) -> None:
    destination = memory_url()
    store = ObjectStore(MemoryStore(), destination)
    store.put_bytes("notes.txt", b"not ours")
    train(
        [Saver(tmp_path), CheckpointUploader(destination, store=store, keep_last=2)],
        steps=5,
    )
    assert sorted(m["path"] for m in store.list()) == [
        "cadence-latest.json",
        "ck-4.ckpt",
        "ck-5.ckpt",
        "notes.txt",
    ]
    deleted = [
        json.loads(line) for line in ledger_file(tmp_path).read_text().splitlines()
    ]
    assert [d["name"] for d in deleted if d["op"] == "deleted"] == [
        "ck-1.ckpt",
        "ck-2.ckpt",
        "ck-3.ckpt",
    ]


def test_download_latest_and_by_name(tmp_path: Path) -> None:
    destination = memory_url()
    saver = Saver(tmp_path)
    train([saver, CheckpointUploader(destination)], steps=3)
    assert sorted(c.name for c in list_remote_checkpoints(destination)) == [
        "ck-1.ckpt",
        "ck-2.ckpt",
        "ck-3.ckpt",
    ]
    latest = download_checkpoint(destination, str(tmp_path / "restore"))
    assert latest == str(tmp_path / "restore" / "ck-3.ckpt")
    assert Path(latest).read_bytes() == Path(saver.paths[-1]).read_bytes()
    first = download_checkpoint(
        destination, str(tmp_path / "restore"), name="ck-1.ckpt"
    )
    assert Path(first).read_bytes() == Path(saver.paths[0]).read_bytes()
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        download_checkpoint(destination, str(tmp_path), name="nope.ckpt")
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        download_checkpoint(memory_url(), str(tmp_path))


def test_download_rejects_a_corrupted_latest(tmp_path: Path) -> None:
    destination = memory_url()
    train([Saver(tmp_path), CheckpointUploader(destination)], steps=1)
    ObjectStore(
        MemoryStore(), destination
    )  # unrelated handle: the registry keeps one store per name
    from cadence.callbacks import open_store

    open_store(destination).put_bytes("ck-1.ckpt", b"tampered")
    with pytest.raises(ChecksumMismatchError, match="sha256"):
        download_checkpoint(destination, str(tmp_path / "restore"))
    assert not (tmp_path / "restore" / "ck-1.ckpt").exists()


# --- event loops ---------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_uploads_inside_train_async_on_asyncio_and_trio(
    tmp_path: Path, anyio_backend: str
) -> None:
    destination = memory_url()
    saver = Saver(tmp_path, every=2)
    uploader = CheckpointUploader(destination)
    model = Model(constant_network())
    seen: list[str] = []

    async def on_uploaded(event: CheckpointUploaded) -> None:
        seen.append(event.path)

    model.bus.subscribe(CheckpointUploaded, on_uploaded, mode="worker")
    await model.train_async(1, ListDataset.of_steps(4), callbacks=[saver, uploader])
    await anyio.lowlevel.checkpoint()
    assert uploader.report is not None and uploader.report.uploaded == tuple(
        saver.paths
    )
    assert seen == saver.paths


# --- configuration and validation -----------------------------------------------------------------------------


def test_explicit_options_configure_s3() -> None:
    uploader = CheckpointUploader(
        "s3://bucket/prefix",
        endpoint="http://127.0.0.1:9",
        access_key_id="explicit",
        secret_access_key="s",
        region="us-east-1",
    )
    store: Any = uploader.store.store
    assert store.config["access_key_id"] == "explicit"
    assert store.config["endpoint"] == "http://127.0.0.1:9"
    assert store.client_options["allow_http"] in (
        True,
        "true",
    )  # implied by the http:// endpoint
    assert uploader.destination == "s3://bucket/prefix"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"destination": 5},
            TypeError,
            "'destination' must be of type 'str', but got 5",
        ),
        (
            {"destination": "ftp://host/x"},
            ValueError,
            "'destination' must be an 's3://'.*but got 'ftp://host/x'",
        ),
        (
            {"destination": "s3:///prefix"},
            ValueError,
            "'destination' must name a bucket",
        ),
        (
            {"destination": "file://relative/dir"},
            ValueError,
            "'destination' must be an absolute path for 'file://'",
        ),
        (
            {"verify": "md5"},
            ValueError,
            "'verify' must be one of 'sha256', 'size', but got 'md5'",
        ),
        ({"attempts": 0}, ValueError, "'attempts' must be an int > 0, but got 0"),
        (
            {"retry_timeout": 0},
            ValueError,
            r"'retry_timeout' must be in \(0, inf\), but got 0",
        ),
        (
            {"backoff": (2.0, 1.0)},
            ValueError,
            r"'backoff' must be a tuple .* but got \(2.0, 1.0\)",
        ),
        ({"keep_last": -1}, ValueError, "'keep_last' must be an int > 0, but got -1"),
        (
            {"queue_size": 1.5},
            TypeError,
            "'queue_size' must be an int > 0, but got 1.5",
        ),
        (
            {"overflow": "wait"},
            ValueError,
            "'overflow' must be one of 'block', .* but got 'wait'",
        ),
        (
            {"drain_timeout": -1},
            ValueError,
            r"'drain_timeout' must be in \[0, inf\], but got -1",
        ),
        ({"ledger": 3}, TypeError, "'ledger' must be of type 'str', but got 3"),
        ({"recover": "yes"}, TypeError, "'recover' must be a bool, but got 'yes'"),
        (
            {"chunk_size": 1024},
            ValueError,
            "'chunk_size' must be an int >= 5242880.*but got 1024",
        ),
        (
            {"max_concurrency": 0},
            ValueError,
            "'max_concurrency' must be an int > 0, but got 0",
        ),
        (
            {"on_incomplete": "panic"},
            ValueError,
            "'on_incomplete' must be one of 'warn', 'raise', 'ignore'",
        ),
        ({"region": 1}, TypeError, "'region' must be a str or None, but got 1"),
        (
            {"allow_http": "yes"},
            TypeError,
            "'allow_http' must be a bool or None, but got 'yes'",
        ),
        (
            {
                "destination": "s3://bucket",
                "access_key_id": "only-the-id",
                "secret_access_key": None,
            },
            ValueError,
            "the store for 'destination' 's3://bucket' cannot be configured .*Missing SecretAccessKey",
        ),
    ],
)
def test_arguments_are_validated(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    kwargs = {"destination": "memory://validation", **kwargs}
    with pytest.raises(
        error, match=f"For 'CheckpointUploader', (the argument )?{match}"
    ):
        CheckpointUploader(**kwargs)


def test_needs_a_run_bus() -> None:
    with pytest.raises(RuntimeError, match="needs a run's event bus"):
        CheckpointUploader(memory_url()).on_train_begin(RunContext({}))
