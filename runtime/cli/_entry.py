"""The `cadence` command line: one module per subcommand, loaded only when used."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from typing import TYPE_CHECKING, NoReturn

from ._command import UsageError, add_command

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["COMMANDS", "Terminated", "build_parser", "interrupted_status", "main"]

# Subcommand name -> module whose `COMMAND` declares it (`_command.Command`). Modules
# are imported on demand so `cadence --help` stays fast.
COMMANDS: dict[str, str] = {
    "train": "cadence.cli._train",
    "eval": "cadence.cli._eval",
    "predict": "cadence.cli._predict",
    "summary": "cadence.cli._summary",
    "serve": "cadence.cli._serve",
    "targets": "cadence.cli._targets",
}


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (a scheduler stopping the job): handled as gracefully as Ctrl-C.

    A `KeyboardInterrupt`, so a run treats it as one: checkpoints and the backup
    of the last finished epoch are kept, and the run can be resumed.
    """


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: what is wrong, and where help is."""

    def error(self, message: str) -> NoReturn:
        """Print the error on one line and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


# The parsers of the subcommands built by the last `build_parser`, by name.
_SUBCOMMANDS: dict[str, argparse.ArgumentParser] = {}


def build_parser(names: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Return the argument parser with the subcommands in `names` (all by default)."""
    parser = _Parser(
        prog="cadence",
        description="cadence: a training runtime built around an event bus with MindSpore-compatible callbacks.",
    )
    parser.add_argument("--version", action="version", version=f"cadence {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in names if names is not None else COMMANDS:
        add_command(sub, importlib.import_module(COMMANDS[name]).COMMAND)
    _SUBCOMMANDS.clear()
    _SUBCOMMANDS.update(sub.choices)
    return parser


def _version() -> str:
    from importlib.metadata import version

    return version("cadence")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 on success).

    SIGTERM is handled like Ctrl-C while a command runs (exit status 143 instead
    of 130); the previous handler is restored afterwards. The library itself
    installs no signal handler.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser([first] if first in COMMANDS else None)
    args, unknown = parser.parse_known_args(args_list)
    args.argv = args_list  # `train --workers` relaunches itself with the same arguments
    if unknown:  # reported by the subcommand's parser, whose --help lists its options
        _SUBCOMMANDS[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return _run(args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(args: argparse.Namespace) -> int:
    try:
        code: int = args.func(args)
    except (
        UsageError,
        FileNotFoundError,
        NotADirectoryError,
        PermissionError,
        ValueError,
    ) as exc:
        print(f"cadence {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        what = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        print(f"cadence {args.command}: {what}", file=sys.stderr)
        return interrupted_status(exc)
    return code


def interrupted_status(exc: KeyboardInterrupt) -> int:
    """Return the exit status of a command that `exc` ended: 143 for SIGTERM, 130 for Ctrl-C."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)
