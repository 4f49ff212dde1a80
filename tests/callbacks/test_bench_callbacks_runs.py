"""The callbacks benchmark runs end to end (a short run; no timing is asserted)."""

from __future__ import annotations

import importlib.util
import json
import pathlib
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import types

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench" / "bench_callbacks.py"


@pytest.fixture(scope="module")
def bench() -> types.ModuleType:
    # The script imports its folder's `_bench_common`, as when run as `python tests/bench/...`.
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.syspath_prepend(str(BENCH.parent))
    spec = importlib.util.spec_from_file_location("bench_callbacks", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.undo()
    return module


def test_bench_callbacks_short_run_prints_every_figure_and_records_its_rounds(
    bench: Any, capsys: Any, tmp_path: pathlib.Path
) -> None:
    record = tmp_path / "rounds.jsonl"
    # 120 steps: one periodic checkpoint (every 100 steps) in every run with ModelCheckpoint.
    argv = ["--steps", "120", "--repeats", "2", "--record", str(record)]
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    assert "| 5 standard callbacks |" in out
    assert (
        "| control: LossMonitor + TimeMonitor + SummaryCollector + ProgressBar + bare durable save |"
        in out
    )
    assert "median of the 2 rounds' own ratios" in out
    assert "too few rounds (2) for an interval of the median, so no verdict" in out
    assert "| ModelCheckpoint.on_train_step_end | inline |" in out
    assert "| SummaryCollector.writer | worker |" in out
    (entry,) = [json.loads(line) for line in record.read_text().splitlines()]
    assert entry["arm"] == "5 standard callbacks"
    assert len(entry["rounds"]) == len(entry["control"]) == 2
    printed = out.split("Rounds (%): ", 1)[1].splitlines()[0].split()
    assert [float(r) for r in printed] == pytest.approx(entry["rounds"], abs=0.005)


def test_pool_prints_each_recorded_run_and_the_pooled_rounds(
    bench: Any, capsys: Any, tmp_path: pathlib.Path
) -> None:
    record = tmp_path / "rounds.jsonl"
    bench.record_rounds(str(record), "5 standard callbacks", [1.0, 2.0, 3.0], [0.5])
    bench.record_rounds(
        str(record), "ModelCheckpoint", [9.0], None
    )  # another arm: left out
    bench.record_rounds(str(record), "5 standard callbacks", [4.0, 5.0], None)
    assert bench.main(["--pool", str(record)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    assert "3 rounds, median +2.0 %" in lines[0]
    assert "2 rounds, median +4.5 %" in lines[1]
    assert lines[2].startswith("All 2 runs pooled, 5 rounds: median +3.0 %")
    assert lines[3] == "Control pooled, 1 rounds: median +0.5 %."


def test_pool_of_a_file_without_the_five_says_so(
    bench: Any, capsys: Any, tmp_path: pathlib.Path
) -> None:
    record = tmp_path / "rounds.jsonl"
    bench.record_rounds(str(record), "ModelCheckpoint", [9.0], None)
    assert bench.main(["--pool", str(record)]) == 1
    assert "No run of the five callbacks" in capsys.readouterr().out


def test_median_interval_brackets_the_median_and_narrows_with_more_rounds(
    bench: Any,
) -> None:
    assert bench.median_interval([3.0] * 10) == (3.0, 3.0)
    few = [1.0, 5.0, 2.0, 4.0, 3.0, 6.0, 0.0, 7.0]
    low, high = bench.median_interval(few)
    assert low < 3.5 < high
    many_low, many_high = bench.median_interval(few * 16)
    assert low <= many_low < 3.5 < many_high <= high
    assert many_high - many_low < high - low


def test_verdict_needs_the_whole_interval_under_the_target(bench: Any) -> None:
    assert bench.verdict([2.0] * 20).endswith(": under the 5 % target")
    spread = [0.0, 1.0, 9.0, 9.5, 4.0, 4.5, 8.0, 2.0]
    assert "the median is under the 5 % target, its interval is not" in bench.verdict(
        spread
    )
    assert bench.verdict([6.0] * 6).endswith("OVER the 5 % target")
    assert bench.verdict([4.7]).startswith("too few rounds (1)")  # not "under"


def test_pool_of_a_missing_or_foreign_file_names_the_argument(
    bench: Any, capsys: Any, tmp_path: pathlib.Path
) -> None:
    assert bench.main(["--pool", str(tmp_path / "missing.jsonl")]) == 2
    assert "--pool expects a file written by --record" in capsys.readouterr().out
    foreign = tmp_path / "notes.txt"
    foreign.write_text("median +4.4 %\n")
    assert bench.main(["--pool", str(foreign)]) == 2
    out = capsys.readouterr().out
    assert "could not be read as one: JSONDecodeError" in out


def test_pool_of_three_runs_gives_the_mean_of_their_medians_with_an_interval(
    bench: Any, capsys: Any, tmp_path: pathlib.Path
) -> None:
    record = tmp_path / "rounds.jsonl"
    for rounds in ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [2.0, 2.0]):
        bench.record_rounds(str(record), "5 standard callbacks", rounds, None)
    assert bench.main(["--pool", str(record)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    # Medians 2.0, 5.0 and 2.0: their mean is 3.0, and one of them is at the target.
    assert line.startswith("Mean of the 3 runs' medians: +3.0 % (95 % interval")
    assert line.endswith("1 of the 3 medians at or over the 5 % target).")
    low, high = (
        float(v) for v in line.split("resampled, ")[1].split(" %")[0].split(" to ")
    )
    assert 2.0 <= low < 3.0 < high <= 5.0


def test_bootstrap_interval_of_the_mean_brackets_the_mean(bench: Any) -> None:
    import numpy as np

    values = [0.0, 10.0, 2.0, 8.0, 4.0, 6.0]
    low, high = bench.bootstrap_interval(values, np.mean)
    assert 0.0 < low < 5.0 < high < 10.0
    assert bench.bootstrap_interval([4.0] * 5, np.mean) == (4.0, 4.0)
