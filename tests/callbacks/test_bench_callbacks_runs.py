"""The callbacks benchmark runs end to end (a short run; no timing is asserted)."""

from __future__ import annotations

import importlib.util
import pathlib
from typing import Any

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench" / "bench_callbacks.py"


def test_bench_callbacks_short_run_prints_every_figure(capsys: Any) -> None:
    spec = importlib.util.spec_from_file_location("bench_callbacks", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    # 120 steps: one periodic checkpoint (every 100 steps) in every run with ModelCheckpoint.
    assert bench.main(["--steps", "120", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "| 5 standard callbacks |" in out
    assert (
        "| control: LossMonitor + TimeMonitor + SummaryCollector + ProgressBar + bare durable save |"
        in out
    )
    assert "median of the 1 rounds' own ratios" in out
    assert "| ModelCheckpoint.on_train_step_end | inline |" in out
    assert "| SummaryCollector.writer | worker |" in out
