"""CheckpointUploader against Azure Blob Storage, emulated by Azurite on loopback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from cadence.callbacks import (
    CheckpointUploader,
    UploadIncompleteWarning,
    download_checkpoint,
    list_remote_checkpoints,
)
from tests.helpers.uploads import Saver, run, sha

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.slow


def read_options(azurite: Any) -> dict[str, Any]:
    """`open_store` spelling of the emulator's options (the uploader calls `config` `store_config`)."""
    options = azurite.store_options()
    config = options.pop("store_config")
    return {**options, "config": config}


def test_checkpoints_go_up_in_blocks_verified_and_come_back(
    tmp_path: Path, azurite: Any, az_destination: str
) -> None:
    saver = Saver(tmp_path, size=11 << 20)  # three blocks of 5 MiB at most
    uploader = CheckpointUploader(
        az_destination, chunk_size=5 << 20, keep_last=1, **azurite.store_options()
    )
    seen = run([saver, uploader], steps=2)
    assert [(e.url, e.sha256) for e in seen] == [
        (f"{az_destination}/ck-{i}.ckpt", sha(saver.paths[i - 1])) for i in (1, 2)
    ]
    assert uploader.report is not None and uploader.report.complete
    remote = list_remote_checkpoints(az_destination, **read_options(azurite))
    assert [(c.name, c.size) for c in remote] == [
        ("ck-2.ckpt", 11 << 20)
    ]  # keep_last=1
    restored = download_checkpoint(
        az_destination, str(tmp_path / "back"), **read_options(azurite)
    )
    assert sha(restored) == sha(saver.paths[1])


def test_the_emulator_variables_configure_the_store(
    tmp_path: Path, azurite: Any, az_destination: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The standard way to point Azure clients at Azurite: nothing explicit.
    monkeypatch.setenv("AZURE_STORAGE_USE_EMULATOR", "true")
    monkeypatch.setenv("AZURITE_BLOB_STORAGE_URL", f"http://127.0.0.1:{azurite.port}")
    saver = Saver(tmp_path)
    uploader = CheckpointUploader(az_destination)
    run([saver, uploader], steps=2)
    assert uploader.report is not None
    assert uploader.report.uploaded == tuple(saver.paths)


def test_a_wrong_account_key_fails_at_once_without_stopping_training(
    tmp_path: Path, azurite: Any, az_destination: str
) -> None:
    options = azurite.store_options()
    options["store_config"] = {**options["store_config"], "account_key": "d3Jvbmc="}
    saver = Saver(tmp_path)
    uploader = CheckpointUploader(
        az_destination, attempts=2, backoff=(0.01, 0.01), **options
    )
    with pytest.warns(UploadIncompleteWarning, match="2 checkpoint file"):
        seen = run([saver, uploader], steps=2)
    assert seen == []
    assert uploader.report is not None
    assert list(uploader.report.failed) == saver.paths
    assert len(saver.paths) == 2
