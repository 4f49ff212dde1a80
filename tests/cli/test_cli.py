"""The command line as a user drives it: `python -m cadence ...` in a subprocess, on real files.

The commands are slow to start (imports, JIT caches), so one module fixture starts
every independent command at once and the tests check their results: the main job
on the digits with its defaults (then resume, eval and predict on its output), MNIST
from IDX files with LeNet-5, an .npz with early stopping and upload, and every
error case (one line on stderr, no traceback, exit status 2).
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import zipfile
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pytest

import cadence as ms
from cadence import nn

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

TIMEOUT = 300


@dataclass
class Result:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def _default_sigint() -> None:
    """Run in the child before exec: give it the default SIGINT disposition.

    A shell starts background jobs with SIGINT ignored and children inherit that, so
    `pytest &` would start `cadence` deaf to the Ctrl-C the interrupt test sends.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Runner:
    """Start `cadence` commands in `cwd` and collect them by name."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.running: dict[str, tuple[tuple[str, ...], subprocess.Popen[str]]] = {}
        self.terminals: dict[str, int] = {}  # name -> the pty's master side
        self.done: dict[str, Result] = {}
        self.early_output: dict[str, str] = {}

    def start(
        self, name: str, *args: str, terminal: bool = False, unbuffered: bool = False
    ) -> None:
        """Start `cadence ARGS`; with `terminal`, its stdout is a pseudo-terminal."""
        stdout: int = subprocess.PIPE
        if terminal:
            master, stdout = pty.openpty()
            # A fresh pty reports 0 columns; give it a real size: the classic 80 columns.
            fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            self.terminals[name] = master
        process = subprocess.Popen(
            [sys.executable, "-m", "cadence", *args],
            cwd=self.cwd,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"} if unbuffered else None,
            preexec_fn=_default_sigint,
        )
        if terminal:
            os.close(stdout)
        self.running[name] = (args, process)

    def interrupt_after(
        self, name: str, line_start: str, count: int, signum: int = signal.SIGINT
    ) -> None:
        """Send `signum` (SIGINT: Ctrl-C) once `count` lines of `name`'s output start with `line_start`."""
        _, process = self.running[name]
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if sum(seen.startswith(line_start) for seen in lines) == count:
                process.send_signal(signum)
                break
        self.early_output[name] = "".join(lines)

    def result(self, name: str) -> Result:
        if name not in self.done:
            args, process = self.running.pop(name)
            terminal = self._read_terminal(name)
            stdout, stderr = process.communicate(timeout=TIMEOUT)
            stdout = self.early_output.pop(name, "") + (stdout or "")
            self.done[name] = Result(
                args, process.returncode, terminal or stdout, stderr
            )
        return self.done[name]

    def succeeded(self, name: str) -> Result:
        """`result(name)`, after checking that the command exited with 0 (its stderr otherwise)."""
        result = self.result(name)
        assert result.returncode == 0, result.stderr
        return result

    def _read_terminal(self, name: str) -> str:
        master = self.terminals.pop(name, None)
        if master is None:
            return ""
        chunks = []
        try:
            while chunk := os.read(master, 65536):
                chunks.append(chunk)
        except OSError:  # EIO: the process closed the terminal
            pass
        os.close(master)
        return b"".join(chunks).decode()

    def finish(self) -> None:
        for name in list(self.running):
            self.result(name)


# --- files a user would have -------------------------------------------------------------


def idx(array: np.ndarray) -> bytes:
    """An IDX file of unsigned bytes, as MNIST is published."""
    header = bytes([0, 0, 0x08, array.ndim]) + struct.pack(
        f">{array.ndim}I", *array.shape
    )
    return header + array.astype(np.uint8).tobytes()


def write_mnist(directory: Path, n_train: int = 200, n_test: int = 60) -> None:
    """MNIST-shaped IDX files whose class is where a bright square sits: learnable in an epoch.

    In MindSpore's download layout: `directory/train` holds the train files,
    `directory/test` the t10k files.
    """
    rng = np.random.default_rng(0)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        folder = directory / ("train" if prefix == "train" else "test")
        folder.mkdir(parents=True)
        labels = np.arange(n) % 10
        images = rng.integers(0, 60, (n, 28, 28))
        for i, label in enumerate(labels):
            row, col = divmod(int(label), 5)
            images[i, 4 + 12 * row : 12 + 12 * row, 1 + 5 * col : 6 + 5 * col] = 250
        (folder / f"{prefix}-images-idx3-ubyte").write_bytes(idx(images))
        (folder / f"{prefix}-labels-idx1-ubyte").write_bytes(idx(labels))


def write_blobs(path: Path) -> None:
    """Three Gaussian blobs in 20 dimensions, as x (float32) and y (int64)."""
    rng = np.random.default_rng(1)
    y = np.arange(240) % 3
    x = (
        rng.normal(size=(240, 20)).astype(np.float32)
        + 3 * np.eye(3, 20, dtype=np.float32)[y]
    )
    np.savez(path, x=x, y=y)


def npz_claiming_rows(path: Path, rows: int) -> None:
    """An .npz whose x header claims `rows` rows of 3 float32 values but holds one row."""
    np.savez(path, y=np.zeros(1, np.int64))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (rows, 3)}
    )
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("x.npy", header.getvalue() + np.zeros(3, np.float32).tobytes())


def write_trained(path: Path, spec: dict[str, object], *, nan: bool = False) -> None:
    """A checkpoint as `cadence train` writes it: an MLP for the digits and its run description."""
    from cadence.cli._presets import SPEC_KEY, RunSpec, build_network

    net = build_network("mlp", (64,), 10)
    if nan:
        weight = net[1].weight
        weight.set_data(ms.Tensor(np.full(weight.shape, np.nan, np.float32)))
    real = RunSpec(model="mlp", input_shape=(64,), num_classes=10)
    text = json.dumps({**json.loads(real.to_json()), **spec})
    ms.save_checkpoint(net, str(path), append_dict={SPEC_KEY: text}, crc_check=True)


def write_damaged(path: Path) -> None:
    """A `cadence train` checkpoint (with its CRC) with one bit flipped in a weight."""
    write_trained(path, {})
    data = bytearray(path.read_bytes())
    data[2000] ^= 0x04
    path.chmod(0o600)
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runner]:
    root = tmp_path_factory.mktemp("cli")
    write_mnist(root / "MNIST_Data")
    write_blobs(root / "blobs.npz")
    (root / "bad-mnist").mkdir()
    for name in (
        "train-images-idx3-ubyte",
        "train-labels-idx1-ubyte",
        "t10k-images-idx3-ubyte",
        "t10k-labels-idx1-ubyte",
    ):
        (root / "bad-mnist" / name).write_bytes(b"not an IDX file")
    (root / "bad.npz").write_bytes(b"not a zip archive")
    np.savez(root / "no-y.npz", x=np.zeros((4, 3), np.float32))
    np.savez(
        root / "float-labels.npz",
        x=np.zeros((4, 3), np.float32),
        y=np.array([0, 0.5, 1, 2]),
    )
    (root / "text.npz").write_text("x,y\n1,2\n")
    npz_claiming_rows(root / "huge-rows.npz", 10**12)
    np.savez(
        root / "x-test-only.npz",
        x=np.zeros((4, 3), np.float32),
        y=np.arange(4) % 2,
        x_test=np.zeros((2, 3), np.float32),
    )
    write_trained(root / "wrong-shape.ckpt", {"input_shape": [63]})
    write_trained(
        root / "lenet-on-mlp.ckpt", {"model": "lenet5", "input_shape": [1, 8, 8]}
    )
    write_trained(root / "huge-shape.ckpt", {"input_shape": [10**9, 10**9]})
    write_trained(root / "nan.ckpt", {}, nan=True)
    write_damaged(root / "damaged.ckpt")
    (root / "a-file").write_text("")
    (root / "occupied").mkdir()
    (root / "occupied" / "run.json").write_text("{}")
    ms.save_checkpoint(nn.Dense(3, 2), str(root / "foreign.ckpt"))
    (root / "garbage.ckpt").write_bytes(b"\x00" * 64)

    runner = Runner(root)
    try:
        _start_all(runner, root)
        yield runner
    finally:
        runner.finish()


def _start_all(runner: Runner, root: Path) -> None:
    runner.start("main", "train")  # the README's command: no options
    mnist = "--data mnist --data-dir MNIST_Data/train --model lenet5 --epochs 2 --lr 0.05 --batch-size 16"
    runner.start("mnist", "train", *mnist.split(), "--output-dir", "out-mnist")
    npz = "--data blobs.npz --epochs 4 --optimizer adam --early-stopping 1 --output-dir out-npz"
    runner.start("npz", "train", *npz.split(), "--upload", (root / "bucket").as_uri())
    tty = "--epochs 2 --output-dir out-tty"
    runner.start("terminal", "train", *tty.split(), terminal=True)
    forever = ["--epochs", "1000", "--output-dir", "out-int"]
    runner.start("ctrl-c", "train", *forever, unbuffered=True)
    forever_term = ["--epochs", "1000", "--output-dir", "out-term"]
    runner.start("sigterm", "train", *forever_term, unbuffered=True)
    for name, args in ERRORS.items():
        runner.start(name, *args)
    runner.interrupt_after("ctrl-c", "Train epoch time", 2)
    runner.interrupt_after("sigterm", "Train epoch time", 2, signal.SIGTERM)
    main = runner.result("main")
    assert main.returncode == 0, main.stderr
    # eval and predict read a copy: the resumed run rewrites model.ckpt meanwhile.
    (root / "main-model.ckpt").write_bytes(
        (root / "runs/train-1/model.ckpt").read_bytes()
    )
    runner.start("resume", "train", "--resume", "--epochs", "32")
    runner.start("eval", "eval", "main-model.ckpt")
    np.save(root / "digits.npy", _first_test_digits())
    np.save(root / "wrong-shape.npy", np.zeros((3, 7), np.float32))
    runner.start("predict", "predict", "main-model.ckpt", "digits.npy")
    runner.start("predict-wrong-shape", "predict", "main-model.ckpt", "wrong-shape.npy")
    runner.start("predict-text-input", "predict", "main-model.ckpt", "text.npz")
    runner.start("predict-huge-rows", "predict", "main-model.ckpt", "huge-rows.npz")
    runner.result("resume")
    runner.result("ctrl-c")  # exited, so its backup is final
    runner.result("sigterm")
    again_term = f"--resume --output-dir out-term --epochs {epochs_in_backup(root / 'out-term') + 1}"
    runner.start("resume-after-sigterm", "train", *again_term.split())
    again = f"--resume --output-dir out-int --epochs {epochs_in_backup(root / 'out-int') + 1}"
    runner.start("resume-after-ctrl-c", "train", *again.split())
    runner.start("resume-too-few", "train", "--resume", "--epochs", "30")
    runner.start(
        "resume-other-model", "train", "--resume", "--epochs", "40", "--model", "lenet5"
    )


def _first_test_digits() -> np.ndarray:
    from cadence import dataset

    rows = dataset.DigitsDataset(usage="test", shuffle=False).batch(5)
    image, _ = next(rows.create_tuple_iterator(output_numpy=True))
    return np.asarray(image)


def accuracy_in(stdout: str) -> str:
    found = re.search(r"Test accuracy: (\d\.\d+)", stdout)
    assert found is not None, stdout
    return found.group(1)


# --- the main job --------------------------------------------------------------------------


def test_bare_train_reaches_95_percent_and_says_where_everything_went(
    runs: Runner,
) -> None:
    result = runs.result("main")
    lines = result.stdout.splitlines()
    assert lines[0].startswith(
        "Training mlp on the digits: 1294 train, 144 validation, 359 test samples"
    )
    assert "30 epochs of 41 steps (batch 32), momentum lr 0.1, seed 0." in lines[0]
    assert any(
        re.fullmatch(r"epoch: 1 step: 20, loss is \d+\.\d+(e-\d+)?", line)
        for line in lines
    )
    assert sum(line.startswith("Train epoch time: ") for line in lines) == 30
    assert sum(line.startswith("Eval result: epoch ") for line in lines) == 30
    accuracy = float(accuracy_in(result.stdout))
    assert accuracy >= 0.95
    run = runs.cwd / "runs" / "train-1"
    assert f"Model:       {run.relative_to(runs.cwd)}/model.ckpt" in lines
    assert f"Loss plot:   {run.relative_to(runs.cwd)}/loss.png" in lines
    assert (run / "loss.png").read_bytes().startswith(b"\x89PNG")
    assert json.loads((run / "run.json").read_text())["model"] == "mlp"
    assert result.stderr == ""


def test_resume_continues_the_newest_run_after_its_last_epoch(runs: Runner) -> None:
    result = runs.succeeded("resume")
    assert "32 epochs of 41 steps" in result.stdout
    assert "resuming after epoch 30." in result.stdout
    assert (
        sum(
            line.startswith("Train epoch time: ") for line in result.stdout.splitlines()
        )
        == 2
    )
    assert "epoch: 31 step: 20, loss is" in result.stdout
    run = runs.cwd / "runs" / "train-1"
    checkpoints = sorted(p.name for p in (run / "checkpoints").iterdir())
    # The same prefix goes on; retention keeps the last 3 of both runs, plus the best.
    assert checkpoints[:3] == ["mlp-30_41.ckpt", "mlp-31_41.ckpt", "mlp-32_41.ckpt"]
    assert re.fullmatch(r"mlp-best-\d+_41\.ckpt", checkpoints[3])
    assert (
        checkpoints[4:] == []
    )  # nothing but checkpoints, as in MindSpore's directories
    events = [p.name for p in (run / "summaries").iterdir()]
    assert len(events) == 2  # one event file per run
    assert all(name.startswith("events.out.tfevents.") for name in events)
    assert json.loads((run / "run.json").read_text())["epochs"] == 32
    assert not (runs.cwd / "runs/train-2").exists()


def test_eval_rebuilds_the_network_from_the_checkpoint(runs: Runner) -> None:
    result = runs.succeeded("eval")
    trained = accuracy_in(runs.result("main").stdout)
    assert result.stdout.startswith(f"Test accuracy: {trained} (loss ")
    assert "359 test samples of the digits; mlp from main-model.ckpt" in result.stdout


def test_predict_prints_a_class_per_sample(runs: Runner) -> None:
    result = runs.succeeded("predict")
    lines = result.stdout.splitlines()
    assert len(lines) == 5
    for i, line in enumerate(lines):
        assert re.fullmatch(
            rf"sample {i}: class \d \(probability [01]\.\d{{3}}\)", line
        )


def test_mnist_idx_files_with_lenet5(runs: Runner) -> None:
    result = runs.succeeded("mnist")
    assert "Training lenet5 on MNIST (" in result.stdout
    assert "2 epochs of 12 steps (batch 16), momentum lr 0.05, seed 0." in result.stdout
    assert (
        "180 train, 20 validation, 60 test samples of shape (1, 28, 28), 10 classes"
        in result.stdout
    )
    accuracy = float(accuracy_in(result.stdout))
    assert accuracy > 0.5  # chance is 0.1
    assert (runs.cwd / "out-mnist" / "model.ckpt").is_file()


def test_npz_with_early_stopping_and_upload(runs: Runner) -> None:
    result = runs.succeeded("npz")
    assert "Warning" not in result.stderr, result.stderr  # e.g. the callbacks' order
    assert (
        "/blobs.npz: 173 train, 19 validation, 48 test samples of shape (20,), 3 classes"
        in result.stdout
    )
    assert "adam lr 0.001" in result.stdout
    uploaded = re.search(
        r"Checkpoint upload to (\S+): (\d+) uploaded, 0 already stored, 0 failed",
        result.stdout,
    )
    assert uploaded is not None, result.stdout
    stored = {p.name for p in (runs.cwd / "bucket").iterdir()}
    local = {p.name for p in (runs.cwd / "out-npz" / "checkpoints").glob("*.ckpt")}
    assert local <= stored
    assert int(uploaded.group(2)) >= len(local)


def test_a_terminal_gets_a_progress_bar_instead_of_lines(runs: Runner) -> None:
    result = runs.succeeded("terminal")
    screen = result.stdout.replace("\r\n", "\n")
    final = re.findall(r"\rEpoch 2/2: 100%[^\r\n]*", screen)
    assert final, screen
    # At 80 columns the epoch's last line keeps the evaluation metrics whole.
    assert len(final[-1]) - 1 <= 80, final[-1]
    assert re.search(r"\| 41/41 \[.*\]$", final[-1]), final[-1]
    # Both metrics, whole (in the order of the metrics set).
    assert re.search(r"[ ,]eval_accuracy=0\.\d{2,4}[,\]]", final[-1]), final[-1]
    assert re.search(r"[ ,]eval_loss=\d\.\d{2,4}[,\]]", final[-1]), final[-1]
    assert "loss is" not in screen  # no LossMonitor lines breaking the bar
    assert "epoch time" not in screen  # nor TimeMonitor's
    assert "Test accuracy: " in screen


def epochs_in_backup(run: Path) -> int:
    epoch = ms.load_checkpoint(str(run / "backup" / "backup.ckpt"))["epoch_num"]
    assert isinstance(epoch, ms.Parameter)
    return int(epoch.asnumpy())


def test_ctrl_c_then_resume(runs: Runner) -> None:
    stopped = runs.result("ctrl-c")
    assert stopped.returncode == 130
    assert stopped.stderr.splitlines() == [
        "To continue after the last finished epoch: cadence train --resume --output-dir out-int --epochs 1000",
        "cadence train: interrupted",
    ]
    resumed = runs.succeeded("resume-after-ctrl-c")
    printed = stopped.stdout.count("Train epoch time")
    done = re.search(
        r"(\d+) epochs of 41 steps .* resuming after epoch (\d+)\.", resumed.stdout
    )
    assert done is not None, resumed.stdout
    # The backup holds the last epoch whose end hooks all ran: the last printed or the one before.
    assert printed - 1 <= int(done.group(2)) <= printed
    assert int(done.group(1)) == int(done.group(2)) + 1
    assert "Test accuracy: " in resumed.stdout


# --- errors: one line, the fix, no traceback --------------------------------------------------

ERRORS: dict[str, tuple[str, ...]] = {
    "epochs-zero": ("train", "--epochs", "0"),
    "lr-text": ("train", "--lr", "fast"),
    "batch-negative": ("train", "--batch-size", "-3"),
    "valid-fraction": ("train", "--valid-fraction", "1.5"),
    "unknown-model": ("train", "--model", "resnet"),
    "device-target": ("train", "--device-target", "tpu"),
    "mnist-no-dir": ("train", "--data", "mnist"),
    "mnist-missing-dir": ("train", "--data", "mnist", "--data-dir", "nowhere"),
    "mnist-malformed": ("train", "--data", "mnist", "--data-dir", "bad-mnist"),
    "npz-malformed": ("train", "--data", "bad.npz"),
    "npz-no-y": ("train", "--data", "no-y.npz"),
    "npz-float-labels": ("train", "--data", "float-labels.npz"),
    "npz-lenet": ("train", "--data", "blobs.npz", "--model", "lenet5"),
    "unknown-data": ("train", "--data", "cifar"),
    "output-under-file": ("train", "--output-dir", "a-file/out"),
    "output-occupied": ("train", "--output-dir", "occupied"),
    "resume-nothing": ("train", "--resume", "--output-dir", "empty"),
    "upload-scheme": ("train", "--upload", "ftp://host/x", "--output-dir", "out-ftp"),
    "eval-missing": ("eval", "missing.ckpt"),
    "eval-foreign": ("eval", "foreign.ckpt"),
    "eval-garbage": ("eval", "garbage.ckpt"),
    "predict-missing-input": ("predict", "foreign.ckpt", "missing.npy"),
    "unknown-option": ("train", "--epochz", "3"),
    "npz-text": ("train", "--data", "text.npz"),
    "npz-huge-rows": ("train", "--data", "huge-rows.npz"),
    "npz-x-test-only": ("train", "--data", "x-test-only.npz"),
    "eval-wrong-shape": ("eval", "wrong-shape.ckpt"),
    "eval-lenet-on-mlp": ("eval", "lenet-on-mlp.ckpt"),
    "eval-huge-shape": ("eval", "huge-shape.ckpt"),
    "eval-nan": ("eval", "nan.ckpt"),
    "eval-damaged": ("eval", "damaged.ckpt"),
    "predict-nan": ("predict", "nan.ckpt", "text.npz"),
}

EXPECTED = {
    "epochs-zero": "cadence train: error: argument --epochs: expected a positive whole number, got '0' (see 'cadence train --help')",
    "lr-text": "argument --lr: expected a positive number, got 'fast'",
    "batch-negative": "argument --batch-size: expected a positive whole number, got '-3'",
    "valid-fraction": "argument --valid-fraction: expected a fraction from 0 up to (not including) 1, got '1.5'",
    "unknown-model": "argument --model: invalid choice: 'resnet' (choose from 'lenet5', 'mlp', 'mobilenet_v2', 'resnet18')",
    "device-target": "--device-target 'tpu': No device target named 'tpu'. Known targets: ",
    "mnist-no-dir": "--data mnist needs --data-dir DIR, the directory of MNIST's IDX files",
    "mnist-missing-dir": "/nowhere' does not exist; pass --data-dir DIR with MNIST's IDX files",
    "mnist-malformed": "train-images-idx3-ubyte",
    "npz-malformed": "/bad.npz' as an .npz file (written by numpy.savez)",
    "npz-no-y": "has no array named 'y'; it holds ['x']",
    "npz-float-labels": "y must be a 1-d array of class numbers 0, 1, 2, ..., but it has shape (4,) and dtype 'float64' (first values [0.0, 0.5, 1.0])",
    "npz-lenet": "the LeNet-5 preset needs images (channels, height, width) of at least 4x4 pixels, but the samples have shape (20,)",
    "unknown-data": "unknown data set 'cifar': --data takes 'digits'",
    "output-under-file": "cannot create the output directory 'a-file/out': 'a-file' is a file; choose another --output-dir.",
    "output-occupied": "the output directory 'occupied' already holds a run; pass --resume to continue it",
    "resume-nothing": "--resume: 'empty' holds no run to continue (no run.json)",
    "upload-scheme": "--upload 'ftp://host/x': For 'CheckpointUploader', the argument 'destination' must be an 's3://'",
    "eval-missing": "cadence eval: error: the checkpoint 'missing.ckpt' does not exist",
    "eval-foreign": "has no 'cadence_run' entry, so it was not written by `cadence train`",
    "eval-garbage": "garbage.ckpt",
    "predict-missing-input": "has no 'cadence_run' entry",  # the checkpoint is checked first
    "predict-wrong-shape": "'wrong-shape.npy': the inputs have shape (3, 7), which is not a whole number of samples of shape (1, 8, 8) (64 values each).",
    "resume-too-few": "--resume: the run in 'runs/train-1' has already trained 32 epochs; pass --epochs N with N > 32",
    "resume-other-model": "was trained with --model 'mlp', which a resumed run cannot change (got 'lenet5')",
    "unknown-option": "cadence train: error: unrecognized arguments: --epochz 3 (see 'cadence train --help')",
    "npz-text": "text.npz' as an .npz file (written by numpy.savez): it is not a zip archive",
    "npz-huge-rows": "claims shape (1000000000000, 3) of float32 (12000000000000 bytes) but holds 12 bytes",
    "npz-x-test-only": "has an array x_test but no y_test; a test split needs both",
    "eval-wrong-shape": "the shape of '1.weight' in the argument 'parameter_dict' must equal its shape",
    "eval-lenet-on-mlp": "does not fit its own run description: a lenet5 network",
    "eval-huge-shape": "does not fit its own run description: a mlp network for inputs of shape (1000000000, 1000000000)",
    "eval-nan": "holds non-finite weights (1.weight has NaN or infinity: the training diverged)",
    "eval-damaged": "differs from the one stored in the file's crc_num trailer",
    "predict-nan": "holds non-finite weights",
    "predict-text-input": "it is neither a zip archive (.npz) nor a .npy file",
    "predict-huge-rows": "claims shape (1000000000000, 3)",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_input_is_one_line_with_the_fix(runs: Runner, name: str) -> None:
    result = runs.result(name)
    lines = result.stderr.splitlines()
    assert result.returncode == 2, (result.args, result.stderr)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"cadence {result.args[0]}: error: ")
    assert EXPECTED[name] in lines[0]
    assert result.stdout == ""


def test_sigterm_stops_like_ctrl_c_with_exit_143(runs: Runner) -> None:
    stopped = runs.result("sigterm")
    assert stopped.returncode == 143, stopped.stderr
    assert stopped.stderr.splitlines() == [
        "To continue after the last finished epoch: cadence train --resume --output-dir out-term --epochs 1000",
        "cadence train: terminated (SIGTERM)",
    ]
    leftovers = [
        p for p in (runs.cwd / "out-term").rglob("*") if p.name.endswith(".tmp")
    ]
    assert leftovers == []
    resumed = runs.succeeded("resume-after-sigterm")
    assert "resuming after epoch" in resumed.stdout


def test_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cadence", "--version"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert (result.returncode, result.stdout) == (0, f"cadence {ms.__version__}\n")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", ms.__version__)


def test_failed_commands_leave_no_run_behind(runs: Runner) -> None:
    for name in ("upload-scheme", "npz-lenet"):
        runs.result(name)
    assert not (runs.cwd / "out-ftp").exists()
    assert sorted(p.name for p in (runs.cwd / "runs").iterdir()) == ["train-1"]
