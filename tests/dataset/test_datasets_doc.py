"""The examples of docs/datasets.md run here, outputs compared; the MNIST one also checks its batches."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "datasets.md"


def doc_examples() -> list[tuple[str, str | None]]:
    blocks = re.findall(r"```(\w+)\n(.*?)```", DOC.read_text(), flags=re.DOTALL)
    examples: list[tuple[str, str | None]] = []
    for index, (language, body) in enumerate(blocks):
        if language == "python":
            following = blocks[index + 1] if index + 1 < len(blocks) else ("", "")
            examples.append((body, following[1] if following[0] == "text" else None))
    return examples


def test_the_page_has_examples():
    assert len(doc_examples()) >= 4


@pytest.mark.parametrize(("code", "expected"), doc_examples())
def test_documentation_examples_run(
    tmp_path, monkeypatch, capsys, code, expected, porting_data
):
    monkeypatch.chdir(tmp_path)
    needs = re.match(r"# data: (\w+)\n", code)
    if (
        needs
    ):  # e.g. make_mnist: MindSpore's layout, MNIST_Data/train and MNIST_Data/test
        getattr(porting_data, f"make_{needs.group(1)}")(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    if expected is not None:
        assert capsys.readouterr().out == expected
    if "train_dataset" in namespace:  # the tutorial's pipeline
        dataset = namespace["train_dataset"]
        image, label = next(iter(dataset))  # type: ignore[call-overload]
        assert image.shape == (64, 1, 28, 28)
        assert str(label.dtype) == "Int32"
