"""A bounded, reproducible fault campaign against cadence's checkpoints: the figures of docs/reliability.md.

    python tests/bench/fault_campaign.py                 # the documented run (a few minutes)
    python tests/bench/fault_campaign.py --kills 3 --flips 20 --epochs 2   # a smoke run

Three parts, each seeded (`--seed`):

1. **SIGKILL.** A training process (ModelCheckpoint with `crc_check=True` every 2 steps,
   keeping 3, and BackupAndRestore) is killed with SIGKILL at a random step and a random
   moment after it, then restarted, until it finishes. After every kill, every committed
   checkpoint and the backup must load (CRC verified); the hidden temporary files the
   killed writer left are counted, and the next start must remove them. The finished
   run's weights must equal those of an uninterrupted run, bit for bit.
2. **Bit flips and truncations.** A checkpoint is saved in each format, with and without
   `crc_check`; single bits at random offsets are flipped and the file is cut at random
   lengths. Each damaged file is loaded: detected (`ValueError`), identical data, or
   **silent** (different data loaded without an error).
3. **Hostile inputs** are the Hypothesis fuzz test's (tests/runtime/test_checkpoint_fuzz.py):
   its example count is printed here, not rerun.

It prints markdown tables; exit status 1 if a kill lost or damaged a committed file, a
resumed run differs, or a CRC-protected file loaded silently changed data.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np

TRAINER = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    import cadence as ms
    from cadence import Callback, Model, nn, _atomic
    from cadence.callbacks import BackupAndRestore, CheckpointConfig, ModelCheckpoint
    from cadence.dataset import NumpySlicesDataset

    # A killed writer's file is unlocked at once; the campaign restarts within seconds.
    _atomic.STALE_AFTER_SECONDS = 0.0
    root, epochs = sys.argv[1], int(sys.argv[2])
    ms.set_seed(7)
    net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 1024), nn.ReLU(), nn.Dense(1024, 10)])
    model = Model(
        net,
        nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
        nn.Momentum(net.trainable_params(), 0.05, 0.9),
    )
    rng = np.random.default_rng(3)
    data = NumpySlicesDataset(
        {"x": rng.random((256, 1, 8, 8), dtype=np.float32), "y": rng.integers(0, 10, 256).astype(np.int32)},
        shuffle=False,
    ).batch(32)

    class Steps(Callback):
        def on_train_step_end(self, run_context):
            print("step", run_context.original_args().cur_step_num, flush=True)

    config = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=3, crc_check=True)
    callbacks = [
        BackupAndRestore(root + "/backup", delete_checkpoint=False),
        ModelCheckpoint("net", root + "/checkpoints", config),
        Steps(),
    ]
    model.train(epochs, data, callbacks=callbacks)
    ms.save_checkpoint(model.train_network, root + "/final.ckpt", crc_check=True)
    print("done", flush=True)
    """
)


def _run_trainer(
    script: Path, root: Path, epochs: int, kill_at: tuple[int, float] | None
) -> str:
    """Run the trainer; with `kill_at` (n, delay), SIGKILL it that long after its n-th step. Return how it ended."""
    process = subprocess.Popen(
        [sys.executable, str(script), str(root), str(epochs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    try:
        seen = 0
        for line in process.stdout:
            seen += line.startswith("step ")
            if kill_at is not None and seen == kill_at[0]:
                time.sleep(kill_at[1])
                process.kill()
                process.wait(timeout=60)
                return "killed"
        process.wait(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=60)
    if process.returncode != 0:
        raise RuntimeError(
            f"the trainer failed: {process.stderr.read() if process.stderr else ''}"
        )
    return "done"


def _temporaries(root: Path) -> list[Path]:
    return list(root.rglob(".*.tmp"))


def _verify_committed(root: Path) -> tuple[int, list[str]]:
    """Load every committed checkpoint (CRC verified); return how many, and the failures."""
    import cadence as ms

    files = sorted(root.rglob("*.ckpt"))
    failures = []
    for path in files:
        try:
            ms.load_checkpoint(str(path), crc_check=True)
        except ValueError as error:
            failures.append(f"{path.name}: {error}")
    return len(files), failures


def sigkill_campaign(kills: int, rng: random.Random, epochs: int) -> dict[str, Any]:

    work = Path(tempfile.mkdtemp(prefix="cadence-campaign-"))
    try:
        return _sigkill_campaign(work, kills, rng, epochs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sigkill_campaign(
    work: Path, kills: int, rng: random.Random, epochs: int
) -> dict[str, Any]:
    import cadence as ms

    script = work / "trainer.py"
    script.write_text(TRAINER)
    reference = work / "reference"
    reference.mkdir()
    _run_trainer(script, reference, epochs, None)
    run = work / "run"
    run.mkdir()
    steps_per_epoch = (
        8  # a restarted run resumes at an epoch start: at least this many remain
    )
    stats: dict[str, Any] = {
        "kills": 0, "restarts": 0, "checkpoints_verified": 0, "failures": [],
        "temporaries_after_kills": 0, "temporaries_left": 0, "max_temporaries": 0,
    }  # fmt: skip
    while True:
        kill_at = None
        if stats["kills"] < kills:
            kill_at = (rng.randint(1, steps_per_epoch), rng.uniform(0.0, 0.02))
        outcome = _run_trainer(script, run, epochs, kill_at)
        if outcome == "done":
            break
        stats["kills"] += 1
        stats["restarts"] += 1
        temporaries = len(_temporaries(run))
        stats["temporaries_after_kills"] += temporaries
        stats["max_temporaries"] = max(stats["max_temporaries"], temporaries)
        count, failures = _verify_committed(run)
        stats["checkpoints_verified"] += count
        stats["failures"] += failures
    count, failures = _verify_committed(run)
    stats["checkpoints_verified"] += count
    stats["failures"] += failures
    stats["temporaries_left"] = len(_temporaries(run))
    expected = ms.load_checkpoint(str(reference / "final.ckpt"))
    got = ms.load_checkpoint(str(run / "final.ckpt"))
    stats["exact_resume"] = list(got) == list(expected) and all(
        isinstance(v, str) or np.array_equal(v.asnumpy(), got[k].asnumpy())  # type: ignore[union-attr]
        for k, v in expected.items()
    )
    return stats


def _sample_entries() -> dict[str, Any]:
    rng = np.random.default_rng(0)
    return {
        "1.weight": rng.standard_normal((128, 64)).astype(np.float32),
        "1.bias": rng.standard_normal(128).astype(np.float32),
        "3.weight": rng.standard_normal((10, 128)).astype(np.float32),
        "3.bias": rng.standard_normal(10).astype(np.float32),
        "global_step": np.array([42], np.int32),
    }


def _load_outcome(path: Path, fmt: str, expected: dict[str, Any]) -> str:
    import cadence as ms

    try:
        loaded = ms.load_checkpoint(str(path), format=fmt)
    except ValueError:
        return "detected"
    same = list(loaded) == list(expected) and all(
        _same_value(value, loaded[name]) for name, value in expected.items()
    )
    return "identical" if same else "silent"


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    return bool(a.asnumpy().tobytes() == b.asnumpy().tobytes())


def damage_campaign(flips: int, rng: random.Random) -> list[dict[str, Any]]:
    work = Path(tempfile.mkdtemp(prefix="cadence-damage-"))
    try:
        return _damage_campaign(work, flips, rng)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _damage_campaign(
    work: Path, flips: int, rng: random.Random
) -> list[dict[str, Any]]:
    import logging

    import cadence as ms

    logging.getLogger("cadence.serialization").setLevel(logging.ERROR)
    rows = []
    for fmt in ("ckpt", "safetensors"):
        for crc in (True, False):
            original = work / f"original-{crc}.{fmt}"
            ms.save_checkpoint(
                _sample_entries(), str(original), format=fmt, crc_check=crc,
                append_dict={"epoch_num": 3, "note": "campaign"},
            )  # fmt: skip
            data = original.read_bytes()
            expected = ms.load_checkpoint(str(original), format=fmt)
            for kind in ("bit flip", "truncation"):
                counts = {"detected": 0, "identical": 0, "silent": 0}
                for _ in range(flips):
                    damaged = bytearray(data)
                    if kind == "bit flip":
                        damaged[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
                    else:
                        del damaged[rng.randrange(len(data)) :]
                    path = work / f"damaged.{fmt}"
                    path.write_bytes(bytes(damaged))
                    counts[_load_outcome(path, fmt, expected)] += 1
                rows.append({"format": fmt, "crc_check": crc, "fault": kind, **counts})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=30)
    parser.add_argument("--flips", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    kills = sigkill_campaign(args.kills, rng, args.epochs)
    damage = damage_campaign(args.flips, rng)
    print(f"Seed {args.seed}; {time.perf_counter() - started:.0f} s.\n")
    print("| SIGKILLs | restarts | committed checkpoints loaded (CRC verified) | failed to load | "
          "temporaries left by kills (max at once) | temporaries at the end | exact resume |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    print(
        f"| {kills['kills']} | {kills['restarts']} | {kills['checkpoints_verified']} | "
        f"{len(kills['failures'])} | {kills['temporaries_after_kills']} ({kills['max_temporaries']}) | "
        f"{kills['temporaries_left']} | {'yes' if kills['exact_resume'] else 'NO'} |"
    )
    for failure in kills["failures"]:
        print(f"- {failure}")
    print(
        "\n| format | crc_check | fault | tried | detected | identical data | silently changed |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in damage:
        tried = row["detected"] + row["identical"] + row["silent"]
        print(
            f"| {row['format']} | {row['crc_check']} | {row['fault']} | {tried} | {row['detected']} | "
            f"{row['identical']} | {row['silent']} |"
        )
    bad = (
        kills["failures"]
        or not kills["exact_resume"]
        or kills["temporaries_left"]
        or any(row["crc_check"] and row["silent"] for row in damage)
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
