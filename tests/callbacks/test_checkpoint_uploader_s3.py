"""CheckpointUploader against a real S3 server (SeaweedFS on loopback): multipart, credentials, outages."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import obstore
import pytest

from cadence import Callback, Model, RunContext
from cadence.callbacks import (
    CheckpointUploader,
    UploadIncompleteWarning,
    download_checkpoint,
    open_store,
)
from cadence.testing import ListDataset, constant_network
from tests.helpers.uploads import FailsReadingMidway, Saver, WatchedStore, run, sha

pytestmark = pytest.mark.slow


def test_large_checkpoint_goes_up_in_parts_and_is_verified(
    tmp_path: Path, s3_server: Any, s3_destination: str
) -> None:
    saver = Saver(tmp_path, size=11 << 20)
    uploader = CheckpointUploader(
        s3_destination, chunk_size=5 << 20, **s3_server.store_options()
    )
    seen = run([saver, uploader], steps=1)
    assert [(e.url, e.sha256) for e in seen] == [
        (f"{s3_destination}/ck-1.ckpt", sha(saver.paths[0]))
    ]
    meta = obstore.head(uploader.store.store, "ck-1.ckpt")
    assert meta["size"] == 11 << 20
    assert (
        str(meta["e_tag"]).strip('"').endswith("-3")
    )  # three parts: a multipart upload
    restored = download_checkpoint(
        s3_destination, str(tmp_path / "back"), **s3_server.store_options()
    )
    assert sha(restored) == sha(saver.paths[0])


def test_standard_environment_variables_configure_the_store(
    tmp_path: Path, s3_server: Any, s3_destination: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in s3_server.environment().items():
        monkeypatch.setenv(name, value)
    saver = Saver(tmp_path)
    uploader = CheckpointUploader(s3_destination)  # nothing explicit
    run([saver, uploader], steps=2)
    assert uploader.report is not None and uploader.report.uploaded == tuple(
        saver.paths
    )


def test_refused_credentials_fail_at_once_without_stopping_training(
    tmp_path: Path, s3_server: Any, s3_destination: str
) -> None:
    options = {**s3_server.store_options(), "secret_access_key": "wrong-secret"}
    saver = Saver(tmp_path)
    uploader = CheckpointUploader(s3_destination, **options)
    with pytest.warns(UploadIncompleteWarning, match="3 checkpoint file"):
        seen = run([saver, uploader], steps=3)
    assert seen == []
    report = uploader.report
    assert report is not None
    assert list(report.failed) == saver.paths
    assert all("PermissionDeniedError" in error for error in report.failed.values())
    assert len(saver.paths) == 3  # every step ran


def test_a_failed_multipart_upload_leaves_no_object(
    tmp_path: Path, s3_server: Any, s3_destination: str
) -> None:
    base = open_store(s3_destination, **s3_server.store_options())

    store = FailsReadingMidway(base.store, base.url)
    uploader = CheckpointUploader(
        s3_destination,
        store=store,
        attempts=2,
        backoff=(0.01, 0.02),
        on_incomplete="ignore",
    )
    run([Saver(tmp_path, size=12 << 20), uploader], steps=1)
    assert store.list() == []
    assert store.size("ck-1.ckpt") is None
    assert uploader.report is not None and list(uploader.report.failed) == [
        str(tmp_path / "ck-1.ckpt")
    ]


def test_server_crash_and_restart_mid_run(
    tmp_path: Path, private_s3_server: Any
) -> None:
    server = private_s3_server
    destination = f"s3://{server.bucket}/restart"
    base = open_store(destination, **server.store_options())
    store = WatchedStore(base)
    uploader = CheckpointUploader(
        destination, store=store, attempts=100, backoff=(0.05, 0.3)
    )
    restarted = threading.Event()

    class Outage(Callback):
        def on_train_step_end(self, run_context: RunContext) -> None:
            if run_context.original_args().cur_step_num == 2:
                server.kill()  # the store disappears while training goes on

        def on_train_end(self, run_context: RunContext) -> None:
            def restart() -> None:
                assert store.failed.wait(60)
                server.restart()
                restarted.set()

            threading.Thread(target=restart, daemon=True).start()

    saver = Saver(tmp_path)
    seen = run(
        [saver, Outage(), uploader], steps=5
    )  # step 2's callback order: Saver publishes, then Outage kills
    assert restarted.is_set()
    assert uploader.report is not None and uploader.report.complete
    assert sorted(e.path for e in seen) == sorted(saver.paths)
    assert max(e.attempts for e in seen) > 1
    for path in saver.paths:
        assert store.sha256(Path(path).name)[0] == sha(path)


def test_slow_uploads_fill_the_queue_and_training_goes_on(
    tmp_path: Path, s3_server: Any, s3_destination: str
) -> None:
    base = open_store(s3_destination, **s3_server.store_options())
    proceed = threading.Event()

    class OpenAtEnd(Callback):
        def on_train_end(self, run_context: RunContext) -> None:
            proceed.set()

    store = WatchedStore(base, gate=proceed)
    saver = Saver(tmp_path, size=1 << 20)
    uploader = CheckpointUploader(
        s3_destination, store=store, queue_size=3, overflow="latest"
    )
    with pytest.warns(UploadIncompleteWarning, match="dropped"):
        seen = run([saver, uploader, OpenAtEnd()], steps=10)
    report = uploader.report
    assert report is not None
    assert len(saver.paths) == 10  # no step waited for the store
    assert report.uploaded[-1] == saver.paths[-1]
    assert set(report.uploaded) | set(report.dropped) == set(saver.paths)
    assert [e.path for e in seen] == list(report.uploaded)
    for path in report.uploaded:
        assert store.sha256(Path(path).name)[0] == sha(path)


@pytest.mark.anyio
async def test_uploads_to_s3_on_both_event_loops(
    tmp_path: Path, s3_server: Any, s3_destination: str, anyio_backend: str
) -> None:
    saver = Saver(tmp_path)
    uploader = CheckpointUploader(s3_destination, **s3_server.store_options())
    await Model(constant_network()).train_async(
        1, ListDataset.of_steps(3), callbacks=[saver, uploader]
    )
    assert uploader.report is not None and uploader.report.uploaded == tuple(
        saver.paths
    )
