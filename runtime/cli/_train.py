"""`cadence train`: train a model on a real data set with the standard callbacks (the main job)."""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _arg_types as cli
from ._command import Command, Group, UsageError, arg, data_args
from ._data import DATA_HELP, load_splits, pipeline
from ._entry import interrupted_status
from ._interrupt import StopRanksTogether
from ._presets import MODELS, OPTIMIZERS, SPEC_KEY, build_network, build_optimizer
from ._run_dir import RunDirectory, Settings, resolve_run_directory
from ._workers import Worker, in_mpi_job, join, launch

if TYPE_CHECKING:
    from ._data import Splits

__all__ = ["COMMAND", "run"]


def run(args: argparse.Namespace) -> int:
    """Train, evaluate, say where everything went; return the exit status."""
    import cadence as ms

    _set_device_target(args.device_target)
    run_dir = resolve_run_directory(args.output_dir, resume=args.resume)
    workers = args.workers or 1
    if workers > 1 and not in_mpi_job():
        return launch(args.argv, workers, run_dir.path)
    worker = join() if in_mpi_job() else Worker(0, 1)
    settings = run_dir.settings(Settings.from_args(args))
    if settings.batch_size % worker.size:
        raise UsageError(
            f"--batch-size {settings.batch_size} is the global batch of {worker.size} workers and must be a "
            "multiple of their number."
        )
    shard = (worker.size, worker.rank) if worker.size > 1 else None
    splits = load_splits(
        settings.data, settings.data_dir, settings.valid_fraction, settings.seed
    )
    if args.early_stopping is not None and splits.valid is None:
        raise UsageError(
            "--early-stopping watches the validation loss, but --valid-fraction is 0; "
            "hold out some training samples (e.g. --valid-fraction 0.1)."
        )
    upload = _uploader(args.upload)
    spec = splits.spec(settings.model)
    ms.set_seed(settings.seed)
    try:
        net = build_network(spec.model, spec.input_shape, spec.num_classes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    model = _model(net, settings)
    batch = settings.batch_size // worker.size
    train = pipeline(splits.train, spec, batch, shuffle=True, shard=shard)
    valid = (
        None
        if splits.valid is None
        else pipeline(splits.valid, spec, 256, shuffle=False, shard=shard)
    )
    steps = train.get_dataset_size()
    if worker.size > 1:
        from cadence.communication._collectives import barrier

        barrier(where="cadence train: every rank checked the run directory")
    if worker.leader:
        run_dir.prepare(settings)  # the first write: every check above has passed
    callbacks = _callbacks(
        args, settings, run_dir, spec.to_json(), steps, upload, worker
    )
    interrupt = StopRanksTogether() if worker.size > 1 else None
    if interrupt is not None:
        callbacks.append(interrupt)
    if worker.leader:
        print(
            _headline(settings, splits, steps, run_dir.epochs_done(), worker.size),
            flush=True,
        )
    start = time.perf_counter()
    try:
        if valid is None:
            model.train(settings.epochs, train, callbacks=callbacks)
        else:
            model.fit(settings.epochs, train, valid, callbacks=callbacks)
        if interrupt is not None:
            interrupt.raise_if_received()  # came after the last step
    except KeyboardInterrupt as exc:
        if not worker.leader:  # rank 0 says it for the job
            return interrupted_status(exc)
        print(
            f"To continue after the last finished epoch: cadence train --resume --output-dir "
            f"{run_dir.path} --epochs {settings.epochs}",
            file=sys.stderr,
        )
        raise
    elapsed = time.perf_counter() - start
    if not worker.leader:  # the ranks' weights are identical: rank 0 saves and reports
        return 0
    ms.save_checkpoint(
        net,
        str(run_dir.model_file),
        append_dict={SPEC_KEY: spec.to_json()},
        crc_check=True,
    )
    metrics = model.eval(pipeline(splits.test, spec, 256, shuffle=False))
    return _report(run_dir, metrics, len(splits.test), elapsed, upload, settings)


def _set_device_target(name: str) -> None:
    import cadence as ms

    try:
        ms.set_context(device_target=name)
    except ValueError as exc:
        raise UsageError(f"--device-target {name!r}: {exc}") from None


def _model(net: Any, settings: Settings) -> Any:
    import cadence as ms
    from cadence import nn

    optimizer = build_optimizer(settings.optimizer, net.trainable_params(), settings.lr)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return ms.Model(net, loss, optimizer, metrics={"accuracy", "loss"})


def _uploader(url: str | None) -> Any:
    if url is None:
        return None
    from cadence.callbacks import CheckpointUploader, missing_credentials

    try:
        uploader = CheckpointUploader(url, on_incomplete="ignore")
    except ValueError as exc:
        raise UsageError(f"--upload {url!r}: {exc}") from None
    missing = missing_credentials(url)  # now, before the run directory is written
    if missing is not None:
        raise UsageError(f"--upload: {missing}")
    return uploader


def _callbacks(
    args: argparse.Namespace,
    settings: Settings,
    run_dir: RunDirectory,
    spec_json: str,
    steps: int,
    upload: Any,
    worker: Worker,
) -> list[Any]:
    from cadence.callbacks import (
        BackupAndRestore,
        CheckpointConfig,
        EarlyStopping,
        LossMonitor,
        ModelCheckpoint,
        ProgressBar,
        SummaryCollector,
        TimeMonitor,
    )

    # BackupAndRestore first, so the callbacks it restores start after it. Every rank
    # has one (restoring is collective); rank 0 alone writes it, and every rank restores
    # rank 0's, received by broadcast.
    callbacks: list[Any] = [
        BackupAndRestore(str(run_dir.backup_dir), delete_checkpoint=False)
    ]
    if not worker.leader:
        # Other ranks print nothing and write no checkpoints or summaries; they stop
        # with rank 0 (stops are collective) and EarlyStopping sees the same global metrics.
        if args.early_stopping is not None:
            callbacks.append(
                EarlyStopping(patience=args.early_stopping, restore_best_weights=True)
            )
        return callbacks
    if sys.stdout.isatty():  # the bar shows loss and speed; other lines would break it
        callbacks.append(ProgressBar())
    else:
        callbacks += [LossMonitor(args.print_every), TimeMonitor()]
    # With validation, the best epoch by validation accuracy is kept too (`<model>-best-...`).
    config = CheckpointConfig(
        save_checkpoint_steps=steps,
        keep_checkpoint_max=3,
        append_info=[{SPEC_KEY: spec_json}],
        monitor=None if settings.valid_fraction == 0 else "accuracy",
        crc_check=True,  # eval, predict and --resume refuse a damaged file
    )
    directory = str(run_dir.checkpoint_dir)
    # A callable directory keeps the prefix: a resumed run goes on naming files
    # `<model>-<epoch>_<step>.ckpt` instead of switching to `<model>_1-...`.
    callbacks.append(ModelCheckpoint(settings.model, lambda _cb: directory, config))
    if upload is not None:  # after ModelCheckpoint, whose files it uploads
        callbacks.append(upload)
    if args.early_stopping is not None:
        # After ModelCheckpoint: when it stops it loads the best weights in its epoch end,
        # which the stopping epoch's best file must not get. model.ckpt is saved after that.
        stop = EarlyStopping(
            patience=args.early_stopping, restore_best_weights=True, verbose=True
        )
        callbacks.append(stop)
    callbacks.append(
        SummaryCollector(str(run_dir.summary_dir), collect_freq=max(1, steps // 4))
    )
    return callbacks


def _headline(
    settings: Settings, splits: Splits, steps: int, done: int, workers: int = 1
) -> str:
    resumed = f", resuming after epoch {done}" if done else ""
    on = (
        f" on {workers} workers (batch {settings.batch_size // workers} each)"
        if workers > 1
        else ""
    )
    return (
        f"Training {settings.model} on {splits.description}. {settings.epochs} epochs of {steps} steps "
        f"(batch {settings.batch_size}){on}, {settings.optimizer} lr {settings.lr}, seed {settings.seed}{resumed}."
    )


def _report(
    run_dir: RunDirectory,
    metrics: dict[str, Any],
    samples: int,
    elapsed: float,
    upload: Any,
    settings: Settings,
) -> int:
    print(
        f"Trained in {elapsed:.1f} s. Test accuracy: {metrics['accuracy']:.4f} "
        f"(loss {metrics['loss']:.4f}, {samples} test samples)"
    )
    print(f"Model:       {run_dir.model_file}")
    print(f"Checkpoints: {run_dir.checkpoint_dir}")
    print(
        f"Summaries:   {run_dir.summary_dir}  (tensorboard --logdir {run_dir.summary_dir})"
    )
    print(f"Loss plot:   {_plot(run_dir)}")
    print(
        f"Next:        cadence eval {run_dir.model_file}  |  "
        f"cadence train --resume --output-dir {run_dir.path} --epochs {settings.epochs + 10}"
    )
    if upload is None:
        return 0
    report = upload.report
    print(report.format())
    return 0 if report.complete else 1


def _plot(run_dir: RunDirectory) -> str:
    """Draw the summaries' curves into the run directory; say where, or why not."""
    from ._summary import run_plot

    out = Path(run_dir.plot_file)
    args = argparse.Namespace(dir=str(run_dir.summary_dir), out=str(out))
    try:
        with contextlib.redirect_stdout(
            io.StringIO()
        ):  # its "wrote ..." line: we say it
            run_plot(args)
    except UsageError as exc:
        return f"not drawn ({exc})"
    return str(out)


COMMAND = Command(
    name="train",
    help="train a model (MLP, LeNet-5, ResNet-18, MobileNetV2) on the digits, MNIST, CIFAR-10 or an .npz file and report its test accuracy",
    description="Train a model with progress output, checkpoints, TensorBoard summaries and a loss "
    "plot, then evaluate it on the held-out test split. With no options: an MLP on the handwritten "
    "digits scikit-learn ships, in a few seconds, to about 96% test accuracy. Output goes to "
    "--output-dir (default: the next free runs/train-N); --resume continues a run there.",
    args=(
        Group(
            "what to train",
            (
                arg(
                    "--model",
                    choices=sorted(MODELS),
                    help="network preset (default mlp)",
                ),
                *data_args(f"data set: {DATA_HELP} (default digits)"),
                arg(
                    "--valid-fraction",
                    type=cli.fraction,
                    metavar="F",
                    help="share of the training samples held out to evaluate after every epoch (default 0.1; 0: none)",
                ),
            ),
        ),
        Group(
            "how to train",
            (
                arg(
                    "--epochs",
                    type=cli.positive_int,
                    metavar="N",
                    help="epochs to train (default 30 on the digits, 5 on MNIST, 10 on CIFAR-10 or an .npz)",
                ),
                arg(
                    "--batch-size",
                    type=cli.positive_int,
                    metavar="N",
                    help="samples per step (default 32)",
                ),
                arg(
                    "--lr",
                    type=cli.positive_float,
                    metavar="RATE",
                    help="learning rate (default: adam 0.001; momentum and sgd 0.1 for the MLP on the digits, else 0.01)",
                ),
                arg(
                    "--optimizer",
                    choices=OPTIMIZERS,
                    help="optimizer (default momentum, 0.9)",
                ),
                arg(
                    "--seed",
                    type=cli.whole_number,
                    metavar="N",
                    help="seed of parameter init, data order and validation split (default 0)",
                ),
                arg(
                    "--device-target",
                    default="CPU",
                    metavar="NAME",
                    help="device target (default CPU)",
                ),
                arg(
                    "--early-stopping",
                    type=cli.positive_int,
                    metavar="PATIENCE",
                    help="stop when the validation loss has not improved for PATIENCE epochs, keeping the best weights",
                ),
            ),
        ),
        Group(
            "output",
            (
                arg(
                    "--output-dir",
                    metavar="DIR",
                    help="where checkpoints, summaries and the plot go (default: next free runs/train-N)",
                ),
                arg(
                    "--resume",
                    action="store_true",
                    help="continue the run in --output-dir (default: the newest runs/train-N) after its last finished "
                    "epoch; give a larger --epochs to train a finished run further",
                ),
                arg(
                    "--upload",
                    metavar="URL",
                    help="also upload every checkpoint to s3://bucket/prefix (credentials from AWS_* variables), "
                    "gs://, az:// or file:///dir",
                ),
                arg(
                    "--workers",
                    type=cli.positive_int,
                    metavar="N",
                    help="train data-parallel on N processes through MPI (needs cadence[mpi]); --batch-size is the "
                    "global batch, split evenly; the cores are shared among them (default 1)",
                ),
                arg(
                    "--print-every",
                    type=cli.positive_int,
                    default=20,
                    metavar="N",
                    help="print the loss every N steps when the output is not a terminal (default 20)",
                ),
            ),
        ),
    ),
    run=run,
)
