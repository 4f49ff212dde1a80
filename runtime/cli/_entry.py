"""The `cadence` command line: one module per subcommand, loaded only when used."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TYPE_CHECKING, NoReturn

from ._command import UsageError, add_command

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["COMMANDS", "build_parser", "main"]

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


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: what is wrong, and where help is."""

    def error(self, message: str) -> NoReturn:
        """Print the error on one line and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser(names: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Return the argument parser with the subcommands in `names` (all by default)."""
    parser = _Parser(
        prog="cadence",
        description="cadence: a training runtime built around an event bus with MindSpore-compatible callbacks.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in names if names is not None else COMMANDS:
        add_command(sub, importlib.import_module(COMMANDS[name]).COMMAND)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 on success)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser([first] if first in COMMANDS else None)
    args = parser.parse_args(args_list)
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
    except KeyboardInterrupt:
        print(f"cadence {args.command}: interrupted", file=sys.stderr)
        return 130
    return code
