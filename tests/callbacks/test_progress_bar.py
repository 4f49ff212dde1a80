"""ProgressBar: plain lines when not on a terminal, a throttled live bar on one (forced or a real pty)."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import select
import struct
import termios

import numpy as np
import pytest

from cadence import Model, RunContext, Tensor
from cadence.callbacks import ProgressBar
from cadence.testing import HookRecorder, ListDataset, ScriptedMetric, constant_network
from tests.helpers.failures import failing_network

TIME = r"\d+\.\d s"
RATE = r"\d+\.\d steps/s"


def batches(steps: int, rows: int = 4) -> ListDataset:
    """Batches of `rows` samples each, so samples/s can be counted."""
    return ListDataset(
        [
            [np.zeros((rows, 3), np.float32), np.zeros(rows, np.int32)]
            for _ in range(steps)
        ]
    )


def lines(text: str) -> list[str]:
    return text.strip("\n").split("\n")


# --- plain mode -------------------------------------------------------------------------------


def test_plain_lines_at_even_steps_then_a_summary_per_epoch(capsys):
    Model(constant_network(0.25)).train(
        2, ListDataset.of_steps(8), callbacks=ProgressBar()
    )
    out = lines(capsys.readouterr().out)
    expected = []
    for epoch in (1, 2):
        for step, pct in ((2, 25), (4, 50), (6, 75)):
            expected.append(
                rf"Epoch {epoch}/2 - {step}/8 steps \({pct}%\) - {TIME} - loss 0\.25 - {RATE}"
            )
        expected.append(rf"Epoch {epoch}/2 - 8/8 steps - {TIME} - loss 0\.25 - {RATE}")
    assert len(out) == len(expected)
    for line, pattern in zip(out, expected, strict=True):
        assert re.fullmatch(pattern, line), line


def test_lines_per_epoch_sets_the_cadence(capsys):
    Model(constant_network()).train(
        1, ListDataset.of_steps(10), callbacks=ProgressBar(lines_per_epoch=3)
    )
    counts = [
        re.findall(r"(\d+)/10 steps", line) for line in lines(capsys.readouterr().out)
    ]
    assert counts == [["4"], ["7"], ["10"]]


def test_one_line_per_epoch_when_asked(capsys):
    Model(constant_network()).train(
        3, ListDataset.of_steps(5), callbacks=ProgressBar(lines_per_epoch=1)
    )
    out = lines(capsys.readouterr().out)
    assert [line.split(" - ")[:2] for line in out] == [
        [f"Epoch {e}/3", "5/5 steps"] for e in (1, 2, 3)
    ]


def test_samples_per_second_from_the_batch_rows(capsys):
    Model(lambda x, y: Tensor(np.float32(1.5))).train(
        1, batches(4), callbacks=ProgressBar(lines_per_epoch=1)
    )
    (line,) = lines(capsys.readouterr().out)
    assert re.fullmatch(
        rf"Epoch 1/1 - 4/4 steps - {TIME} - loss 1\.5 - {RATE}, \d+ samples/s", line
    ), line


def test_fit_summary_line_carries_the_eval_metrics(capsys):
    model = Model(
        constant_network(0.5),
        eval_network=lambda *batch: (Tensor(np.float32(0.7)),),
        metrics={
            "acc": ScriptedMetric(0.25, 0.75),
            "loss": ScriptedMetric(0.125, 0.0625),
        },
    )
    model.fit(
        2,
        ListDataset.of_steps(2),
        ListDataset.of_steps(3),
        callbacks=ProgressBar(lines_per_epoch=1),
    )
    out = lines(capsys.readouterr().out)
    assert len(out) == 2  # no lines for the evaluation steps inside fit
    assert out[0].endswith(" - eval_acc 0.25, eval_loss 0.125")
    assert out[1].endswith(" - eval_acc 0.75, eval_loss 0.0625")


def test_fit_epoch_time_and_rates_leave_the_evaluation_pass_out(capsys, monkeypatch):
    import types

    import cadence.callbacks._progress_bar as progress_bar

    now = [100.0]
    monkeypatch.setattr(
        progress_bar,
        "time",
        types.SimpleNamespace(perf_counter=lambda: now[0], monotonic=lambda: now[0]),
    )

    def train_step(*batch):
        now[0] += 1.0  # a training step takes a second
        return Tensor(np.float32(0.5))

    def eval_step(*batch):
        now[0] += 10.0  # an evaluation step ten
        return (Tensor(np.float32(0.7)),)

    model = Model(
        train_step, eval_network=eval_step, metrics={"acc": ScriptedMetric(0.5)}
    )
    model.fit(1, batches(4), batches(2), callbacks=ProgressBar(lines_per_epoch=1))
    (line,) = lines(capsys.readouterr().out)
    assert line == (
        "Epoch 1/1 - 4/4 steps - 4.0 s - loss 0.5 - 1.0 steps/s, 4 samples/s - eval_acc 0.5"
    ), line


def test_model_eval_gets_its_own_lines_with_metrics(capsys):
    model = Model(
        constant_network(),
        eval_network=lambda *batch: (Tensor(np.float32(0.7)),),
        metrics={"acc": ScriptedMetric(0.5)},
    )
    model.eval(ListDataset.of_steps(4), callbacks=ProgressBar(lines_per_epoch=2))
    out = lines(capsys.readouterr().out)
    assert re.fullmatch(
        rf"Eval - 2/4 steps \(50%\) - {TIME} - loss 0\.7 - {RATE}", out[0]
    ), out[0]
    assert re.fullmatch(
        rf"Eval - 4/4 steps - {TIME} - loss 0\.7 - {RATE} - acc 0\.5", out[1]
    ), out[1]


def test_a_stopped_epoch_reports_the_steps_it_ran(capsys):
    stopper = HookRecorder(
        on={
            "on_train_step_end": lambda rc: (
                rc.request_stop() if rc.original_args().cur_step_num == 3 else None
            )
        }
    )
    Model(constant_network()).train(
        2, ListDataset.of_steps(8), callbacks=[stopper, ProgressBar(lines_per_epoch=1)]
    )
    (line,) = lines(capsys.readouterr().out)
    assert line.startswith("Epoch 1/2 - 3/8 steps - ")


def test_resumed_epochs_are_numbered_up_to_the_last(capsys):
    Model(constant_network()).train(
        3, ListDataset.of_steps(1), callbacks=ProgressBar(), initial_epoch=1
    )
    out = lines(capsys.readouterr().out)
    assert [line.split(" - ")[0] for line in out] == ["Epoch 2/3", "Epoch 3/3"]


def test_an_epoch_of_unknown_size_gets_a_line_every_100_steps(capsys):
    # Model refuses unsized datasets; a hand-driven run shows the fallback.
    bar = ProgressBar()
    rc = RunContext(
        {"epoch_num": 1, "cur_epoch_num": 1, "batch_num": 0, "net_outputs": 0.5}
    )
    bar.on_train_begin(rc)
    bar.on_train_epoch_begin(rc)
    for _ in range(250):
        bar.on_train_step_end(rc)
    bar.on_train_epoch_end(rc)
    counts = [line.split(" - ")[1] for line in lines(capsys.readouterr().out)]
    assert counts == ["100 steps", "200 steps", "250 steps"]


def test_output_goes_to_the_given_file(capsys):
    stream = io.StringIO()
    Model(constant_network()).train(
        1,
        ListDataset.of_steps(2),
        callbacks=ProgressBar(file=stream, lines_per_epoch=1),
    )
    assert capsys.readouterr().out == ""
    assert stream.getvalue().startswith("Epoch 1/1 - 2/2 steps")


# --- terminal mode ------------------------------------------------------------------------------


def test_forced_terminal_draws_a_bar_per_epoch():
    stream = io.StringIO()
    Model(constant_network(0.25)).train(
        2, ListDataset.of_steps(5), callbacks=ProgressBar(file=stream, terminal=True)
    )
    out = stream.getvalue()
    finals = [seg for seg in re.split(r"[\r\n]", out) if "5/5" in seg]
    assert any(
        re.match(r"Epoch 1/2: 100%\|.*\| 5/5 \[.*step/s, loss=0\.25\]", seg)
        for seg in finals
    ), out
    assert any(seg.startswith("Epoch 2/2: 100%") for seg in finals), out
    assert out.count("\n") == 2  # each finished bar stays on its own line


def test_bar_redraws_are_throttled_not_per_step():
    stream = io.StringIO()
    callback = ProgressBar(file=stream, terminal=True, refresh_interval=3600.0)
    Model(constant_network()).train(1, ListDataset.of_steps(500), callbacks=callback)
    # tqdm's first draw, the final one, and the one on close: never one per step.
    assert stream.getvalue().count("\r") <= 4


def test_terminal_bar_shows_fit_metrics_at_the_epoch_end():
    stream = io.StringIO()
    model = Model(
        constant_network(0.5),
        eval_network=lambda *batch: (Tensor(np.float32(0.7)),),
        metrics={"acc": ScriptedMetric(0.75)},
    )
    model.fit(
        1,
        batches(3),
        ListDataset.of_steps(2),
        callbacks=ProgressBar(file=stream, terminal=True),
    )
    assert re.search(
        r"3/3 \[.*loss=0\.5, \d+ samples/s, eval_acc=0\.75\]", stream.getvalue()
    ), stream.getvalue()


def test_a_failed_run_leaves_the_bar_closed():
    stream = io.StringIO()

    with pytest.raises(RuntimeError, match="boom"):
        Model(failing_network(2, "boom")).train(
            1,
            ListDataset.of_steps(3),
            callbacks=ProgressBar(file=stream, terminal=True),
        )
    assert stream.getvalue().endswith("\n")


def test_a_pseudo_terminal_is_detected_and_gets_the_live_bar():
    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "w", closefd=True) as tty:
            Model(constant_network(0.25)).train(
                1, ListDataset.of_steps(4), callbacks=ProgressBar(file=tty)
            )
        out = _drain(master)
    finally:
        os.close(master)
    assert "\r" in out
    assert re.search(r"Epoch 1/1: 100%\|.*\| 4/4 \[.*loss=0\.25\]", out), out


@pytest.mark.parametrize("columns", [80, 100])
def test_an_80_column_terminal_shows_the_evaluation_metrics_uncut(columns):
    master, slave = pty.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    model = Model(
        constant_network(0.123456),
        eval_network=lambda *batch: (Tensor(np.float32(0.7)),),
        metrics={
            "accuracy": ScriptedMetric(*[0.954321] * 12),
            "precision": ScriptedMetric(*[0.912345] * 12),
        },
    )
    try:
        with os.fdopen(slave, "w", closefd=True) as tty:
            model.fit(
                12,
                batches(41),
                ListDataset.of_steps(2),
                callbacks=ProgressBar(file=tty),
            )
        out = _drain(master)
    finally:
        os.close(master)
    final = [
        seg for seg in re.split(r"[\r\n]", out) if seg.startswith("Epoch 12/12: 100%")
    ]
    assert final, out
    assert len(final[-1]) <= columns, final[-1]
    assert final[-1].endswith("eval_accuracy=0.9543, eval_precision=0.9123]"), final[-1]
    if columns == 100:  # room for the training loss too, in the compact meter
        assert "loss=0.1235, eval_accuracy" in final[-1], final[-1]


def _drain(fd: int) -> str:
    chunks = []
    while select.select([fd], [], [], 0.5)[0]:
        try:
            data = os.read(fd, 65536)
        except OSError:  # EIO: the other side is closed
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks).decode()


# --- validation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"file": 1},
            TypeError,
            r"For 'ProgressBar', the argument 'file' must be a text stream with a `write` method or None, but got 1 of type 'int'\.",
        ),
        (
            {"terminal": "yes"},
            TypeError,
            r"For 'ProgressBar', the argument 'terminal' must be of type 'bool' or 'NoneType', but got 'yes' of type 'str'\.",
        ),
        (
            {"lines_per_epoch": 0},
            ValueError,
            r"For 'ProgressBar', the argument 'lines_per_epoch' must be an int > 0, but got 0\.",
        ),
        (
            {"lines_per_epoch": 2.0},
            TypeError,
            r"the argument 'lines_per_epoch' must be an int > 0, but got 2\.0 of type 'float'",
        ),
        (
            {"refresh_interval": 0},
            ValueError,
            r"For 'ProgressBar', the argument 'refresh_interval' must be in \(0\.0, inf\), but got 0\.",
        ),
        (
            {"refresh_interval": "1"},
            TypeError,
            r"the argument 'refresh_interval' must be a number, but got '1' of type 'str'",
        ),
    ],
)
def test_validation(kwargs, error, match):
    with pytest.raises(error, match=match):
        ProgressBar(**kwargs)


def test_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        ProgressBar(None)  # type: ignore[call-arg]
