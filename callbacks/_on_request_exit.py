"""`OnRequestExit`: on a signal, stop at the next step boundary, save a checkpoint, end cleanly."""

from __future__ import annotations

import os
import signal
import threading
from typing import TYPE_CHECKING, Any

from cadence import Callback, load_checkpoint, save_checkpoint

from .checkpoint._files import ensure_directory
from .checkpoint._warnings import warn

if TYPE_CHECKING:
    from types import FrameType

    from cadence import RunContext

__all__ = ["OnRequestExit"]

_OWNER = "OnRequestExit"
_UNCATCHABLE = {signal.SIGKILL, signal.SIGSTOP} if hasattr(signal, "SIGKILL") else set()
_Handler = Any  # what signal.signal accepts and returns


def _check_flag(value: Any, name: str) -> bool:
    # MindSpore checks these with `check_isinstance`, which raises ValueError.
    if not isinstance(value, bool):
        raise ValueError(
            f"For '{_OWNER}', the argument '{name}' must be a bool, but got {value!r} of type {type(value).__name__!r}."
        )
    return value


def _check_signal(sig: Any) -> int:
    if not isinstance(sig, int) or isinstance(sig, bool):
        raise ValueError(
            f"For '{_OWNER}', the argument 'sig' must be a signal number (int or signal.Signals), "
            f"but got {sig!r} of type {type(sig).__name__!r}."
        )
    if sig in _UNCATCHABLE:
        name = signal.Signals(sig).name
        raise ValueError(
            f"For '{_OWNER}', the argument 'sig' cannot be {name}: that signal cannot be caught."
        )
    valid = signal.valid_signals()
    if sig not in valid:
        raise ValueError(
            f"For '{_OWNER}', the argument 'sig' must be a valid signal number, but got {sig!r}."
        )
    return int(sig)


class OnRequestExit(Callback):
    """Stop training gracefully on a signal: finish the step, save a checkpoint, return from `Model.train`.

    While training runs (from `on_train_begin` to the end of the run), a handler
    for `sig` is installed in the main thread; the previous handler is put back
    when the run ends. When the signal arrives, the run stops after the current
    step (`request_stop()`), `on_train_epoch_end` and `on_train_end` still run,
    and `on_train_end` saves the train network to
    `<directory>/rank_0/<file_name>_train.ckpt`. `Model.train` then returns
    normally (`cb_params.outcome == "stopped"`); what the script does next is
    up to it. A later run with the same callback loads that file at
    `on_train_begin`, as MindSpore does. During an evaluation pass of `fit` the
    signal stops the pass at the next step (MindSpore calls no evaluation hook of
    this callback in `fit`).

    In `Model.eval` it works as MindSpore's: the handler is installed at
    `on_eval_begin`, which also loads `<file_name>_eval.ckpt` (else
    `<file_name>_train.ckpt`) into the evaluation network when `save_ckpt`; the
    signal stops the evaluation at the next step, and `on_eval_end` saves the
    evaluation network to `<directory>/rank_0/<file_name>_eval.ckpt`.

    cadence has no MindIR exporter: `save_mindir=True` is accepted, and a
    `CheckpointWarning` says once (per callback) that no `.mindir` file was written.
    `config_file` is accepted and ignored.

    Args:
        save_ckpt: Save the checkpoint when stopping.
        save_mindir: Accepted for compatibility (see above).
        file_name: Base name of the saved files.
        directory: Parent of the `rank_0` directory the files go to (created at once).
        config_file: Accepted for compatibility; ignored.
        sig: The signal to handle (default SIGTERM); SIGKILL and SIGSTOP cannot be caught.

    Raises:
        ValueError: `save_ckpt`/`save_mindir` not a bool, or `sig` not a catchable
            signal number (ValueError, as MindSpore).
        TypeError: `file_name` or `directory` is not a str.

    Example:
        >>> model.train(10, dataset, callbacks=[OnRequestExit(directory="./exit")])  # doctest: +SKIP
        >>> # kill -TERM <pid>: the run stops after the current step and saves ./exit/rank_0/Net_train.ckpt
    """

    def __init__(
        self,
        save_ckpt: bool = True,
        save_mindir: bool = True,
        file_name: str = "Net",
        directory: str = "./",
        config_file: str | None = None,
        sig: int = signal.SIGTERM,
    ) -> None:
        self.save_ckpt = _check_flag(save_ckpt, "save_ckpt")
        self.save_mindir = _check_flag(save_mindir, "save_mindir")
        self.sig = _check_signal(sig)
        if not isinstance(file_name, str):
            raise TypeError(
                f"For '{_OWNER}', the argument 'file_name' must be a str, "
                f"but got {file_name!r} of type {type(file_name).__name__!r}."
            )
        if config_file is not None and not isinstance(config_file, str):
            raise TypeError(
                f"For '{_OWNER}', the argument 'config_file' must be None or a str, "
                f"but got {config_file!r} of type {type(config_file).__name__!r}."
            )
        self.file_name = file_name
        self.config_file = config_file
        self.directory = ensure_directory(
            os.path.join(self._checked_dir(directory), "rank_0"), _OWNER, "directory"
        )
        self.train_name = os.path.join(self.directory, f"{file_name}_train")
        self.eval_name = os.path.join(self.directory, f"{file_name}_eval")
        self.exit_requested = False
        """Set by the signal handler; cleared when a new training run or `Model.eval` begins."""
        self._previous: _Handler = None
        self._installed = False
        self._mindir_warned = False

    @staticmethod
    def _checked_dir(directory: Any) -> str:
        if not isinstance(directory, str):
            raise TypeError(
                f"For '{_OWNER}', the argument 'directory' must be a str, "
                f"but got {directory!r} of type {type(directory).__name__!r}."
            )
        return directory

    # --- the handler ---------------------------------------------------------------------

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        # Only sets a flag: the loop acts on it at the next step boundary, in Python code
        # where stopping is safe.
        self.exit_requested = True

    def _install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            warn(
                f"OnRequestExit cannot install a handler for {signal.Signals(self.sig).name}: training runs outside "
                "the main thread (e.g. Model.train_async), and Python handles signals only there. "
                "Call `callback.request_exit()` from your own handler instead.",
                stacklevel=2,
            )
            return
        self._previous = signal.signal(self.sig, self._handle)
        self._installed = True

    def _uninstall(self) -> None:
        if self._installed:
            self._installed = False
            signal.signal(
                self.sig,
                self._previous if self._previous is not None else signal.SIG_DFL,
            )
            self._previous = None

    def request_exit(self) -> None:
        """Ask for the same graceful stop a signal would (thread-safe)."""
        self.exit_requested = True

    @property
    def exit(self) -> bool:
        """MindSpore's name for `exit_requested`."""
        return self.exit_requested

    @exit.setter
    def exit(self, value: bool) -> None:
        self.exit_requested = value

    # --- hooks -----------------------------------------------------------------------------

    def on_train_begin(self, run_context: RunContext) -> None:
        """Install the signal handler; with `save_ckpt`, load `<file_name>_train.ckpt` if an earlier exit saved it."""
        self.exit_requested = False
        cb = run_context.original_args()
        path = self.train_name + ".ckpt"
        # As MindSpore: a callback that saves no checkpoint loads none either.
        if self.save_ckpt and os.path.isfile(path):
            load_checkpoint(path, net=cb["train_network"])
        self._install()

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Request a stop once the signal arrived.

        Also the epoch-end hook (the signal may come during fit's evaluation pass)
        and the evaluation step hook.
        """
        if self.exit_requested:
            run_context.request_stop()

    on_train_epoch_end = on_train_step_end

    def on_eval_begin(self, run_context: RunContext) -> None:
        """In `Model.eval`: install the handler; load `<file_name>_eval.ckpt`, else `_train.ckpt`, into the evaluation network."""
        cb = run_context.original_args()
        # In an evaluation pass of fit, training has installed the handler already.
        if "epoch_num" in cb:
            return
        self.exit_requested = False
        if self.save_ckpt:
            for path in (self.eval_name + ".ckpt", self.train_name + ".ckpt"):
                if os.path.isfile(path):
                    load_checkpoint(path, net=cb["eval_network"])
                    break
        self._install()

    on_eval_step_end = on_train_step_end

    def on_eval_end(self, run_context: RunContext) -> None:
        """In `Model.eval`, save the evaluation network if the signal arrived (and `save_ckpt`)."""
        cb = run_context.original_args()
        if "epoch_num" not in cb and self.exit_requested:
            self._save(cb["eval_network"], self.eval_name)

    def on_train_end(self, run_context: RunContext) -> None:
        """Save the checkpoint if the signal arrived (and `save_ckpt`)."""
        if self.exit_requested:
            self._save(run_context.original_args()["train_network"], self.train_name)

    def _save(self, network: Any, name: str) -> None:
        """Save `network` to `<name>.ckpt` (with `save_ckpt`); say once that no MindIR is written."""
        if self.save_ckpt:
            save_checkpoint(network, name + ".ckpt")
        if self.save_mindir and not self._mindir_warned:
            self._mindir_warned = True
            warn(
                "OnRequestExit(save_mindir=True): cadence has no MindIR exporter, so no .mindir file was written; "
                "pass save_mindir=False to silence this.",
                stacklevel=2,
            )

    def on_run_ended(self, run_context: RunContext) -> None:
        """Put the previous signal handler back."""
        self._uninstall()
