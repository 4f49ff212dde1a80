"""A checkpoint directory holds only checkpoints, as MindSpore's does: code that loads every file works.

cadence's commit protocol (hidden temporary file, fsync, rename) needs no pointer
file: `latest_checkpoint` derives the latest committed file from the directory.
"""

from __future__ import annotations

import glob
import os
from typing import Any

import pytest

import cadence as ms
from cadence import Model
from cadence.callbacks import (
    CheckpointConfig,
    CheckpointUploader,
    ModelCheckpoint,
    default_ledger_path,
    latest_checkpoint,
)
from cadence.testing import small_regression_dataset as dataset, small_regression_model


def make_model() -> Model:
    return small_regression_model(metrics={"loss"})


@pytest.mark.parametrize("async_save", [False, True])
def test_loading_every_file_of_the_directory_works(
    tmp_path: Any, async_save: bool
) -> None:
    directory = str(tmp_path / "ckpt")
    config = CheckpointConfig(
        save_checkpoint_steps=2,
        keep_checkpoint_max=3,
        async_save=async_save,
        monitor="loss",
        save_top_k=1,
    )
    model = make_model()
    model.fit(
        2, dataset(), dataset(), callbacks=[ModelCheckpoint("lenet", directory, config)]
    )
    names = sorted(os.listdir(directory))
    assert names and all(n.endswith(".ckpt") for n in names), names

    # The pattern of public MindSpore code: every file of the directory is a checkpoint.
    loaded = {}
    for f in os.listdir(directory):
        loaded[f] = ms.load_checkpoint(os.path.join(directory, f))
    assert all("0.weight" in params for params in loaded.values())
    assert (
        sorted(os.path.basename(p) for p in glob.glob(os.path.join(directory, "*")))
        == names
    )


def test_with_an_uploader_the_directory_still_holds_only_checkpoints(
    tmp_path: Any,
) -> None:
    directory = str(tmp_path / "ckpt")
    remote = tmp_path / "remote"
    config = CheckpointConfig(save_checkpoint_steps=1, keep_checkpoint_max=2)
    callbacks = [
        ModelCheckpoint("net", directory, config),
        CheckpointUploader(f"file://{remote}"),
    ]
    make_model().train(1, dataset(), callbacks=callbacks)
    assert sorted(os.listdir(directory)) == ["net-1_2.ckpt", "net-1_3.ckpt"]
    for f in os.listdir(directory):
        ms.load_checkpoint(os.path.join(directory, f))
    # The upload ledger is kept outside, in the user's state directory (the tests point it to a temporary one).
    ledger = default_ledger_path(directory)
    assert os.path.isfile(ledger) and not ledger.startswith(directory)
    assert {"net-1_1.ckpt", "net-1_2.ckpt", "net-1_3.ckpt"} <= set(os.listdir(remote))


def test_latest_checkpoint_follows_commits_and_prefixes(tmp_path: Any) -> None:
    directory = str(tmp_path)
    assert latest_checkpoint(directory) is None
    assert latest_checkpoint(str(tmp_path / "missing")) is None
    config = CheckpointConfig(save_checkpoint_steps=1)
    make_model().train(
        1, dataset(), callbacks=[ModelCheckpoint("a", directory, config)]
    )
    assert latest_checkpoint(directory) == os.path.join(directory, "a-1_3.ckpt")
    make_model().train(
        1, dataset(), callbacks=[ModelCheckpoint("b", directory, config)]
    )
    assert latest_checkpoint(directory) == os.path.join(directory, "b-1_3.ckpt")
    assert latest_checkpoint(directory, "a") == os.path.join(directory, "a-1_3.ckpt")
    # Equal modification times (coarse file systems): the later epoch and step win.
    for name in os.listdir(directory):
        os.utime(os.path.join(directory, name), ns=(1_000_000_000, 1_000_000_000))
    assert latest_checkpoint(directory, "a") == os.path.join(directory, "a-1_3.ckpt")
    # A temporary file of a write in progress (hidden) is never the latest.
    (tmp_path / ".a-2_1.ckpt.abcdefgh.tmp").write_bytes(b"partial")
    assert latest_checkpoint(directory, "a") == os.path.join(directory, "a-1_3.ckpt")
    assert latest_checkpoint(directory) in {
        os.path.join(directory, n) for n in ("a-1_3.ckpt", "b-1_3.ckpt")
    }


def test_latest_checkpoint_validates_its_arguments() -> None:
    with pytest.raises(TypeError, match="'directory' must be of type 'str', but got 3"):
        latest_checkpoint(3)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match="'prefix' must be of type 'str' or 'NoneType', but got 1"
    ):
        latest_checkpoint(".", 1)  # type: ignore[arg-type]
