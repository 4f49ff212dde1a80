"""`cadence summary plot DIR`: a PNG of the scalar curves from real event files; one-line errors."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import matplotlib.image
import numpy as np
import pytest
from tensorboardX import SummaryWriter  # type: ignore[import-untyped]

from cadence import Model, Tensor
from cadence.callbacks import SummaryCollector
from cadence.cli._entry import main
from cadence.testing import ListDataset, ScriptedMetric

if TYPE_CHECKING:
    from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def write_fit_summaries(logdir: Path) -> None:
    """Loss falling over 3 epochs of 10 steps, accuracy rising: tags train/loss and eval/acc."""
    losses = iter(np.geomspace(2.0, 0.02, 30))
    model = Model(
        lambda *batch: Tensor(np.float32(next(losses))),
        eval_network=lambda *batch: (Tensor(np.float32(0.5)),),
        metrics={"acc": ScriptedMetric(0.5, 0.7, 0.9)},
    )
    model.fit(
        3,
        ListDataset.of_steps(10),
        ListDataset.of_steps(2),
        callbacks=SummaryCollector(logdir, collect_freq=2),
    )


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cadence", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_plot_writes_a_png_of_every_scalar_tag(tmp_path):
    write_fit_summaries(tmp_path / "runs" / "a")
    write_fit_summaries(tmp_path / "runs" / "b")
    out = tmp_path / "curves.png"
    result = cli("summary", "plot", str(tmp_path / "runs"), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"wrote {out} (2 tag(s), 2 event file(s))\n"
    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 10_000
    image = matplotlib.image.imread(out)
    assert image.shape == (340, 1200, 4)  # two panels side by side at 100 dpi
    assert image[..., :3].std() > 0.05  # not a blank canvas


def test_plot_defaults_to_scalars_png_in_the_directory(tmp_path):
    write_fit_summaries(tmp_path)
    result = cli("summary", "plot", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "scalars.png").read_bytes().startswith(PNG_SIGNATURE)


def test_read_scalars_returns_the_points_of_one_file(tmp_path):
    from cadence.cli._summary import read_scalars

    write_fit_summaries(tmp_path)
    (path,) = tmp_path.glob("events.out.tfevents.*")
    series = read_scalars(path)
    assert sorted(series) == ["eval/acc", "train/loss"]
    assert series["eval/acc"] == [
        (10, 0.5),
        (20, pytest.approx(0.7)),
        (30, pytest.approx(0.9)),
    ]
    assert [step for step, _ in series["train/loss"]] == [1, *range(2, 31, 2)]


# --- errors: one line on stderr, exit status 2 ---------------------------------------------------


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["summary", "plot", *args])
    err = capsys.readouterr().err
    return code, err


def refused(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run `cadence summary plot ARGS`, check it exits with 2, return what follows "error: "."""
    code, err = run_main(capsys, *args)
    prefix = "cadence summary: error: "
    assert (code, err[: len(prefix)], err[-1:]) == (2, prefix, "\n"), (code, err)
    return err[len(prefix) : -1]


def test_missing_directory(tmp_path, capsys):
    assert refused(capsys, str(tmp_path / "nope")) == (
        f"the directory {str(tmp_path / 'nope')!r} does not exist."
    )


def test_missing_directory_from_the_command_line_has_no_traceback(tmp_path):
    result = cli("summary", "plot", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_a_file_instead_of_a_directory(tmp_path, capsys):
    path = tmp_path / "f.txt"
    path.write_text("x")
    assert refused(capsys, str(path)) == f"{str(path)!r} is not a directory."


def test_a_directory_without_event_files(tmp_path, capsys):
    (tmp_path / "other.txt").write_text("x")
    assert refused(capsys, str(tmp_path)) == (
        f"no TensorBoard event files (events.out.tfevents.*) under {str(tmp_path)!r}."
    )


def test_event_files_without_scalars(tmp_path, capsys):
    writer = SummaryWriter(str(tmp_path))
    writer.add_text("note", "hello", 1)
    writer.close()
    assert refused(capsys, str(tmp_path)) == (
        f"the 1 event file(s) under {str(tmp_path)!r} hold no scalar summaries."
    )


def test_a_file_that_is_not_an_event_file(tmp_path, capsys):
    from tensorboardX.record_writer import masked_crc32c  # type: ignore[import-untyped]

    bogus = tmp_path / "events.out.tfevents.123.host"
    length = (5).to_bytes(8, "little")
    bogus.write_bytes(
        length
        + masked_crc32c(length).to_bytes(4, "little")
        + b"\xff\xff\xff\xff\xff"
        + b"\0" * 4
    )
    assert refused(capsys, str(tmp_path)) == (
        f"{str(bogus)!r} is not a TensorBoard event file (a record does not parse)."
    )


def test_random_bytes_get_the_error_not_a_traceback(tmp_path, capsys):
    # A length field of random bytes, checked against its checksum before any read.
    bogus = tmp_path / "events.out.tfevents.456.host"
    bogus.write_bytes(np.random.default_rng(0).bytes(100))
    assert refused(capsys, str(tmp_path)) == (
        f"{str(bogus)!r} is not a TensorBoard event file "
        "(a record's length does not match its checksum)."
    )


def test_a_truncated_last_record_is_ignored(tmp_path, capsys):
    write_fit_summaries(tmp_path)
    (path,) = tmp_path.glob("events.out.tfevents.*")
    path.write_bytes(path.read_bytes()[:-7])
    code, _ = run_main(capsys, str(tmp_path), "--out", str(tmp_path / "x.png"))
    assert code == 0


def test_output_directory_must_exist(tmp_path, capsys):
    write_fit_summaries(tmp_path)
    out = tmp_path / "missing" / "x.png"
    assert refused(capsys, str(tmp_path), "--out", str(out)) == (
        f"cannot write {str(out)!r}: the directory {str(out.parent)!r} does not exist."
    )


def test_without_matplotlib_the_error_says_how_to_install_it(
    tmp_path, capsys, monkeypatch
):
    write_fit_summaries(tmp_path)
    monkeypatch.setitem(
        sys.modules, "matplotlib", None
    )  # makes `import matplotlib` fail
    assert refused(capsys, str(tmp_path)) == (
        "plotting needs matplotlib, which is not installed: "
        "pip install 'cadence[plot]' (or pip install matplotlib)."
    )


def test_summary_needs_an_action(capsys):
    with pytest.raises(SystemExit) as info:
        main(["summary"])
    assert info.value.code == 2
    assert "the following arguments are required: ACTION" in capsys.readouterr().err
