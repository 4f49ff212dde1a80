"""`BackupAndRestore`: back up training every few epochs; resume a killed run where it stopped."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from cadence import (
    Callback,
    TrainEpochEnd,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)
from cadence.validation import check_bool, check_positive_int

from .checkpoint._files import ensure_directory
from .checkpoint._finite import finite_weights
from .checkpoint._ranks import load_rank0_file, writes_here
from .checkpoint._warnings import warn
from .checkpoint._writer import snapshot_parameters

if TYPE_CHECKING:
    from cadence import RunContext, Subscription

__all__ = ["BackupAndRestore"]

_OWNER = "BackupAndRestore"
BACKUP_NAME = "backup.ckpt"
EPOCH_ENTRY = "epoch_num"
"""Append entry holding the number of epochs the backup covers."""
STATE_ENTRY = "cadence_callback_state"
"""Append entry holding the other callbacks' states as JSON `{key: state_dict()}`."""
OPTIMIZER_PREFIX = "cadence_optimizer."
"""Name prefix of optimizer parameters saved separately (when not part of the train network)."""
_LAST = 2**62  # bus order: after every callback's own `on_train_epoch_end`


def state_keys(callbacks: list[Any], skip: object) -> list[tuple[str, Any]]:
    """Return `(key, callback)` for every callback with the state protocol, keys made unique (`Key#2`)."""
    seen: dict[str, int] = {}
    pairs = []
    for cb in callbacks:
        key = getattr(cb, "state_key", None)
        if (
            cb is skip
            or not isinstance(key, str)
            or not callable(getattr(cb, "state_dict", None))
        ):
            continue
        seen[key] = seen.get(key, 0) + 1
        pairs.append((key if seen[key] == 1 else f"{key}#{seen[key]}", cb))
    return pairs


class BackupAndRestore(Callback):
    """Back up the train network, optimizer, epoch and callback state; restore them when training restarts.

    At the end of every `save_freq`-th training epoch the state is written
    atomically to `<backup_dir>/backup.ckpt`: the parameters of the train
    network (a `TrainOneStepCell` holds the optimizer's too), the number of
    epochs done, and the state of every other callback in the run that follows
    the state protocol (`state_key`, `state_dict()`, `load_state_dict(state)`:
    EarlyStopping, ReduceLROnPlateau, History, ModelCheckpoint, ...). The backup
    is written after every other callback's `on_train_epoch_end` of that epoch.

    When `Model.train` / `Model.fit` is called again with the same callback
    (e.g. after the process was killed), `on_train_begin` loads the backup,
    restores the callbacks' state and makes the run continue with the epoch
    after the last backed-up one; the result equals an uninterrupted run as long
    as the data pipeline is deterministic per epoch. At the end of training the
    backup is deleted (`delete_checkpoint`); nothing happens when none exists.

    Put it first in the callback list: callbacks before it have run their own
    `on_train_begin` when it restores their state.

    In a multi-rank job (after `cadence.communication.init()`) only rank 0
    writes (and deletes) the backup, and every rank restores rank 0's: its
    bytes are broadcast, so the ranks need no shared file system and resume
    with the same weights, optimizer state, epoch and callback state. Every
    rank must have a `BackupAndRestore` (the restore is a collective).

    Args:
        backup_dir: Directory of the backup file, created at once (mode 0o700).
        save_freq: `"epoch"` (every epoch) or an int: every that many epochs.
        delete_checkpoint: Delete the backup when training ends normally.

    Raises:
        TypeError: `backup_dir` is not a str, `save_freq` not "epoch" or an int,
            `delete_checkpoint` not a bool.
        ValueError: `backup_dir` is blank or `save_freq` is not > 0.
        NotADirectoryError: `backup_dir` is a file.

    Example:
        >>> backup = BackupAndRestore("./backup")  # doctest: +SKIP
        >>> model.train(10, dataset, callbacks=[backup, ModelCheckpoint()])  # doctest: +SKIP
    """

    def __init__(
        self,
        backup_dir: str,
        save_freq: int | str = "epoch",
        delete_checkpoint: bool = True,
    ) -> None:
        self.backup_dir = ensure_directory(backup_dir, _OWNER, "backup_dir")
        self.backup_file = os.path.join(self.backup_dir, BACKUP_NAME)
        if save_freq == "epoch":
            self.save_freq = 1
        else:
            if isinstance(save_freq, str):
                raise TypeError(
                    f"For '{_OWNER}', the argument 'save_freq' must be 'epoch' or an int > 0, but got {save_freq!r}."
                )
            self.save_freq = check_positive_int(save_freq, "save_freq", _OWNER)
        self.delete_checkpoint = check_bool(
            delete_checkpoint, "delete_checkpoint", _OWNER
        )
        self.restored_epoch: int | None = None
        """The epoch count restored by the last `on_train_begin` (None: nothing was restored)."""
        self._subscription: Subscription[Any] | None = None
        self._run_context: RunContext | None = None

    # --- hooks --------------------------------------------------------------------------

    def on_train_begin(self, run_context: RunContext) -> None:
        """Restore the backup if one exists, and arrange the epoch-end backups."""
        self._run_context = run_context
        self.restored_epoch = None
        # Every rank restores rank 0's backup (sent by broadcast in a multi-rank job): the
        # same weights, optimizer state, epoch and callback state everywhere.
        params = load_rank0_file(self.backup_file, self._load)
        epoch = None if params is None else self._restore(run_context, params)
        if epoch is not None:
            self.restored_epoch = epoch
            self._resume(run_context, epoch)
        bus = run_context.bus
        if bus is not None:
            self._subscription = bus.subscribe(
                TrainEpochEnd, self._after_epoch, order=_LAST, name=f"{_OWNER}.backup"
            )

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Back up here only when the run has no bus (a hand-built RunContext); else after every callback."""
        if self._subscription is None:
            self._backup(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        """Delete the backup (with `delete_checkpoint`), if there is one."""
        if (
            self.delete_checkpoint
            and writes_here(rank_zero_only=True)
            and os.path.isfile(self.backup_file)
        ):
            os.remove(self.backup_file)

    def on_run_ended(self, run_context: RunContext) -> None:
        """Stop the epoch-end subscription."""
        if self._subscription is not None:
            self._subscription.unsubscribe()
            self._subscription = None
        self._run_context = None

    # --- backing up -----------------------------------------------------------------------

    def _after_epoch(self, event: TrainEpochEnd) -> None:
        if self._run_context is not None:
            self._backup(self._run_context)

    def _backup(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        epoch = cb.get("cur_epoch_num", 0)
        # Only rank 0's backup is ever restored (every rank receives it), so only rank 0 writes.
        if epoch % self.save_freq or not writes_here(rank_zero_only=True):
            return
        if not finite_weights(cb["train_network"]):
            # Overwriting the backup would lose the last good state for good.
            warn(
                f"BackupAndRestore kept the backup of an earlier epoch instead of backing up epoch {epoch}: "
                "a weight is NaN or infinite (training has diverged).",
                stacklevel=2,
            )
            return
        entries = snapshot_parameters(cb["train_network"])
        optimizer = _separate_optimizer(cb)
        if optimizer is not None:
            for name, value in snapshot_parameters(optimizer).items():
                entries[OPTIMIZER_PREFIX + name] = value
        states = {
            key: callback.state_dict()
            for key, callback in state_keys(cb.get("list_callback", []), self)
        }
        append = {
            EPOCH_ENTRY: int(epoch),
            STATE_ENTRY: json.dumps(states, sort_keys=True),
        }
        # With MindSpore's CRC: a damaged backup is refused at restore, never resumed from.
        save_checkpoint(entries, self.backup_file, append_dict=append, crc_check=True)

    # --- restoring --------------------------------------------------------------------------

    def _load(self, path: str) -> dict[str, Any]:
        try:
            return load_checkpoint(path)
        except ValueError as error:
            raise ValueError(
                f"For '{_OWNER}', the backup {self.backup_file!r} (rank 0's in a multi-rank job) cannot be "
                f"restored: {error} Delete it to train from the start."
            ) from error

    def _restore(self, run_context: RunContext, params: dict[str, Any]) -> int:
        """Load the backup's `params` into the network, optimizer and callbacks; return the epochs it covers."""
        cb = run_context.original_args()
        epoch_param = params.pop(EPOCH_ENTRY, None)
        state_text = params.pop(STATE_ENTRY, "{}")
        optimizer_params = {
            k[len(OPTIMIZER_PREFIX) :]: params.pop(k)
            for k in list(params)
            if k.startswith(OPTIMIZER_PREFIX)
        }
        load_param_into_net(cb["train_network"], params)
        optimizer = _separate_optimizer(cb)
        if optimizer is not None and optimizer_params:
            load_param_into_net(optimizer, optimizer_params)
        states = json.loads(state_text) if isinstance(state_text, str) else {}
        for key, callback in state_keys(cb.get("list_callback", []), self):
            if key in states and callable(getattr(callback, "load_state_dict", None)):
                callback.load_state_dict(states[key])
        epoch = (
            int(epoch_param.asnumpy())
            if epoch_param is not None and not isinstance(epoch_param, str)
            else 0
        )
        return epoch

    def _resume(self, run_context: RunContext, epoch: int) -> None:
        # The loop ignores an epoch not after the run's `initial_epoch`; it refuses
        # (ValueError) one that leaves no epoch to train.
        try:
            run_context.resume_after_epoch(epoch)
        except ValueError:
            warn(
                f"BackupAndRestore: the backup {self.backup_file!r} already covers {epoch} epochs, as many as this "
                "run trains; the weights and callback state were restored and the run trains its epochs again. "
                "Delete the backup to start afresh.",
                stacklevel=2,
            )


def _separate_optimizer(cb: Any) -> Any:
    """Return `cb_params.optimizer` when its parameters are not all part of the train network, else None."""
    optimizer = cb.get("optimizer")
    if optimizer is None or not callable(
        getattr(optimizer, "parameters_and_names", None)
    ):
        return None
    network = cb.get("train_network")
    owned = (
        {id(p) for _, p in network.parameters_and_names()}
        if network is not None
        else set()
    )
    if all(id(p) in owned for _, p in optimizer.parameters_and_names()):
        return None
    return optimizer
