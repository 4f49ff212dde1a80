"""Run under `mpiexec -n 2`: collective stops and metrics reduced in `fit`; rank 0 prints `callbacks ok`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

import cadence as ms
from cadence import dataset as ds, nn, ops
from cadence.communication import get_rank
from tests.helpers.parallel import join_data_parallel


class StopOn(ms.Callback):
    """Request a stop on one rank only, at a step end or an epoch end."""

    def __init__(
        self, rank: int, step: int | None = None, epoch: int | None = None
    ) -> None:
        self.rank, self.step, self.epoch = rank, step, epoch
        self.ends: list[str] = []

    def on_train_step_end(self, run_context: ms.RunContext) -> None:
        cb = run_context.original_args()
        if get_rank() == self.rank and cb.cur_step_num == self.step:
            run_context.request_stop()

    def on_train_epoch_end(self, run_context: ms.RunContext) -> None:
        cb = run_context.original_args()
        self.ends.append(f"epoch {cb.cur_epoch_num} step {cb.cur_step_num}")
        if get_rank() == self.rank and cb.cur_epoch_num == self.epoch:
            run_context.request_stop()

    def on_train_end(self, run_context: ms.RunContext) -> None:
        self.ends.append(f"end {run_context.original_args().cur_step_num}")


def model_and_data(rank: int, size: int) -> tuple[ms.Model, nn.Dense, ds.Dataset]:
    net = nn.Dense(4, 3)
    model = ms.Model(
        net,
        nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
        nn.SGD(net.trainable_params(), 0.01),
        metrics={"acc": nn.Accuracy(), "loss": nn.Loss()},
    )
    x, y = samples(32, seed=0)
    return model, net, shard_of(x, y, 4, rank, size)


def samples(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` rows of 4 standard normal features and a label in 0..2."""
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((n, 4)).astype(np.float32),
        rng.integers(0, 3, n).astype(np.int32),
    )


def shard_of(
    x: np.ndarray, y: np.ndarray, batch: int, rank: int, size: int | None
) -> ds.Dataset:
    """This rank's shard of (x, y) in batches (the whole set with `size=None`)."""
    shard_id = None if size is None else rank
    return ds.NumpySlicesDataset(
        {"x": x, "y": y}, shuffle=False, num_shards=size, shard_id=shard_id
    ).batch(batch)


def main() -> None:
    rank, size = join_data_parallel()
    ms.set_seed(
        0
    )  # the same initial weights every time: the shard accuracies below are fixed

    # A stop requested on rank 1 at step 5 stops both ranks after step 5.
    model, _, train = model_and_data(rank, size)
    probe = StopOn(rank=1, step=5)
    model.train(3, train, callbacks=[probe])
    assert probe.ends == ["epoch 1 step 4", "epoch 2 step 5", "end 5"], probe.ends

    # A stop requested at rank 0's epoch-1 end stops both ranks there.
    model, _, train = model_and_data(rank, size)
    probe = StopOn(rank=0, epoch=1)
    model.train(3, train, callbacks=[probe])
    assert probe.ends == ["epoch 1 step 4", "end 4"], probe.ends

    # fit's metrics are the whole validation set's, not this rank's shard's.
    model, _, train = model_and_data(rank, size)
    vx, vy = samples(30, seed=1)
    shard = shard_of(vx, vy, 5, rank, size)
    seen: dict[str, float] = {}

    class Metrics(ms.Callback):
        def on_eval_end(self, run_context: ms.RunContext) -> None:
            seen.update(run_context.original_args().eval_results)

    model.fit(1, train, shard, callbacks=[Metrics()])
    reduced = {k: seen[k] for k in ("acc", "loss")}
    whole = shard_of(vx, vy, 5, rank, None)
    expected = model.eval(whole)  # every rank evaluates the whole set on its own
    local = model.eval(shard)
    assert abs(reduced["acc"] - expected["acc"]) < 1e-9, (reduced, expected)
    assert abs(reduced["loss"] - expected["loss"]) < 1e-6, (reduced, expected)
    # fit's eval_loss (what EarlyStopping watches by default) is the whole set's too.
    assert abs(seen["eval_loss"] - expected["loss"]) < 1e-6, (seen, expected)
    # The check means something: the shards' accuracies differ from the whole set's.
    accs = np.array([local["acc"]])
    both = ops.AllGather()(ms.Tensor(accs)).asnumpy()
    assert both[0] != both[1], both
    # Only rank 0 writes a backup; every rank restores it (its bytes are broadcast),
    # so every rank resumes after rank 0's epoch with rank 0's weights.
    root = Path(sys.argv[1])
    backup = ms.BackupAndRestore(str(root / f"backup_{rank}"), delete_checkpoint=False)
    model, net, train = model_and_data(rank, size)
    model.train(2, train, callbacks=[backup])
    assert os.path.isfile(backup.backup_file) == (rank == 0), backup.backup_file
    model, net, train = model_and_data(rank, size)
    net.weight.set_data(np.full((3, 4), rank, np.float32))  # the ranks start apart
    epochs: list[int] = []
    restored: list[np.ndarray] = []
    record = ms.LambdaCallback(
        on_train_begin=lambda rc: restored.append(net.weight.asnumpy().reshape(1, -1)),
        on_train_epoch_begin=lambda rc: epochs.append(rc.original_args().cur_epoch_num),
    )
    model.train(4, train, callbacks=[backup, record])
    assert backup.restored_epoch == 2, backup.restored_epoch
    assert epochs == [3, 4], epochs
    # Restored before any step (no broadcast of parameters yet): rank 0's weights on both.
    both = ops.AllGather()(ms.Tensor(restored[0])).asnumpy()
    assert np.array_equal(both[0], both[1]) and both[0].any(), both
    both = ops.AllGather()(net.weight.reshape((1, -1))).asnumpy()
    assert np.array_equal(both[0], both[1])

    if rank == 0:
        print("callbacks ok", flush=True)


if __name__ == "__main__":
    main()
