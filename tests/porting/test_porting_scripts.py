r"""Run the MindSpore programs under `tests/porting/scripts/` with only their imports renamed.

Each script is a complete MindSpore program in the original `mindspore` spelling.
The runner copies it into a fresh working directory, rewrites its import
statements mechanically (`rewrite_imports`), generates the data it declares,
runs it with this interpreter under a timeout, and checks the exit status and
the lines it must print. A script declares, in comment lines at its top:

    # data: mnist                      -> tests/porting/data.py's make_mnist(workdir)
    # expect: ^epoch: 1 step: \d+, loss is   -> a regex; the lines match in this order
    # timeout: 180                     -> seconds it may take (default TIMEOUT_S), for full-size networks
    # ranks: 2                         -> launched as `mpiexec -n 2 python script.py` (data parallel)

Nothing else in a script is touched: if it needs an edit beyond the import
rename to run, that is a bug in cadence.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.processes import mpiexec_command, run_interpreter, run_session

HERE = Path(__file__).parent
SCRIPTS = sorted((HERE / "scripts").glob("*.py"))
TIMEOUT_S = 60

# One rule per import form of the porting convention; everything else stays as written.
_RULES = [
    (re.compile(r"^(\s*)import mindspore as (\w+)"), r"\1import cadence as \2"),
    (re.compile(r"^(\s*)import mindspore\s*$"), r"\1import cadence as mindspore"),
    (re.compile(r"^(\s*)import mindspore\.([\w.]+) as (\w+)"), r"\1import cadence.\2 as \3"),
    # `import mindspore.nn` binds the name `mindspore`: bind it to cadence too.
    (re.compile(r"^(\s*)import mindspore\.([\w.]+)\s*$"), r"\1import cadence.\2; import cadence as mindspore"),
    (re.compile(r"^(\s*)from mindspore(\.[\w.]+)? import"), r"\1from cadence\2 import"),
]  # fmt: skip


def rewrite_imports(source: str) -> str:
    """Return `source` with each `mindspore` import statement renamed to `cadence`."""
    lines = []
    for line in source.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        for pattern, replacement in _RULES:
            new, count = pattern.subn(replacement, body, count=1)
            if count:
                body = new
                break
        lines.append(body + ending)
    return "".join(lines)


def read_header(source: str) -> tuple[list[str], list[re.Pattern[str]]]:
    """Return (data set names, expected-line patterns) from the leading comment lines."""
    data: list[str] = []
    expect: list[re.Pattern[str]] = []
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(": ")
        if key == "data":
            data.append(value.strip())
        elif key == "expect":
            expect.append(re.compile(value))
    return data, expect


def _header_value(source: str, wanted: str) -> str | None:
    """The value of the leading comment line `# wanted: value`, else None."""
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(": ")
        if key == wanted:
            return value.strip()
    return None


def read_timeout(source: str) -> float:
    """The `# timeout:` of the leading comment lines, else TIMEOUT_S."""
    return float(_header_value(source, "timeout") or TIMEOUT_S)


def read_ranks(source: str) -> int:
    """The `# ranks:` of the leading comment lines (how many MPI processes run the script), else 1."""
    return int(_header_value(source, "ranks") or 1)


def _make_data(names: list[str], workdir: Path) -> None:
    if not names:
        return
    spec = importlib.util.spec_from_file_location("porting_data", HERE / "data.py")
    assert spec is not None and spec.loader is not None, (
        "tests/porting/data.py is missing"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in names:
        maker = getattr(module, f"make_{name}", None)
        assert maker is not None, f"tests/porting/data.py has no make_{name}()"
        maker(workdir)


def _unmatched(
    patterns: list[re.Pattern[str]], lines: list[str]
) -> re.Pattern[str] | None:
    """Return the first pattern with no matching line after the previous pattern's line."""
    at = 0
    for pattern in patterns:
        while at < len(lines) and not pattern.search(lines[at]):
            at += 1
        if at == len(lines):
            return pattern
        at += 1
    return None


def _case(script: Path) -> Any:
    """A parameter per script; those launched on several ranks carry the `mpi` mark."""
    several = read_ranks(script.read_text()) > 1
    marks = [pytest.mark.mpi, pytest.mark.slow] if several else []
    return pytest.param(script, id=script.stem, marks=marks)


@pytest.mark.parametrize("script", [_case(p) for p in SCRIPTS])
def test_script_runs_after_renaming_its_imports(script: Path, tmp_path: Path) -> None:
    source = script.read_text()
    data, expect = read_header(source)
    assert expect, f"{script.name} declares no `# expect:` line"
    _make_data(data, tmp_path)
    (tmp_path / script.name).write_text(rewrite_imports(source))
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    ranks, timeout = read_ranks(source), read_timeout(source)
    if ranks == 1:
        proc = run_interpreter(script.name, cwd=tmp_path, env=env, timeout=timeout)
    else:
        # One compute thread per rank: the ranks share this machine's cores.
        env |= {"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
        command = [*mpiexec_command(ranks), sys.executable, script.name]
        proc = run_session(command, cwd=tmp_path, env=env, timeout=timeout)
    report = f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr[-4000:]}"
    assert proc.returncode == 0, (
        f"{script.name} exited with {proc.returncode}\n{report}"
    )
    missing = _unmatched(expect, proc.stdout.splitlines())
    assert missing is None, (
        f"{script.name}: no line matches {missing.pattern!r} (in order)\n{report}"
    )


def test_scripts_keep_the_mindspore_spelling() -> None:
    assert len(SCRIPTS) >= 12
    for script in SCRIPTS:
        source = script.read_text()
        assert "cadence" not in source, f"{script.name} must be written for MindSpore"
        assert re.search(r"^\s*(import|from) mindspore", source, re.M), script.name


def test_porting_page_states_the_count_of_scripts() -> None:
    page = (HERE.parents[1] / "docs" / "porting-from-mindspore.md").read_text()
    count = re.search(r"\*\*(\d+) of (\d+)\*\* run on cadence", page)
    assert count, "docs/porting-from-mindspore.md must state how many scripts run"
    assert (int(count[1]), int(count[2])) == (len(SCRIPTS), len(SCRIPTS))


REWRITES = [
    ("import mindspore as ms\n", "import cadence as ms\n"),
    ("import mindspore\n", "import cadence as mindspore\n"),
    ("import mindspore.nn as nn\n", "import cadence.nn as nn\n"),
    ("import mindspore.dataset.vision.c_transforms as CV\n", "import cadence.dataset.vision.c_transforms as CV\n"),
    ("import mindspore.nn\n", "import cadence.nn; import cadence as mindspore\n"),
    ("from mindspore import nn, ops\n", "from cadence import nn, ops\n"),
    ("from mindspore.train.callback import (\n", "from cadence.train.callback import (\n"),
    ("    from mindspore.ops import operations as P\n", "    from cadence.ops import operations as P\n"),
    ("x = 'import mindspore'\n", "x = 'import mindspore'\n"),
    ("import mindspore_hub\n", "import mindspore_hub\n"),
    ("# uses mindspore.nn\n", "# uses mindspore.nn\n"),
]  # fmt: skip


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrite_touches_only_import_statements(before: str, after: str) -> None:
    assert rewrite_imports(before) == after


def test_header_lists_data_and_expected_lines_until_the_code_starts() -> None:
    data, expect = read_header(
        "# A script.\n# data: mnist\n# expect: ^epoch: 1\n# expect: ^done$\nimport mindspore\n# expect: ignored\n"
    )
    assert data == ["mnist"]
    assert [p.pattern for p in expect] == ["^epoch: 1", "^done$"]
    assert _unmatched(expect, ["epoch: 1 step: 1", "x", "done"]) is None
    assert _unmatched(expect, ["done", "epoch: 1 step: 1"]) is expect[1]
    assert read_timeout("# A script.\n# timeout: 180\nimport mindspore\n") == 180
    assert read_timeout("# A script.\nimport mindspore\n# timeout: 180\n") == TIMEOUT_S
    assert read_ranks("# A script.\n# ranks: 2\nimport mindspore\n") == 2
    assert read_ranks("# A script.\nimport mindspore\n") == 1
