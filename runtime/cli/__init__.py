"""The `cadence` command line (`cadence.cli`): `main` is the console script.

Where things are: `_entry` (the top parser, `main`, exit statuses),
`_command` (how a subcommand is declared, the one argparse helper),
`_arg_types` (argument types), `_data` (data sets and splits), `_run_dir`
(run directories and their settings), `_presets` (networks, optimizers and
the run description saved in checkpoints), and one module per command:
`_train`, `_eval`, `_predict`, `_summary`, `_serve`, `_targets`.

Layer rule: the command line is an application of cadence. It uses
cadence's public API (`cadence`, `cadence.callbacks`, `cadence.service`,
`cadence.nn`, `cadence.dataset`) and its own modules, plus `cadence._errors`
and the compute package's plugin registry for `cadence targets`.
Nothing in cadence imports it but `cadence.__main__` and the service's presets.
"""

from __future__ import annotations

from ._entry import main

__all__ = ["main"]
