"""The README's Quickstart holds exactly two commands, and CI runs the second one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quickstart_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quickstart", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None, "the Quickstart section opens with a bash code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quickstart_has_two_commands_and_ci_runs_the_second():
    commands = quickstart_commands()
    assert len(commands) == 2
    assert "cadence train" in commands[0]
    assert "pytest" in commands[1]
    ci = [
        line
        for line in (ROOT / ".ci/run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]
    assert ci == [commands[1]]
