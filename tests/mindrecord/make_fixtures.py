"""Write the MindRecord fixtures: run it with cadence's interpreter, then with MindSpore's (from the repository root).

1. `.venv/bin/python tests/mindrecord/make_fixtures.py` writes `cadence_*` files
   with `cadence.mindrecord.FileWriter`.
2. `/work/msvenv/bin/python tests/mindrecord/make_fixtures.py` (MindSpore 2.10)
   writes `mindspore_*` files with MindSpore's `FileWriter`, then records in
   `mindspore_reads.json` what MindSpore's `FileReader` and `MindDataset`
   (shuffle off) read from both sets: the tests check cadence reads the same.

Not run by the tests: they read what it wrote (tests/fixtures/mindrecord/README.md).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

# The repository root, so that `tests.mindrecord` imports under either interpreter.
sys.path.insert(0, str(Path(__file__).parents[2]))
from tests.mindrecord.fixture_data import DATASETS, FIXTURES, describe, write_all


def _clear(prefix: str) -> None:
    for path in FIXTURES.glob(f"{prefix}_*"):
        path.unlink()


def _mindspore_reads() -> dict[str, Any]:
    import mindspore.dataset as ds
    from mindspore.mindrecord import FileReader

    reads: dict[str, Any] = {}
    for prefix in ("mindspore", "cadence"):
        for name, file in DATASETS.items():
            path = str(FIXTURES / f"{prefix}_{file}")
            reader = FileReader(path)
            rows = [
                {k: describe(v) for k, v in row.items()} for row in reader.get_next()
            ]
            reader.close()
            data = ds.MindDataset(path, shuffle=False)
            columns = data.get_col_names()
            items = [
                [describe(v) for v in row]
                for row in data.create_tuple_iterator(output_numpy=True)
            ]
            reads[f"{prefix}_{name}"] = {
                "file_reader": rows,
                "columns": columns,
                "mind_dataset": items,
            }
    return reads


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    try:
        from mindspore.mindrecord import FileWriter
    except ImportError:
        from cadence.mindrecord import FileWriter

        _clear("cadence")
        write_all(FileWriter, FIXTURES, "cadence")
        return
    import mindspore

    _clear("mindspore")
    write_all(FileWriter, FIXTURES, "mindspore")
    for path in FIXTURES.glob("mindspore_*"):
        path.chmod(0o644)  # MindSpore writes them 0o600
    reads = {
        "produced_with": f"mindspore {mindspore.__version__}",
        **_mindspore_reads(),
    }
    (FIXTURES / "mindspore_reads.json").write_text(
        json.dumps(reads, indent=1, ensure_ascii=False) + "\n"
    )


if __name__ == "__main__":
    main()
