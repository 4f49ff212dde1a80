"""`ModelCheckpoint`: save the train network's parameters while training, MindSpore style."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import os
import re
import threading
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from cadence import (
    Callback,
    CheckpointSaved,
    CheckpointSnapshot,
)

from .checkpoint._config import CheckpointConfig
from .checkpoint._files import (
    BREAKPOINT_SUFFIX,
    InFlight,
    check_prefix,
    dedup_prefix,
    ensure_directory,
    file_sha256,
    managed_files,
    oldest_first,
    step_in_epoch,
)
from .checkpoint._finite import finite_loss, finite_weights
from .checkpoint._ranks import writes_here
from .checkpoint._read_only import ReadOnly
from .checkpoint._warnings import warn
from .checkpoint._writer import CheckpointWriter

if TYPE_CHECKING:
    from collections.abc import Callable

    from cadence import RunContext

__all__ = ["ModelCheckpoint"]

_OWNER = "ModelCheckpoint"
_FORMATS = ("ckpt", "safetensors")
_DEFAULT_DIRECTORY = (
    os.getcwd()
)  # MindSpore: the working directory when the callbacks module is imported


@dataclasses.dataclass(eq=False)
class _Job:
    """One file to commit: what to write, where, and what to do once it is committed."""

    path: str
    save_obj: Any
    append: dict[str, Any] | None
    epoch: int | None
    step: int
    retain: Callable[[], None] | None = None  # run before the file is written
    after_commit: Callable[[], None] | None = None
    snapshot: CheckpointSnapshot | None = None
    size: int = 0  # bytes written, set when committed


class ModelCheckpoint(Callback):
    """Save checkpoints during training: every n steps or seconds, at the end, and on failure.

    Files are named `<prefix>-<epoch>_<step in epoch>.<format>` (with a callable
    prefix: `<prefix(cb_params)>.<format>`) in `directory`. Retention keeps the
    newest `keep_checkpoint_max` files of the prefix (by modification time), or
    one per `keep_checkpoint_per_n_minutes`; a forced save at the end of training
    captures the last step. When the directory already holds checkpoints of the
    prefix, the prefix becomes `<prefix>_<n>` (decided here, at construction), so
    runs never overwrite each other. See `CheckpointConfig` for the options.

    Beyond MindSpore:

    - `CheckpointConfig(rank_zero_only=True)` makes only rank 0 of a data-parallel
      job write files; the callback does nothing on the other ranks.

    - Every file is written atomically (temporary file, fsync, rename: a file under
      its final name is a committed one, so the directory itself says which file is
      the latest, see `latest_checkpoint`; no bookkeeping file sits among the
      checkpoints); after it is committed, a `cadence.CheckpointSaved` event
      (path, epoch, step, format, size, sha256) is published on the run's bus from
      the training thread at the callback's next hook. The sha256 is computed only
      once something asks for it with `request_sha256()` (an uploader that verifies
      digests does, when the run begins); otherwise it is None: hashing costs more
      CPU than writing the file.
    - Retention deletes only committed files, never one being written, and asks
      every deletion gate (`add_deletion_gate`) first; a file a gate holds is
      deleted later, once every gate allows it (`retry_deletions`).
    - With `config.monitor`, the `save_top_k` best checkpoints by that value are kept
      as `<prefix>-best-<epoch>_<step in epoch>.<format>`, judged at every training
      epoch end (see `best_k_models`, `best_model_path`).
    - `exception_save` works however `callbacks` was passed; nothing happens in
      `Model.eval` (MindSpore raises KeyError there).
    - A save is skipped, with a warning (once per run), when the last step's loss
      or a floating-point weight is NaN or infinite: training has diverged, and
      writing the weights would let retention delete the last good checkpoints.
      Saving resumes when all is finite again. (MindSpore saves them.) The check
      costs one summing pass over the parameters per save.
    - Saving stalls training only for a copy of the parameters (a
      `CheckpointSnapshot` captured at the save point, so the file holds exactly
      that step's values, in memory reused from one save to the next): a writer
      thread writes, fsyncs, renames and hashes if asked. Without
      `async_save`, at most one file is pending and every file is committed before
      the next save, at the end of its epoch, and when `Model.train` returns (or
      raises); `async_save=True` (`"thread"`, `"process"`) lets two snapshots queue
      and drops the per-epoch wait. Either way `latest_ckpt_file_name` waits for the
      file it names, and a crash never leaves a partial file under a final name
      (at worst the last file is missing, as if the crash came before the save).

    Args:
        prefix: File name prefix (no '/'), or `prefix(cb_params) -> str`.
        directory: Where files go (created with mode 0o700); None: the working
            directory when `cadence.callbacks` was imported; or `directory(cb_params)`.
        config: A `CheckpointConfig`; None uses the defaults.

    Raises:
        ValueError: `prefix` is neither callable nor a str without '/', or `directory`
            is blank.
        TypeError: `directory` is not a str or callable, or `config` is not a
            `CheckpointConfig`.
        NotADirectoryError: `directory` names a file.

    Example:
        >>> from cadence.callbacks import CheckpointConfig, ModelCheckpoint
        >>> ckpt = ModelCheckpoint(prefix="mlp", directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=100))  # doctest: +SKIP
        >>> model.train(5, dataset, callbacks=[ckpt])  # doctest: +SKIP
    """

    state_key = "ModelCheckpoint"

    def __init__(
        self,
        prefix: str | Callable[[Any], str] = "CKP",
        directory: Any = None,
        config: CheckpointConfig | None = None,
    ) -> None:
        check_prefix(prefix, _OWNER)
        self._prefix_func = prefix if callable(prefix) else None
        self._directory_func: Callable[[Any], str] | None = None
        if directory is None:
            self._directory: str | None = _DEFAULT_DIRECTORY
        elif callable(directory):
            self._directory_func, self._directory = directory, None
        else:
            self._directory = ensure_directory(directory, _OWNER, "directory")
        if config is None:
            config = CheckpointConfig()
        elif not isinstance(config, CheckpointConfig):
            raise TypeError(
                f"For '{_OWNER}', the argument 'config' must be a CheckpointConfig, but got {config!r} of type "
                f"{type(config).__name__!r}."
            )
        self._config = config
        self._original_prefix = "" if callable(prefix) else prefix
        self._prefix = self._original_prefix
        if self._prefix_func is None and self._directory is not None:
            self._prefix = dedup_prefix(self._directory, self._prefix)
        append = config.append_dict or {}
        self._append_epoch_base = append.get("epoch_num", 0)
        self._append_step_base = append.get("step_num", 0)
        self._latest = ""
        self._triggered(0)
        self._clock: Callable[[], float] = time.monotonic
        self._wall: Callable[[], float] = time.time
        self._last_time = self._clock()
        self._last_time_for_keep = self._wall()
        self._writer = CheckpointWriter(max_pending=2 if config.async_save else 1)
        self._gates: list[Callable[[str], bool]] = []
        self._sha256 = False
        self._pending_deletions: list[str] = []
        self._lock = (
            threading.Lock()
        )  # guards the retention state shared with the writer thread
        self._commit_order: dict[str, int] = {}
        self._commits = itertools.count()  # commit sequence numbers (never reused)
        self._best: dict[str, float] = {}
        self._in_training = False
        self._writes = True  # this rank writes files (decided at train begin)
        self._missing_warned = False
        self._skipped_non_finite = (
            0  # saves skipped this run because the loss was NaN or infinite
        )
        self._evaluated = False  # this run had an evaluation pass for `monitor` to read

    # --- public surface ---------------------------------------------------------------

    @property
    def latest_ckpt_file_name(self) -> str:
        """Absolute path of the last checkpoint saved (`''` before the first); always a committed file."""
        if self._latest:
            self._writer.wait_for(self._latest)
        return self._latest

    config = ReadOnly[CheckpointConfig]("The `CheckpointConfig` in use.")
    prefix = ReadOnly[str](
        "The file name prefix after de-duplication (`''` for a callable prefix)."
    )
    directory = ReadOnly[str | None](
        "The checkpoint directory (None for a callable directory)."
    )

    @property
    def best_k_models(self) -> dict[str, float]:
        """`{path: monitored value}` of the top-k checkpoints kept (with `config.monitor`)."""
        return dict(self._best)

    @property
    def best_model_path(self) -> str:
        """Path of the best checkpoint so far (`''` without `config.monitor` or before the first)."""
        if not self._best:
            return ""
        pick = min if self._config.mode == "min" else max
        return pick(self._best, key=lambda p: self._best[p])

    @property
    def best_model_score(self) -> float | None:
        """The monitored value of `best_model_path`, or None."""
        path = self.best_model_path
        return self._best[path] if path else None

    @property
    def pending_deletions(self) -> list[str]:
        """Files retention wants to delete but a deletion gate still holds."""
        with self._lock:
            return list(self._pending_deletions)

    def add_deletion_gate(self, gate: Callable[[str], bool]) -> None:
        """Ask `gate(path)` before retention deletes `path`; it returns True when deleting is fine.

        An uploader uses this to keep a local file until its upload is confirmed.
        A held file is retried at every later save and at the end of training, and
        when `retry_deletions()` is called. Gates are called from the writer
        thread with `async_save`, so they must be thread-safe.
        """
        if not callable(gate):
            raise TypeError(
                f"For '{_OWNER}', the argument 'gate' must be callable, but got {gate!r}."
            )
        self._gates.append(gate)

    def request_sha256(self) -> None:
        """Fill `CheckpointSaved.sha256` for every file committed from now on.

        The digest is computed in the writer thread from the committed file, about
        0.7 ms of CPU per MB, which is why it is off until a subscriber needs it.
        """
        self._sha256 = True

    def retry_deletions(self) -> list[str]:
        """Delete the held files every gate now allows; return those still held."""
        with self._lock:
            pending, self._pending_deletions = self._pending_deletions, []
        for path in pending:
            self._delete(path)
        return self.pending_deletions

    # --- state protocol (BackupAndRestore) ------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Return the state a resumed run needs: the latest file, the top-k table and the prefix in use."""
        return {
            "latest_ckpt_file_name": self._latest,
            "best_k_models": dict(self._best),
            "prefix": self._prefix,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore what `state_dict` returned.

        A resumed run goes on with the interrupted run's prefix: the files it
        finds in the directory are its own, so the prefix de-duplication of the
        constructor (`CKP` -> `CKP_1`) is undone, and retention and
        `latest_ckpt_file_name` continue where the interrupted run stopped. This applies when
        the state's latest file lies in this callback's directory and its prefix
        is this callback's, possibly de-duplicated.
        """
        self._latest = str(state.get("latest_ckpt_file_name", ""))
        self._best = {
            str(k): float(v) for k, v in dict(state.get("best_k_models", {})).items()
        }
        prefix = state.get("prefix")
        if (
            isinstance(prefix, str)
            and self._prefix_func is None
            and self._directory is not None
            and os.path.dirname(self._latest) == self._directory
            and re.fullmatch(re.escape(self._original_prefix) + r"(_\d+)?", prefix)
        ):
            self._prefix = prefix

    # --- hooks ---------------------------------------------------------------------------

    def on_train_begin(self, run_context: RunContext) -> None:
        """Start counting steps and seconds for this run."""
        self._writes = writes_here(self._config.rank_zero_only)
        self._in_training = True
        self._evaluated = False
        self._skipped_non_finite = 0
        if self._config.monitor is not None:
            self._check_order(run_context.original_args().get("list_callback", []))
        self._triggered(0)
        self._last_time = self._clock()

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Save when the step or time trigger is due."""
        # Runs every step: the common case (nothing committed, no save due) is two reads.
        if self._writer.has_events:
            self._publish(run_context)
        if run_context.original_args().get("cur_step_num", 0) < self._next_due_step:
            return
        self._save_ckpt(run_context, force=False)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Save a top-k checkpoint (with `monitor`); without `async_save`, commit the epoch's files."""
        if self._config.monitor is not None:
            self._save_best(run_context)
        if not self._config.async_save:
            self._writer.drain()
        self._publish(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        """Force a save of the last step, wait until every file is committed, publish their events."""
        monitor = self._config.monitor
        if monitor not in (None, "loss") and not self._evaluated:
            warn(
                f"ModelCheckpoint keeps the best checkpoints by {monitor!r}, an evaluation result, but no "
                "epoch of this run had an evaluation pass, so no top-k checkpoint was saved: use "
                "Model.fit with a valid_dataset (Model.train never evaluates), or monitor 'loss'.",
                stacklevel=4,
            )
        self._save_ckpt(run_context, force=True)
        self._writer.drain()
        self.retry_deletions()
        self._publish(run_context)
        self._in_training = False

    def on_run_failed(self, run_context: RunContext, exception: BaseException) -> None:
        """With `exception_save`, write `<prefix>-<epoch>_<step>_breakpoint.ckpt` (MindSpore's breakpoint file)."""
        self._breakpoint(run_context, exception)

    def on_run_ended(self, run_context: RunContext) -> None:
        """Finish pending writes and stop the writer thread (every outcome)."""
        cb = run_context.original_args()
        if (
            cb.get("outcome") == "cancelled"
        ):  # KeyboardInterrupt or a cancelled async run: MindSpore saves too
            self._breakpoint(run_context, cb.get("exception"))
        self._in_training = False
        try:
            self._writer.close()
        finally:
            self._publish(run_context)

    # --- triggers --------------------------------------------------------------------------

    def _triggered(self, step: int) -> None:
        """Record a save (or a run's start) at `step`: the next step trigger is due `save_checkpoint_steps` later."""
        self._last_triggered_step = step
        # Without a step trigger (the time trigger, or none) every step goes on to `_due`.
        every = self._config.save_checkpoint_steps
        self._next_due_step = step + every if every else 0

    def _due(self, step: int, force: bool) -> bool:
        config = self._config
        if config.save_checkpoint_steps:
            return force or step >= self._next_due_step
        if config.save_checkpoint_seconds:
            now = self._clock()
            if force or now - self._last_time > config.save_checkpoint_seconds:
                self._last_time = now
                return True
        return False

    def _save_ckpt(self, run_context: RunContext, *, force: bool) -> None:
        cb = run_context.original_args()
        step = cb.get("cur_step_num", 0)
        if (
            step == self._last_triggered_step
            or not self._writes
            or not self._due(step, force)
        ):
            return
        self._triggered(step)
        network = self._config.saved_network or cb["train_network"]
        if not (finite_loss(cb) and finite_weights(network)):
            self._skip_non_finite(step)
            return
        prefix, directory = self._resolve(cb)
        fmt = self._checked_format()
        epoch = cb.get("cur_epoch_num", 1)
        if self._prefix_func is not None:
            name = f"{prefix}.{fmt}"
        else:
            name = (
                f"{prefix}-{epoch}_{step_in_epoch(step, cb.get('batch_num', 0))}.{fmt}"
            )
        job = self._job(cb, os.path.join(directory, name), epoch, step)
        if self._config.keep_checkpoint_max:  # once the new file is committed
            job.after_commit = lambda: self._retain(directory, prefix, fmt, job.path)
        else:  # keep-per-n-minutes: before it is written (MindSpore's rule)
            job.retain = lambda: self._retain(directory, prefix, fmt, None)
        self._dispatch(job)

    def _resolve(self, cb: Any) -> tuple[str, str]:
        prefix = self._prefix
        if self._prefix_func is not None:
            returned: Any = self._prefix_func(cb)
            if not isinstance(returned, str) or "/" in returned:
                raise ValueError(
                    f"For '{_OWNER}', the callable argument 'prefix' must return a str that does not contain '/', "
                    f"but it returned {returned!r}."
                )
            prefix = returned
        directory = self._directory
        if self._directory_func is not None:
            directory = ensure_directory(
                self._directory_func(cb),
                _OWNER,
                "directory (as returned by the callable)",
            )
        assert directory is not None
        return prefix, directory

    def _checked_format(self) -> str:
        config = self._config
        if config.format not in _FORMATS:
            raise ValueError(
                f"For '{_OWNER}', the checkpoint format must be 'ckpt' or 'safetensors', but got {config.format!r} "
                "(CheckpointConfig 'format')."
            )
        if config.enc_key is not None:
            raise NotImplementedError(
                f"For '{_OWNER}', encrypted checkpoints ('enc_key') are not supported by cadence; leave "
                "'enc_key' at its default in CheckpointConfig."
            )
        return config.format

    def _skip_non_finite(self, step: int) -> None:
        # Saving would write diverged weights and let retention delete the last good files.
        self._skipped_non_finite += 1
        if self._skipped_non_finite == 1:
            kept = self._latest or "none yet"
            warn(
                f"ModelCheckpoint skipped the save at step {step}: the loss or a weight is NaN or infinite "
                f"(training has diverged). The checkpoints saved before are kept (the latest: {kept}); "
                "later saves are skipped too while that lasts (this warning is not repeated).",
                stacklevel=5,
            )

    # --- top-k by a monitored value -----------------------------------------------------------

    def _monitored(self, cb: Any) -> float | None:
        monitor = self._config.monitor
        if monitor == "loss":
            value: Any = cb.get("net_outputs")
            if isinstance(value, tuple | list):
                value = value[0] if value else None
        else:
            results = cb.get("eval_results")
            if results is None:
                return None  # an epoch without an evaluation pass
            self._evaluated = True
            value = results.get(monitor)
            if value is None:
                self._warn_missing(sorted(results))
                return None
        if value is None:
            return None
        data = value.asnumpy() if hasattr(value, "asnumpy") else value
        try:
            number = float(np.mean(data))
        except (TypeError, ValueError):
            return None
        return number if math.isfinite(number) else None

    def _check_order(self, callbacks: list[Any]) -> None:
        """Warn when a callback that restores the best weights at a stop runs before this one."""
        for callback in callbacks:
            if callback is self:
                return
            if getattr(callback, "restore_best_weights", False) is True:
                name = type(callback).__name__
                warn(
                    f"ModelCheckpoint keeps the best checkpoints by {self._config.monitor!r} but comes after "
                    f"{name}(restore_best_weights=True) in the callback list: when {name} stops training it "
                    "loads the best epoch's weights in its on_train_epoch_end, before this callback saves, so "
                    "a top-k file of the last epoch would hold those weights under the last epoch's score. "
                    f"List ModelCheckpoint before {name}.",
                    stacklevel=5,
                )
                return

    def _warn_missing(self, available: list[str]) -> None:
        if not self._missing_warned:
            self._missing_warned = True
            warn(
                f"ModelCheckpoint keeps the best checkpoints by {self._config.monitor!r}, which is not in "
                f"cb_params.eval_results; no top-k checkpoint is saved for it. Available: {['loss', *available]}.",
                stacklevel=5,
            )

    def _is_top_k(self, value: float) -> tuple[bool, str | None]:
        """Return whether `value` enters the top k, and which kept file it evicts."""
        k = self._config.save_top_k
        if k == -1 or len(self._best) < k:
            return True, None
        worst = (max if self._config.mode == "min" else min)(
            self._best, key=lambda p: self._best[p]
        )
        better = (
            value < self._best[worst]
            if self._config.mode == "min"
            else value > self._best[worst]
        )
        return better, worst if better else None

    def _save_best(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        value = self._monitored(cb)
        if value is None or not self._writes:
            return
        enters, evicted = self._is_top_k(value)
        if not enters:
            return
        prefix, directory = self._resolve(cb)
        fmt = self._checked_format()
        epoch, step = cb.get("cur_epoch_num", 1), cb.get("cur_step_num", 0)
        # Named by epoch and step with a callable prefix too: the kept files must not share a name.
        name = (
            f"{prefix}-best-{epoch}_{step_in_epoch(step, cb.get('batch_num', 0))}.{fmt}"
        )
        path = os.path.join(directory, name)
        job = self._job(cb, path, epoch, step)
        if evicted is not None:
            del self._best[evicted]
            # A file replaced under its own name is not deleted after the commit.
            if evicted != path:
                job.after_commit = lambda: self._delete(evicted)
        self._best[path] = value
        self._dispatch(job)

    # --- writing ---------------------------------------------------------------------------

    def _job(
        self, cb: Any, path: str, epoch: int | None, step: int, network: Any = None
    ) -> _Job:
        """The job that writes `network` (default: `saved_network`, else the train network) to `path`."""
        if network is None:
            network = self._config.saved_network or cb["train_network"]
        append = None
        if self._config.append_dict is not None:
            append = dict(self._config.append_dict)
            if "epoch_num" in append:
                append["epoch_num"] = self._append_epoch_base + (epoch or 0)
            if "step_num" in append:
                append["step_num"] = self._append_step_base + step
        return _Job(path, network, append, epoch, step)

    def _dispatch(self, job: _Job) -> None:
        # The training thread only copies the parameters; the writer thread does the
        # rest, in order. Without `async_save` at most one file is pending: the
        # previous one is committed before the next snapshot is taken.
        if not self._config.async_save:
            self._writer.drain()
        self._writer.raise_errors()
        self._capture(job)
        self._latest = job.path
        InFlight.add(job.path)
        self._writer.submit(lambda: self._commit(job), path=job.path)

    def _capture(self, job: _Job) -> None:
        """Copy the job's parameters (and append values) into a snapshot, on the calling thread."""
        snapshot = self._writer.snapshot()
        try:
            snapshot.capture(
                job.save_obj,
                job.append,
                format=self._config.format,
                crc_check=self._config.crc_check,
            )
        except BaseException:
            self._writer.release(snapshot)
            raise
        job.snapshot, job.save_obj, job.append = snapshot, None, None

    def _commit(self, job: _Job) -> None:
        self._write(job)
        self._after_commit(job)

    def _write(self, job: _Job) -> None:
        try:
            if job.retain is not None:
                job.retain()
            assert job.snapshot is not None
            job.size = job.snapshot.write(job.path)
            with self._lock:
                self._commit_order[job.path] = next(self._commits)
        finally:
            InFlight.discard(job.path)
            if job.snapshot is not None:
                self._writer.release(job.snapshot)
                job.snapshot = None

    def _after_commit(self, job: _Job) -> None:
        event = CheckpointSaved(
            path=job.path,
            epoch=job.epoch,
            step=job.step,
            format=self._config.format,
            size_bytes=job.size,
            sha256=file_sha256(job.path) if self._sha256 else None,
        )
        if job.after_commit is not None:
            job.after_commit()
        self._writer.add_event(event)

    def _publish(self, run_context: RunContext) -> None:
        events = self._writer.take_events()
        if run_context.bus is None:
            return
        for event in events:
            run_context.publish(event)

    # --- retention ----------------------------------------------------------------------------

    def _retain(
        self, directory: str, prefix: str, fmt: str, committed: str | None
    ) -> None:
        """Apply keep-max (once `committed` is committed) or keep-per-n-minutes (before a new file is written).

        MindSpore applies both before writing, to the files that exist then. Keep-max
        here waits until the new file is committed and leaves it out of the count:
        the same files remain, but a crash or a failed write never leaves fewer
        than `keep_checkpoint_max` committed files (with 1, MindSpore's order
        deletes the only checkpoint before its successor exists).
        """
        self.retry_deletions()
        with self._lock:
            held = set(self._pending_deletions)
        files = [
            p
            for p in managed_files(directory, prefix, fmt)
            if p not in held and p != committed and not InFlight.contains(p)
        ]
        keep_max = self._config.keep_checkpoint_max
        minutes = self._config.keep_checkpoint_per_n_minutes
        if keep_max and 0 < keep_max <= len(files):
            self._delete(oldest_first(files, self._commit_order)[0])
        elif minutes:
            now = self._wall()
            if now - self._last_time_for_keep < minutes * 60:
                self._keep_one_per(files, minutes, now)
            self._last_time_for_keep = now  # every save, as MindSpore

    def _keep_one_per(self, files: list[str], minutes: int, now: float) -> None:
        """Delete every file younger than `minutes` except the oldest of them."""
        young = []
        for path in files:
            try:
                mtime = os.path.getmtime(path)
            except FileNotFoundError:
                continue
            if now - mtime < 60 * minutes:
                young.append(path)
        for path in oldest_first(young, self._commit_order)[1:]:
            self._delete(path)

    def _delete(self, path: str) -> None:
        if InFlight.contains(path) or not all(gate(path) for gate in self._gates):
            with self._lock:
                if path not in self._pending_deletions:
                    self._pending_deletions.append(path)
            return
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)
        with self._lock:
            self._commit_order.pop(path, None)

    # --- breakpoint files ---------------------------------------------------------------------

    def _breakpoint(
        self, run_context: RunContext, exception: BaseException | None
    ) -> None:
        if not (self._config.exception_save and self._in_training and self._writes):
            return
        self._in_training = False
        cb = run_context.original_args()
        try:
            self._writer.drain()
        except Exception as exc:  # the run already failed; keep its exception primary
            if exception is not None:
                exception.add_note(
                    f"cadence: a checkpoint write also failed: {type(exc).__name__}: {exc}"
                )
        _, directory = self._resolve(cb)
        prefix = dedup_prefix(directory, self._original_prefix, breakpoints=True)
        step = cb.get("cur_step_num", 0)
        epoch = cb.get("cur_epoch_num", 1)
        name = f"{prefix}-{epoch}_{step_in_epoch(step, cb.get('batch_num', 0))}{BREAKPOINT_SUFFIX}"
        # MindSpore saves the whole train network here (optimizer state included), whatever `saved_network` is.
        job = self._job(
            cb, os.path.join(directory, name), epoch, step, cb["train_network"]
        )
        self._capture(job)
        self._write(job)
        self._after_commit(job)
        self._publish(run_context)
