"""Every ```python block in README.md and docs/*.md runs, and a ```text block right after it is its exact output.

A block whose first line is `# not run` is skipped (for fragments that need a network or a
server the page explains how to start). A block whose first line is `# data: <name>` runs in
a directory where `tests/porting/data.py`'s `make_<name>` wrote that data set in MindSpore's
layout (`# data: mnist`: `MNIST_Data/train` and `MNIST_Data/test`).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```(\w+)[^\n]*\n(.*?)```", re.S)


def examples() -> list[tuple[str, int, str, str | None]]:
    found = []
    for page in PAGES:
        blocks = [
            (m.group(1), m.group(2), m.start())
            for m in BLOCK.finditer(page.read_text())
        ]
        for i, (lang, code, start) in enumerate(blocks):
            if lang != "python" or code.startswith("# not run"):
                continue
            following = blocks[i + 1] if i + 1 < len(blocks) else None
            expected = None
            if following and following[0] == "text":
                between = page.read_text()[start + len(code) : following[2]]
                if between.count("\n") <= 3:  # the text block follows immediately
                    expected = following[1]
            line = page.read_text()[:start].count("\n") + 1
            found.append((page.name, line, code, expected))
    return found


@pytest.mark.parametrize(
    ("page", "line", "code", "expected"),
    examples(),
    ids=lambda v: str(v) if isinstance(v, str | int) and not str(v).count("\n") else "",
)
def test_doc_example_runs(
    page, line, code, expected, tmp_path, monkeypatch, porting_data
):
    monkeypatch.chdir(tmp_path)
    needs = re.match(r"# data: (\w+)\n", code)
    if needs:
        getattr(porting_data, f"make_{needs.group(1)}")(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__docs__"})
    if expected is not None:
        assert out.getvalue().strip() == expected.strip()
