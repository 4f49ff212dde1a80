"""A `cadence train` output directory: its layout, its recorded settings, and resuming it.

Layout of a run directory::

    run.json             the settings of the run (what --resume continues with)
    model.ckpt           the trained network, written when training ends
    checkpoints/         ModelCheckpoint's files: one per epoch (last 3 kept) and the best
    summaries/           SummaryCollector's TensorBoard event files
    loss.png             the curves of the summaries
    backup/backup.ckpt   BackupAndRestore's state after the last finished epoch
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._command import UsageError
from ._presets import default_learning_rate

if TYPE_CHECKING:
    import argparse

__all__ = ["RUNS_DIR", "RunDirectory", "Settings", "resolve_run_directory"]

RUNS_DIR = Path("runs")
_RUN_NAME = re.compile(r"train-(\d+)")
_DEFAULT_EPOCHS = {"digits": 30, "mnist": 5, "cifar10": 10}
_NPZ_EPOCHS = 10
# Settings a resumed run must keep: the network, its data and the optimizer state depend on them.
_FIXED_ON_RESUME = ("model", "data", "data_dir", "optimizer", "valid_fraction", "seed")


@dataclass(frozen=True)
class Settings:
    """What one `cadence train` run does; None fields are unset (filled from defaults or run.json)."""

    model: Any = None
    data: Any = None
    data_dir: Any = None
    valid_fraction: Any = None
    epochs: Any = None
    batch_size: Any = None
    lr: Any = None
    optimizer: Any = None
    seed: Any = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Settings:
        """The settings given on the command line."""
        values = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls)}
        # Absolute paths, so that eval, predict and --resume work from any directory.
        if values["data_dir"] is not None:
            values["data_dir"] = os.path.abspath(values["data_dir"])
        if values["data"] is not None and values["data"].endswith(".npz"):
            values["data"] = os.path.abspath(values["data"])
        return cls(**values)

    def with_defaults(self) -> Settings:
        """Fill every unset field with its default."""
        model = self.model or "mlp"
        data = self.data or "digits"
        optimizer = self.optimizer or "momentum"
        defaults = Settings(
            model=model,
            data=data,
            data_dir=None,
            valid_fraction=0.1,
            epochs=_DEFAULT_EPOCHS.get(data, _NPZ_EPOCHS),
            batch_size=32,
            lr=default_learning_rate(optimizer, model, data),
            optimizer=optimizer,
            seed=0,
        )
        return self.over(defaults)

    def over(self, base: Settings) -> Settings:
        """`base` with the fields set here replacing its own."""
        given = {k: v for k, v in dataclasses.asdict(self).items() if v is not None}
        return dataclasses.replace(base, **given)


def resolve_run_directory(output_dir: str | None, *, resume: bool) -> RunDirectory:
    """Pick the run directory: `output_dir`, else a new `runs/train-N` (or the newest, to resume).

    Raises:
        UsageError: Nothing to resume, a finished run in the way, or a directory
            that cannot be written.
    """
    if output_dir is None:
        numbers = _run_numbers()
        if resume:
            runs = [
                n for n in numbers if (RUNS_DIR / f"train-{n}" / "run.json").is_file()
            ]
            if not runs:
                raise UsageError(
                    f"--resume found no run to continue under {str(RUNS_DIR)!r}; pass --output-dir DIR "
                    "naming the directory of an earlier `cadence train`."
                )
            path = RUNS_DIR / f"train-{max(runs)}"
        else:
            path = RUNS_DIR / f"train-{max(numbers, default=0) + 1}"
    else:
        path = Path(output_dir)
    run_dir = RunDirectory(path)
    run_dir.check(resume=resume)
    return run_dir


def _run_numbers() -> list[int]:
    if not RUNS_DIR.is_dir():
        return []
    return [
        int(m.group(1))
        for p in RUNS_DIR.iterdir()
        if (m := _RUN_NAME.fullmatch(p.name))
    ]


class RunDirectory:
    """The files of one run under `path` (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.run_file = path / "run.json"
        self.model_file = path / "model.ckpt"
        self.checkpoint_dir = path / "checkpoints"
        self.summary_dir = path / "summaries"
        self.plot_file = path / "loss.png"
        self.backup_dir = path / "backup"
        self.backup_file = self.backup_dir / "backup.ckpt"

    def check(self, *, resume: bool) -> None:
        """Fail early if the directory cannot take this run.

        Raises:
            UsageError: The path is a file or not writable, `resume` without a run
                there, or a fresh run where one already is.
        """
        name = str(self.path)
        if self.path.exists() and not self.path.is_dir():
            raise UsageError(
                f"the output directory {name!r} is a file; choose another --output-dir."
            )
        has_run = self.run_file.is_file()
        if resume and not has_run:
            raise UsageError(
                f"--resume: {name!r} holds no run to continue (no run.json); "
                "name the --output-dir of an earlier `cadence train`, or drop --resume to start one."
            )
        if not resume and has_run:
            raise UsageError(
                f"the output directory {name!r} already holds a run; pass --resume to continue it "
                "(with a larger --epochs to train a finished run further), or choose another --output-dir."
            )
        _check_writable(self.path)

    def settings(self, given: Settings) -> Settings:
        """The settings of this run: `given` over run.json's when resuming, else over the defaults.

        Raises:
            UsageError: A resumed run is given a setting it cannot change, or too few epochs.
        """
        if not self.run_file.is_file():
            return given.with_defaults()
        recorded = self._recorded()
        for name in _FIXED_ON_RESUME:
            new, old = getattr(given, name), getattr(recorded, name)
            if new is not None and new != old:
                raise UsageError(
                    f"--resume: the run in {str(self.path)!r} was trained with {_option(name)} {old!r}, "
                    f"which a resumed run cannot change (got {new!r}); start a new run with another --output-dir."
                )
        settings = given.over(recorded)
        done = self.epochs_done()
        if settings.epochs <= done:
            raise UsageError(
                f"--resume: the run in {str(self.path)!r} has already trained {done} epochs; "
                f"pass --epochs N with N > {done} to train it further."
            )
        return settings

    def _recorded(self) -> Settings:
        try:
            raw = json.loads(self.run_file.read_text())
            return Settings(
                **{f.name: raw[f.name] for f in dataclasses.fields(Settings)}
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageError(
                f"--resume: cannot read the settings {str(self.run_file)!r} ({exc}); "
                "start a new run with another --output-dir."
            ) from None

    def epochs_done(self) -> int:
        """Epochs the backup says are finished (0 without a backup)."""
        if not self.backup_file.is_file():
            return 0
        from cadence import load_checkpoint

        entries = load_checkpoint(str(self.backup_file))
        epoch = entries.get("epoch_num")
        return 0 if epoch is None or isinstance(epoch, str) else int(epoch.asnumpy())

    def prepare(self, settings: Settings) -> None:
        """Create the directories and write run.json.

        Raises:
            UsageError: A directory cannot be created or written.
        """
        from cadence import atomic_write

        try:
            for directory in (self.path, self.checkpoint_dir, self.summary_dir):
                directory.mkdir(parents=True, exist_ok=True)
            text = json.dumps(dataclasses.asdict(settings), indent=2) + "\n"
            with atomic_write(self.run_file, mode=0o644) as stream:
                stream.write(text.encode())
        except OSError as exc:
            raise UsageError(
                f"cannot write the output directory {str(self.path)!r} ({exc.strerror or exc}); "
                "choose another --output-dir."
            ) from None


def _check_writable(path: Path) -> None:
    """Raise `UsageError` unless `path` is, or can be created as, a writable directory."""
    existing = path
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(
            f"cannot create the output directory {str(path)!r}: {str(existing)!r} is a file; "
            "choose another --output-dir."
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(
            f"cannot write the output directory {str(path)!r}: no write permission in {str(existing)!r}; "
            "choose another --output-dir."
        )


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")
