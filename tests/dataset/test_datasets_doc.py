"""The examples of docs/datasets.md run here, outputs compared (the MNIST one on IDX files written here)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
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


def write_idx(path: Path, array: np.ndarray) -> None:
    path.write_bytes(
        bytes([0, 0, 8, array.ndim])
        + struct.pack(f">{array.ndim}I", *array.shape)
        + array.tobytes()
    )


def test_the_page_has_examples():
    assert len(doc_examples()) >= 4


@pytest.mark.parametrize(("code", "expected"), doc_examples())
def test_documentation_examples_run(tmp_path, monkeypatch, capsys, code, expected):
    monkeypatch.chdir(tmp_path)
    if "MNIST_Data/train" in code:
        train = tmp_path / "MNIST_Data" / "train"
        train.mkdir(parents=True)
        for prefix in ("train", "t10k"):
            write_idx(
                train / f"{prefix}-images-idx3-ubyte", np.zeros((70, 28, 28), np.uint8)
            )
            write_idx(train / f"{prefix}-labels-idx1-ubyte", np.zeros(70, np.uint8))
    namespace: dict[str, object] = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    if expected is not None:
        assert capsys.readouterr().out == expected
    if "MNIST_Data/train" in code:
        dataset = namespace["train_dataset"]
        image, label = next(iter(dataset))  # type: ignore[call-overload]
        assert image.shape == (64, 1, 28, 28)
        assert str(label.dtype) == "Int32"
