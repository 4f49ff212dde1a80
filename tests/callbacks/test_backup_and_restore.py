"""BackupAndRestore: validation, backups, and restoring weights, optimizer, epoch and callback state.

A training process killed with SIGKILL resumes to the same final weights as an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Callback, Model, RunContext
from cadence.callbacks import (
    BackupAndRestore,
    CheckpointWarning,
    History,
    latest_checkpoint,
)
from cadence.testing import (
    HookRecorder,
    small_regression_dataset as dataset,
    small_regression_model as make_model,
)
from tests.helpers.failures import CrashAt


def weights(model: Model) -> dict[str, Any]:
    network: Any = model.train_network
    return {n: p.asnumpy().copy() for n, p in network.parameters_and_names()}


def crash_in_epoch(epoch: int) -> CrashAt:
    """Raise at the end of step 1 of `epoch`: a crash after the backup of the epoch before."""
    return CrashAt(epoch=epoch, error=KeyError, message="simulated crash")


# --- validation -----------------------------------------------------------------------------


def test_validation(tmp_path: Any) -> None:
    assert BackupAndRestore(str(tmp_path)).save_freq == 1
    assert BackupAndRestore(str(tmp_path), save_freq=3).save_freq == 3
    with pytest.raises(
        ValueError,
        match=r"For 'BackupAndRestore', the argument 'save_freq' must be an int > 0, but got 0\.",
    ):
        BackupAndRestore(str(tmp_path), save_freq=0)
    with pytest.raises(
        TypeError,
        match=r"argument 'save_freq' must be 'epoch' or an int > 0, but got 'step'",
    ):
        BackupAndRestore(str(tmp_path), save_freq="step")
    with pytest.raises(
        TypeError,
        match=r"argument 'save_freq' must be an int > 0, but got 1\.5 of type 'float'",
    ):
        BackupAndRestore(str(tmp_path), save_freq=1.5)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError,
        match=r"argument 'delete_checkpoint' must be a bool, but got 1 of type 'int'",
    ):
        BackupAndRestore(str(tmp_path), delete_checkpoint=1)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError,
        match=r"argument 'backup_dir' must be a str path, but got 1 of type 'int'",
    ):
        BackupAndRestore(1)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"argument 'backup_dir' must be a non-blank path"
    ):
        BackupAndRestore("  ")
    file = tmp_path / "f"
    file.write_text("x")
    with pytest.raises(
        NotADirectoryError, match=r"argument 'backup_dir' must be a directory"
    ):
        BackupAndRestore(str(file))


def test_backup_dir_is_created_at_once(tmp_path: Any) -> None:
    BackupAndRestore(str(tmp_path / "b"))
    assert (tmp_path / "b").is_dir()


# --- backing up -----------------------------------------------------------------------------


def test_backup_is_deleted_at_the_end(tmp_path: Any) -> None:
    make_model().train(2, dataset(), callbacks=[BackupAndRestore(str(tmp_path))])
    assert os.listdir(tmp_path) == []


def test_nothing_backed_up_is_not_an_error(tmp_path: Any) -> None:
    # MindSpore raises FileNotFoundError here (save_freq 2, one epoch).
    make_model().train(
        1, dataset(), callbacks=[BackupAndRestore(str(tmp_path), save_freq=2)]
    )
    assert os.listdir(tmp_path) == []


def test_backup_holds_weights_epoch_and_state(tmp_path: Any) -> None:
    model = make_model()
    history = History()
    model.train(
        2,
        dataset(),
        callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False), history],
    )
    loaded = ms.load_checkpoint(str(tmp_path / "backup.ckpt"))
    epoch = loaded["epoch_num"]
    assert not isinstance(epoch, str) and int(epoch.asnumpy()) == 2
    state = loaded["cadence_callback_state"]
    assert isinstance(state, str)
    # Written after History's own epoch end: both epochs are in it.
    assert json.loads(state)["History"]["epoch"] == {"epoch": [1, 2]}
    for name, value in weights(model).items():
        stored = loaded[
            name.split(".", 2)[-1]
            if name.startswith("network.")
            else name.split(".", 1)[-1]
        ]
        assert not isinstance(stored, str)
        np.testing.assert_array_equal(stored.asnumpy(), value)


def test_save_freq_counts_epochs(tmp_path: Any) -> None:
    saved = []

    class Look(Callback):
        def on_train_epoch_begin(self, run_context: RunContext) -> None:
            path = tmp_path / "backup.ckpt"
            entry: Any = (
                ms.load_checkpoint(str(path))["epoch_num"] if path.exists() else None
            )
            saved.append(None if entry is None else int(entry.asnumpy()))

    make_model().train(
        5, dataset(), callbacks=[BackupAndRestore(str(tmp_path), save_freq=2), Look()]
    )
    assert saved == [None, None, 2, 2, 4]


# --- restoring --------------------------------------------------------------------------------


def test_resume_after_a_crash_matches_an_uninterrupted_run(tmp_path: Any) -> None:
    reference = make_model()
    reference_history = History()
    reference.train(4, dataset(), callbacks=[reference_history])

    crashed = make_model()
    with pytest.raises(KeyError, match="simulated crash"):
        crashed.train(
            4,
            dataset(),
            callbacks=[BackupAndRestore(str(tmp_path)), History(), crash_in_epoch(3)],
        )

    resumed = make_model()  # fresh weights: everything must come from the backup
    backup, history, recorder = (
        BackupAndRestore(str(tmp_path)),
        History(),
        HookRecorder(),
    )
    resumed.train(4, dataset(), callbacks=[backup, history, recorder])
    assert backup.restored_epoch == 2
    epochs = [
        info["cur_epoch_num"]
        for name, info in recorder.calls
        if name == "on_train_epoch_begin"
    ]
    assert epochs == [3, 4]
    for name, value in weights(reference).items():
        np.testing.assert_array_equal(weights(resumed)[name], value)
    assert history.epoch == reference_history.epoch == {"epoch": [1, 2, 3, 4]}
    assert history.history == reference_history.history
    assert os.listdir(tmp_path) == []


def test_restore_with_backup_after_stateful_callbacks(tmp_path: Any) -> None:
    # History before BackupAndRestore: its on_train_begin ran before the restore; the state still arrives.
    with pytest.raises(KeyError):
        make_model().train(
            3,
            dataset(),
            callbacks=[History(), BackupAndRestore(str(tmp_path)), crash_in_epoch(2)],
        )
    history = History()
    make_model().train(
        3, dataset(), callbacks=[history, BackupAndRestore(str(tmp_path))]
    )
    assert history.epoch == {"epoch": [1, 2, 3]}


def test_backup_covering_every_epoch_warns_and_trains_again(tmp_path: Any) -> None:
    make_model().train(
        2,
        dataset(),
        callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)],
    )
    recorder = HookRecorder()
    with pytest.warns(
        CheckpointWarning, match=r"already covers 2 epochs, as many as this run trains"
    ):
        make_model().train(
            2, dataset(), callbacks=[BackupAndRestore(str(tmp_path)), recorder]
        )
    assert [
        i["cur_epoch_num"] for n, i in recorder.calls if n == "on_train_epoch_begin"
    ] == [1, 2]


def test_a_resumed_run_keeps_the_checkpoint_prefix_retention_and_latest(
    tmp_path: Any,
) -> None:
    from cadence.callbacks import CheckpointConfig, ModelCheckpoint

    ckpt_dir = str(tmp_path / "ckpt")

    def callbacks(*extra: Callback) -> list[Callback]:
        config = CheckpointConfig(save_checkpoint_steps=3, keep_checkpoint_max=2)
        return [
            BackupAndRestore(str(tmp_path / "backup")),
            ModelCheckpoint(prefix="r", directory=ckpt_dir, config=config),
            *extra,
        ]

    with pytest.raises(KeyError):
        make_model().train(5, dataset(), callbacks=callbacks(crash_in_epoch(4)))
    assert sorted(os.listdir(ckpt_dir)) == ["r-2_3.ckpt", "r-3_3.ckpt"]
    resumed = callbacks()
    checkpoint: Any = resumed[1]
    assert checkpoint.prefix == "r_1"  # MindSpore's de-duplication, before the resume
    make_model().train(5, dataset(), callbacks=resumed)
    assert checkpoint.prefix == "r"  # the interrupted run's own prefix
    assert sorted(os.listdir(ckpt_dir)) == ["r-4_3.ckpt", "r-5_3.ckpt"]
    assert latest_checkpoint(ckpt_dir, "r") == os.path.join(ckpt_dir, "r-5_3.ckpt")


def test_initial_epoch_beyond_the_backup_is_kept(tmp_path: Any) -> None:
    with pytest.raises(KeyError):
        make_model().train(
            4, dataset(), callbacks=[BackupAndRestore(str(tmp_path)), crash_in_epoch(2)]
        )
    recorder = HookRecorder()
    make_model().train(
        4,
        dataset(),
        callbacks=[BackupAndRestore(str(tmp_path)), recorder],
        initial_epoch=2,
    )
    assert [
        i["cur_epoch_num"] for n, i in recorder.calls if n == "on_train_epoch_begin"
    ] == [3, 4]


# --- a real process, killed -----------------------------------------------------------------------

SCRIPT = textwrap.dedent(
    """
    import json, os, signal, sys
    import numpy as np
    import cadence as ms
    from cadence import Callback, Model, nn
    from cadence.callbacks import BackupAndRestore, History, ModelCheckpoint, CheckpointConfig
    from cadence.dataset import NumpySlicesDataset

    backup_dir, out, kill_epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ms.set_seed(7)
    net = nn.SequentialCell([nn.Dense(3, 8), nn.ReLU(), nn.Dense(8, 2)])
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.05, 0.9))
    rng = np.random.default_rng(3)
    data = NumpySlicesDataset(
        {"x": rng.standard_normal((16, 3)).astype(np.float32), "y": rng.standard_normal((16, 2)).astype(np.float32)},
        shuffle=False,
    ).batch(4)

    class Kill(Callback):
        def on_train_step_end(self, run_context):
            cb = run_context.original_args()
            if cb.cur_epoch_num == kill_epoch and (cb.cur_step_num - 1) % cb.batch_num + 1 == 2:
                os.kill(os.getpid(), signal.SIGKILL)

    history = History()
    callbacks = [BackupAndRestore(backup_dir), history, Kill()]
    if backup_dir == "-":
        callbacks = [history]
    model.train(5, data, callbacks=callbacks)
    ms.save_checkpoint(model.train_network, out)
    with open(out + ".json", "w") as f:
        json.dump(history.state_dict(), f)
    """
)


def run_script(
    tmp_path: Any, backup: str, out: str, kill_epoch: int
) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    return subprocess.run(
        [sys.executable, str(script), backup, out, str(kill_epoch)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_sigkilled_process_resumes_to_the_same_weights(tmp_path: Any) -> None:
    backup = str(tmp_path / "backup")
    reference = run_script(tmp_path, "-", str(tmp_path / "reference.ckpt"), 0)
    assert reference.returncode == 0, reference.stderr
    killed = run_script(tmp_path, backup, str(tmp_path / "resumed.ckpt"), 4)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert os.listdir(backup) == [
        "backup.ckpt"
    ]  # no temporary file left behind: the backup was committed
    assert not (tmp_path / "resumed.ckpt").exists()
    resumed = run_script(tmp_path, backup, str(tmp_path / "resumed.ckpt"), 0)
    assert resumed.returncode == 0, resumed.stderr
    expected = ms.load_checkpoint(str(tmp_path / "reference.ckpt"))
    got = ms.load_checkpoint(str(tmp_path / "resumed.ckpt"))
    assert list(got) == list(expected)
    for name, value in expected.items():
        assert not isinstance(value, str)
        other = got[name]
        assert not isinstance(other, str)
        np.testing.assert_array_equal(other.asnumpy(), value.asnumpy(), err_msg=name)
    assert json.loads((tmp_path / "resumed.ckpt.json").read_text()) == json.loads(
        (tmp_path / "reference.ckpt.json").read_text()
    )
    assert os.listdir(backup) == []


# --- integrity: CRC, diverged weights ---------------------------------------------------------


class DivergeAtEpoch(Callback):
    """Turn every weight into NaN at the end of step 1 of `epoch` (a diverging run)."""

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb.cur_epoch_num == self.epoch:
            for param in cb.train_network.trainable_params():
                param.set_data(ms.Tensor(np.full(param.shape, np.nan, np.float32)))


def test_a_diverged_epoch_does_not_overwrite_the_last_good_backup(
    tmp_path: Any,
) -> None:
    backup = BackupAndRestore(str(tmp_path), delete_checkpoint=False)
    with pytest.warns(CheckpointWarning) as caught:
        make_model().train(3, dataset(), callbacks=[backup, DivergeAtEpoch(2)])
    loaded = ms.load_checkpoint(str(tmp_path / "backup.ckpt"))
    epoch = loaded["epoch_num"]
    assert not isinstance(epoch, str) and int(epoch.asnumpy()) == 1
    for value in loaded.values():
        assert isinstance(value, str) or np.isfinite(value.asnumpy()).all()
    assert [str(w.message) for w in caught if w.category is CheckpointWarning] == [
        f"BackupAndRestore kept the backup of an earlier epoch instead of backing up epoch {n}: "
        "a weight is NaN or infinite (training has diverged)."
        for n in (2, 3)
    ]


def test_the_backup_carries_a_crc_and_a_damaged_one_is_refused(tmp_path: Any) -> None:
    make_model().train(
        1,
        dataset(),
        callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)],
    )
    path = tmp_path / "backup.ckpt"
    data = bytearray(path.read_bytes())
    assert data[-17:-10] == b"crc_num"
    data[40] ^= 0x01  # inside the first weight
    path.chmod(0o600)
    path.write_bytes(bytes(data))
    with pytest.raises(
        ValueError, match=r"cannot be restored: .* the file is damaged.* Delete it"
    ):
        make_model().train(
            2,
            dataset(),
            callbacks=[BackupAndRestore(str(tmp_path), delete_checkpoint=False)],
        )
