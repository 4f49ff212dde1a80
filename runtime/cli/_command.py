"""How a subcommand is declared: its help, its arguments and the function it runs, built by one helper.

Each command module ends with `COMMAND = Command(...)`; `add_command` turns it
into an argparse subparser, so the parser boilerplate exists once. Arguments
that several commands take (the checkpoint, the data set) are declared here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import CadenceError

if TYPE_CHECKING:
    import argparse
    from argparse import _SubParsersAction
    from collections.abc import Callable, Mapping

__all__ = [
    "CHECKPOINT",
    "Arg",
    "Command",
    "Group",
    "UsageError",
    "add_command",
    "arg",
    "data_args",
]


class UsageError(CadenceError):
    """A command-line input is wrong; printed as one line, exit status 2."""


@dataclass(frozen=True)
class Arg:
    """One argument: its flags (or positional name) and `add_argument`'s keywords."""

    flags: tuple[str, ...]
    options: Mapping[str, Any]


def arg(*flags: str, **options: Any) -> Arg:
    """Declare an argument exactly as `ArgumentParser.add_argument(*flags, **options)` would take it."""
    return Arg(flags, options)


@dataclass(frozen=True)
class Group:
    """Arguments shown together under a title in `--help`."""

    title: str
    args: tuple[Arg, ...]


@dataclass(frozen=True)
class Command:
    """A subcommand: `run(args) -> exit status`, or `actions` when it has subcommands of its own."""

    name: str
    help: str
    description: str
    args: tuple[Arg | Group, ...] = ()
    run: Callable[[argparse.Namespace], int] | None = None
    actions: tuple[Command, ...] = field(default=())


def add_command(
    subparsers: _SubParsersAction[Any], command: Command
) -> argparse.ArgumentParser:
    """Add `command` (and its actions) to `subparsers`; return its parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        command.name, help=command.help, description=command.description
    )
    for item in command.args:
        if isinstance(item, Group):
            group = parser.add_argument_group(item.title)
            for a in item.args:
                group.add_argument(*a.flags, **a.options)
        else:
            parser.add_argument(*item.flags, **item.options)
    if command.actions:
        actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
        for action in command.actions:
            add_command(actions, action)
    if command.run is not None:
        parser.set_defaults(func=command.run)
    return parser


CHECKPOINT = arg(
    "checkpoint",
    metavar="CKPT",
    help="model.ckpt, or any file in checkpoints/, of a `cadence train` run",
)


def data_args(data_help: str) -> tuple[Arg, Arg]:
    """The `--data` and `--data-dir` pair (train and eval), `--data` described by `data_help`."""
    return (
        arg("--data", metavar="DATA", help=data_help),
        arg(
            "--data-dir",
            metavar="DIR",
            help="the directory of MNIST's IDX files (with --data mnist) or of CIFAR-10's binary files (--data cifar10)",
        ),
    )
