"""The `cadence` command line: one module per subcommand, loaded only when used."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import TYPE_CHECKING, NoReturn

from ._errors import CadenceError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["UsageError", "main"]

# Subcommand name -> module with `register(subparsers)`; each module adds its own
# parser and sets `func` (args -> exit code) as the parser default. Modules are
# imported on demand so `cadence --help` stays fast.
COMMANDS: dict[str, str] = {
    "train": "cadence._cmd_train",
    "eval": "cadence._cmd_eval",
    "predict": "cadence._cmd_predict",
    "summary": "cadence._cmd_summary",
    "serve": "cadence._cmd_serve",
    "targets": "cadence._cmd_targets",
}


class UsageError(CadenceError):
    """A command-line input is wrong; printed as one line, exit status 2."""


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
        importlib.import_module(COMMANDS[name]).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 on success)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser([first] if first in COMMANDS else None)
    args = parser.parse_args(args_list)
    args.argv = args_list  # `train --workers` relaunches itself with the same arguments
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
