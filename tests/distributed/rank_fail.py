"""Run under `mpiexec -n 2`: rank 1 fails mid-epoch 2; or, with `resume`, every rank resumes.

Usage: rank_fail.py {raise,kill,hang,resume} DIR [--rank0-only]

Each rank saves checkpoints at every epoch end in DIR/rank_R. `raise`, `kill`
and `hang` make rank 1 raise, die by SIGKILL, or stop answering at step 12
(epoch 2); `resume` loads each rank's latest checkpoint and finishes the run.
With `--rank0-only` only rank 0 saves (`CheckpointConfig(rank_zero_only=True)`);
`resume` then loads rank 0's file on rank 0 alone and broadcasts the epoch to
resume after: the first step's parameter broadcast gives the others its weights.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import numpy as np

import cadence as ms
from cadence import dataset as ds, nn, ops
from cadence.callbacks import CheckpointConfig, ModelCheckpoint
from cadence.communication import get_group_size, get_rank, init

STEPS_PER_EPOCH = 8
FAIL_AT_STEP = 12


class FailOnRank1(ms.Callback):
    def __init__(self, mode: str) -> None:
        self.mode = mode

    def on_train_step_end(self, run_context: ms.RunContext) -> None:
        cb = run_context.original_args()
        if get_rank() != 1 or cb.cur_step_num != FAIL_AT_STEP:
            return
        if self.mode == "raise":
            raise RuntimeError("rank 1 broke on purpose")
        if self.mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if self.mode == "hang":
            time.sleep(600)


def main() -> None:
    mode, root = sys.argv[1], Path(sys.argv[2])
    rank0_only = "--rank0-only" in sys.argv[3:]
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(16, 16), nn.ReLU(), nn.Dense(16, 4))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((STEPS_PER_EPOCH * 8, 16)).astype(np.float32)
    y = rng.integers(0, 4, len(x)).astype(np.int32)
    data = ds.NumpySlicesDataset(
        {"x": x, "y": y}, num_shards=size, shard_id=rank
    ).batch(4)
    directory = root / f"rank_{rank}"
    initial_epoch = 0
    if mode == "resume" and (rank == 0 or not rank0_only):
        latest = sorted(directory.glob("*.ckpt"), key=os.path.getmtime)[-1]
        ms.load_param_into_net(net, ms.load_checkpoint(str(latest)))
        initial_epoch = int(latest.stem.split("-")[1].split("_")[0])
    if mode == "resume" and rank0_only:
        (epoch,) = ops.Broadcast(0)((ms.Tensor(np.array([initial_epoch], np.int64)),))
        initial_epoch = int(epoch.asnumpy()[0])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, nn.Momentum(net.trainable_params(), 0.05, 0.9))
    save = ModelCheckpoint(
        "net",
        str(directory),
        CheckpointConfig(
            save_checkpoint_steps=STEPS_PER_EPOCH,
            keep_checkpoint_max=5,
            rank_zero_only=rank0_only,
        ),
    )
    model.train(
        3, data, callbacks=[save, FailOnRank1(mode)], initial_epoch=initial_epoch
    )
    both = ops.AllGather()(net[0].weight.reshape((1, -1))).asnumpy()
    same = "the same" if np.array_equal(both[0], both[1]) else "different"
    print(
        f"rank {rank} finished from epoch {initial_epoch}, {same} weights", flush=True
    )


if __name__ == "__main__":
    main()
