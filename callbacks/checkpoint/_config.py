"""`CheckpointConfig`: when `ModelCheckpoint` saves, how many files it keeps, and what goes in them."""

from __future__ import annotations

import difflib
import inspect
from typing import Any

from cadence import Tensor
from cadence.validation import check_async_save, check_bool, check_non_negative_int

from .._monitored import LOSS_LIKE
from ._read_only import ReadOnly
from ._warnings import warn

__all__ = ["CheckpointConfig"]

_OWNER = "CheckpointConfig"
_APPEND_NAMES = ("epoch_num", "step_num")
_MODES = ("auto", "min", "max")


def _optional_count(value: Any, name: str) -> int | None:
    return None if value is None else check_non_negative_int(value, name, _OWNER)


def _check_instance(
    value: Any, name: str, expected: tuple[type, ...], label: str
) -> Any:
    # MindSpore checks these with `check_isinstance`, which raises ValueError (not TypeError).
    if not isinstance(value, expected):
        raise ValueError(
            f"For '{_OWNER}', the argument '{name}' must be {label}, but got {value!r} of type {type(value).__name__!r}."
        )
    return value


def _check_saved_network(value: Any) -> Any:
    if value is not None and not callable(getattr(value, "parameters_and_names", None)):
        raise TypeError(
            f"For '{_OWNER}', the argument 'saved_network' must be None or a Cell, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
    return value


def _append_dict(append_info: Any) -> dict[str, Any] | None:
    """Validate `append_info` and return the dict of values saved with every checkpoint (None if empty)."""
    if append_info is None or append_info == []:
        return None
    if not isinstance(append_info, list):
        raise TypeError(
            f"For '{_OWNER}', the argument 'append_info' must be None or a list, "
            f"but got {append_info!r} of type {type(append_info).__name__!r}."
        )
    result: dict[str, Any] = {}
    dicts = [item for item in append_info if isinstance(item, dict)]
    if len(dicts) > 1:
        raise TypeError(
            f"For '{_OWNER}', the argument 'append_info' may hold at most one dict, but got {len(dicts)} dicts."
        )
    for item in append_info:
        if isinstance(item, str):
            if item not in _APPEND_NAMES:
                raise ValueError(
                    f"For '{_OWNER}', a str element of the argument 'append_info' must be 'epoch_num' or "
                    f"'step_num', but got {item!r}."
                )
            result[item] = 0
        elif isinstance(item, dict):
            result.update(_checked_append_entries(item))
        else:
            raise TypeError(
                f"For '{_OWNER}', each element of the argument 'append_info' must be a str or a dict, "
                f"but got {item!r} of type {type(item).__name__!r}."
            )
    return result


def _checked_append_entries(entries: dict[Any, Any]) -> dict[str, Any]:
    for key, value in entries.items():
        if not isinstance(key, str) or not isinstance(
            value, int | float | str | Tensor
        ):
            raise TypeError(
                f"For '{_OWNER}', the dict in the argument 'append_info' must map str keys to int, float, bool, "
                f"str, Tensor or Parameter values, but got key {key!r} with a value of type {type(value).__name__!r}."
            )
    return dict(entries)


class CheckpointConfig:
    """The saving policy of a `ModelCheckpoint`: triggers, retention and file contents.

    One trigger and one retention rule apply. A save is triggered every
    `save_checkpoint_steps` steps, or, only when that is 0 or None, once more
    than `save_checkpoint_seconds` seconds passed; both 0 never saves (not even
    at the end of training). The files of one prefix are limited to the newest
    `keep_checkpoint_max`, or, only when that is 0 or None, thinned to one per
    `keep_checkpoint_per_n_minutes` minutes. Conflicting settings are resolved
    silently, as in MindSpore: steps win over seconds, keep-max over per-minutes.

    Beyond MindSpore, `monitor` keeps the `save_top_k` best checkpoints by a
    monitored value, as Keras' `save_best_only` and Lightning's `save_top_k` do
    (see `ModelCheckpoint`).

    Args:
        save_checkpoint_steps: Save every this many steps (global step count); 0 or None: off.
        save_checkpoint_seconds: Save when more than this many seconds passed since the
            last save; used only when `save_checkpoint_steps` is off.
        keep_checkpoint_max: Keep at most this many files of the prefix (the oldest by
            modification time is deleted once a new one is committed).
        keep_checkpoint_per_n_minutes: Keep one file per this many minutes; used only
            when `keep_checkpoint_max` is off.
        integrated_save: Accepted for compatibility (no model parallelism here).
        async_save: `False`: files are written by a writer thread from a snapshot
            taken at the save point, one at a time, each committed before the next
            save and by the end of its epoch; `True`, `"thread"` or `"process"` (all
            a writer thread here): two snapshots may queue and there is no per-epoch
            wait. See `ModelCheckpoint`.
        saved_network: Save this Cell's parameters instead of the whole train network.
        append_info: A list of `"epoch_num"`, `"step_num"` and at most one dict
            `{str: int | float | bool | str | Tensor | Parameter}`; saved with every file.
        enc_key: Must stay None to save (cadence does not encrypt checkpoints).
        enc_mode: Encryption mode, used only with `enc_key`.
        exception_save: Save a `*_breakpoint.ckpt` file when training raises.
        crc_check: Store MindSpore's CRC-32 in every file (see `save_checkpoint`).
        remove_redundancy: Accepted for compatibility (no model parallelism here).
        format: `"ckpt"` (MindSpore's container) or `"safetensors"`; checked when saving.
        monitor: The value that ranks checkpoints for top-k saving: `"loss"` (the last
            training step's loss) or a key of `cb_params.eval_results` (`"eval_loss"`, a
            metric name such as `"accuracy"`, available in `Model.fit` epochs with an
            evaluation pass). None (default): no top-k saving.
        mode: `"min"`, `"max"` or `"auto"` (min for loss-like names, else max).
        save_top_k: How many best checkpoints to keep with `monitor`; -1 keeps all.
        rank_zero_only: In a multi-rank job (after `cadence.communication.init()`),
            only rank 0 writes files (periodic, top-k and breakpoint ones); the other
            ranks' `ModelCheckpoint` saves nothing. The ranks' weights are identical
            in data-parallel training, so rank 0's files are the model. False
            (default): every rank saves, as in MindSpore. No effect in one process.
        **kwargs: MindSpore's `incremental` and `enable_redundance` are read; other
            names are ignored, as in MindSpore, with a `CheckpointWarning` naming
            them (`save_checkpoint_step=5`, a typo, would otherwise pass silently).

    Raises:
        TypeError: A wrong type (int arguments, `integrated_save`, `async_save`,
            `saved_network`, `append_info`, `exception_save`, `monitor`, `save_top_k`,
            `rank_zero_only`).
        ValueError: A negative count, all four triggers/retention rules off, a bad
            `async_save` or `append_info` string, a non-bytes `enc_key`, non-str
            `enc_mode`/`format`, non-bool `crc_check`/`remove_redundancy` (ValueError as
            MindSpore), options `safetensors` cannot honour, a bad `mode` or `save_top_k`.

    Example:
        >>> config = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=3)
        >>> config.get_checkpoint_policy()["save_checkpoint_steps"]
        100
    """

    def __init__(
        self,
        save_checkpoint_steps: int | None = 1,
        save_checkpoint_seconds: int | None = 0,
        keep_checkpoint_max: int | None = 5,
        keep_checkpoint_per_n_minutes: int | None = 0,
        integrated_save: bool = True,
        async_save: bool | str = False,
        saved_network: Any = None,
        append_info: list[Any] | None = None,
        enc_key: bytes | None = None,
        enc_mode: str = "AES-GCM",
        exception_save: bool = False,
        crc_check: bool = False,
        remove_redundancy: bool = False,
        format: str = "ckpt",
        *,
        monitor: str | None = None,
        mode: str = "auto",
        save_top_k: int = 1,
        rank_zero_only: bool = False,
        **kwargs: Any,
    ) -> None:
        steps = _optional_count(save_checkpoint_steps, "save_checkpoint_steps")
        seconds = _optional_count(save_checkpoint_seconds, "save_checkpoint_seconds")
        keep_max = _optional_count(keep_checkpoint_max, "keep_checkpoint_max")
        per_minutes = _optional_count(
            keep_checkpoint_per_n_minutes, "keep_checkpoint_per_n_minutes"
        )
        if not (steps or seconds or keep_max or per_minutes):
            raise ValueError(
                f"For '{_OWNER}', the arguments 'save_checkpoint_steps', 'save_checkpoint_seconds', "
                "'keep_checkpoint_max' and 'keep_checkpoint_per_n_minutes' can't be all None or 0, but got "
                f"{save_checkpoint_steps!r}, {save_checkpoint_seconds!r}, {keep_checkpoint_max!r} and "
                f"{keep_checkpoint_per_n_minutes!r}."
            )
        if steps:
            seconds = None
        if keep_max:
            per_minutes = None
        elif not per_minutes:
            keep_max = 1
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = per_minutes
        self._integrated_save = check_bool(integrated_save, "integrated_save", _OWNER)
        self._async_save = check_async_save(async_save, _OWNER)
        self._saved_network = _check_saved_network(saved_network)
        self._append_dict = _append_dict(append_info)
        self._enc_key: bytes | None = _check_instance(
            enc_key, "enc_key", (type(None), bytes), "None or bytes"
        )
        self._enc_mode: str = _check_instance(enc_mode, "enc_mode", (str,), "a str")
        self._exception_save = check_bool(exception_save, "exception_save", _OWNER)
        self._crc_check: bool = _check_instance(
            crc_check, "crc_check", (bool,), "a bool"
        )
        self._remove_redundancy: bool = _check_instance(
            remove_redundancy, "remove_redundancy", (bool,), "a bool"
        )
        self._format: str = _check_instance(format, "format", (str,), "a str")
        self._map_param_inc = bool(kwargs.get("incremental", False))
        self._enable_redundance = kwargs.get("enable_redundance", False)
        _warn_unknown_kwargs(kwargs)
        self._check_safetensors_options()
        self._monitor, self._mode, self._save_top_k = _check_top_k(
            monitor, mode, save_top_k
        )
        self._rank_zero_only = check_bool(rank_zero_only, "rank_zero_only", _OWNER)

    def _check_safetensors_options(self) -> None:
        if self._format != "safetensors":
            return
        changed = {
            "enc_key": self._enc_key is not None,
            "enc_mode": self._enc_mode != "AES-GCM",
            "crc_check": self._crc_check,
            "exception_save": self._exception_save,
            "incremental": self._map_param_inc,
        }
        bad = [name for name, is_set in changed.items() if is_set]
        if bad:
            raise ValueError(
                f"For '{_OWNER}', when 'format' is 'safetensors', the arguments 'enc_key', 'enc_mode', 'crc_check', "
                f"'exception_save' and 'incremental' must keep their defaults, but got non-default {bad}."
            )

    # --- MindSpore's read-only properties --------------------------------------------
    save_checkpoint_steps = ReadOnly[int | None](
        "Steps between saves; None or 0 when off."
    )
    save_checkpoint_seconds = ReadOnly[int | None](
        "Seconds between saves; None when steps are used."
    )
    keep_checkpoint_max = ReadOnly[int | None](
        "Maximum number of files kept per prefix."
    )
    keep_checkpoint_per_n_minutes = ReadOnly[int | None](
        "Keep one file per this many minutes; None when keep-max is used."
    )
    integrated_save = ReadOnly[bool]("Accepted for compatibility.")
    async_save = ReadOnly[bool | str]('`False`, `True`, `"thread"` or `"process"`.')
    saved_network = ReadOnly[Any](
        "The Cell saved instead of the train network, or None."
    )
    append_dict = ReadOnly[dict[str, Any] | None](
        "The extra entries of every file (`epoch_num`/`step_num` start at 0), or None."
    )
    enc_key = ReadOnly[bytes | None]("Encryption key (must be None to save).")
    enc_mode = ReadOnly[str]("Encryption mode.")
    crc_check = ReadOnly[bool](
        "Whether a CRC trailer was asked for (must be False to save)."
    )
    remove_redundancy = ReadOnly[bool]("Accepted for compatibility.")
    format = ReadOnly[str](
        '`"ckpt"` or `"safetensors"` (other strings fail at the first save, as in MindSpore).'
    )
    exception_save = ReadOnly[bool](
        "Whether a breakpoint file is written when training raises."
    )
    map_param_inc = ReadOnly[bool](
        "MindSpore's `incremental` keyword (accepted, no effect)."
    )
    monitor = ReadOnly[str | None](
        "The value ranking top-k checkpoints, or None (a cadence extension)."
    )
    mode = ReadOnly[str](
        '`"min"` or `"max"`: the direction `monitor` improves in (`"auto"` resolved).'
    )
    save_top_k = ReadOnly[int](
        "How many best checkpoints `monitor` keeps; -1 keeps all."
    )

    @property
    def rank_zero_only(self) -> bool:
        """Whether only rank 0 of a multi-rank job writes files (a cadence extension)."""
        return self._rank_zero_only

    def get_checkpoint_policy(self) -> dict[str, Any]:
        """Return the trigger and retention settings, as MindSpore does."""
        return {
            "save_checkpoint_steps": self._save_checkpoint_steps,
            "save_checkpoint_seconds": self._save_checkpoint_seconds,
            "keep_checkpoint_max": self._keep_checkpoint_max,
            "keep_checkpoint_per_n_minutes": self._keep_checkpoint_per_n_minutes,
            "saved_network": self._saved_network,
        }

    def __repr__(self) -> str:
        policy = ", ".join(
            f"{k}={v!r}"
            for k, v in self.get_checkpoint_policy().items()
            if k != "saved_network"
        )
        return f"CheckpointConfig({policy}, format={self._format!r})"


def _check_top_k(
    monitor: Any, mode: Any, save_top_k: Any
) -> tuple[str | None, str, int]:
    if monitor is not None and not isinstance(monitor, str):
        raise TypeError(
            f"For '{_OWNER}', the argument 'monitor' must be None or a str, "
            f"but got {monitor!r} of type {type(monitor).__name__!r}."
        )
    if monitor == "":
        raise ValueError(
            f"For '{_OWNER}', the argument 'monitor' must be None or a non-empty str, but got ''."
        )
    if mode not in _MODES:
        raise ValueError(
            f"For '{_OWNER}', the argument 'mode' must be one of 'auto', 'min', 'max', but got {mode!r}."
        )
    if not isinstance(save_top_k, int) or isinstance(save_top_k, bool):
        raise TypeError(
            f"For '{_OWNER}', the argument 'save_top_k' must be an int >= 1 or -1, "
            f"but got {save_top_k!r} of type {type(save_top_k).__name__!r}."
        )
    if save_top_k == 0 or save_top_k < -1:
        raise ValueError(
            f"For '{_OWNER}', the argument 'save_top_k' must be an int >= 1 or -1, but got {save_top_k!r}."
        )
    if mode == "auto":
        mode = "min" if monitor in LOSS_LIKE else "max"
    return monitor, mode, save_top_k


_READ_KWARGS = frozenset({"incremental", "enable_redundance"})


def _warn_unknown_kwargs(kwargs: dict[str, Any]) -> None:
    """Warn about keyword arguments `CheckpointConfig` ignores, suggesting the argument meant."""
    unknown = sorted(set(kwargs) - _READ_KWARGS)
    if not unknown:
        return
    known = [
        name
        for name, parameter in inspect.signature(CheckpointConfig).parameters.items()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    described = []
    for name in unknown:
        close = difflib.get_close_matches(name, known, n=1)
        described.append(
            f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
        )
    warn(
        f"CheckpointConfig ignores the keyword arguments {', '.join(described)}, as MindSpore does.",
        stacklevel=4,
    )
