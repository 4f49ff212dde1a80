"""Train an MLP or LeNet-5 for the equivalence test: one process on the global batch, or N MPI ranks.

Usage: dp_train.py {mlp,lenet} STEPS GLOBAL_BATCH OUT.npz [--distributed [REDUCTION]]

With --distributed (under `mpiexec -n N`), each rank reads its shard with
batch GLOBAL_BATCH / N and a different seed (the broadcast from rank 0 must
make the starting weights equal); rank 0 writes the per-step losses averaged
over the ranks (the global batch's loss) and the final weights. REDUCTION,
when given, is what `grad_reducer.reduction` must say after training (the
path the launcher's environment chose).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

import cadence as ms
from cadence import dataset as ds, nn
from cadence.testing import lenet5
from tests.helpers.parallel import join_data_parallel


def build(kind: str) -> tuple[nn.Cell, tuple[int, ...], float]:
    if kind == "mlp":
        net = nn.SequentialCell(nn.Dense(64, 48), nn.ReLU(), nn.Dense(48, 10))
        return net, (64,), 0.05
    return lenet5(), (1, 32, 32), 0.05


def data(shape: tuple[int, ...], rows: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 10, rows).astype(np.int32)
    protos = rng.standard_normal((10, *shape)).astype(np.float32)
    x = protos[labels] + 0.7 * rng.standard_normal((rows, *shape)).astype(np.float32)
    return x, labels


class Record(ms.Callback):
    def __init__(self) -> None:
        self.losses: list[float] = []

    def on_train_step_end(self, run_context: ms.RunContext) -> None:
        self.losses.append(float(run_context.original_args().net_outputs))


def main() -> None:
    kind, steps, batch, out = (
        sys.argv[1],
        int(sys.argv[2]),
        int(sys.argv[3]),
        sys.argv[4],
    )
    distributed = "--distributed" in sys.argv
    rank, size = join_data_parallel() if distributed else (0, 1)
    ms.set_seed(rank)  # the ranks start apart; the broadcast must align them
    net, shape, lr = build(kind)
    steps_per_epoch = 10
    x, y = data(shape, batch * steps_per_epoch)
    shards = (size, rank) if distributed else (None, None)
    train = ds.NumpySlicesDataset(
        {"x": x, "y": y}, shuffle=False, num_shards=shards[0], shard_id=shards[1]
    ).batch(batch // size)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    # Plain SGD for the MLP: on the window path the ranks apply it from the summed rows
    # (one process folds it into backward); Momentum for LeNet-5: a separate update.
    params = net.trainable_params()
    opt = nn.SGD(params, lr) if kind == "mlp" else nn.Momentum(params, lr, 0.9)
    model = ms.Model(net, loss, opt)
    step_cell: Any = model.train_network
    if distributed and kind == "lenet":
        # Small buckets: LeNet-5's gradients travel in several allreduces during backward.
        step_cell.grad_reducer.bucket_bytes = 16 * 1024
    record = Record()
    model.train(steps // steps_per_epoch, train, callbacks=[record])
    losses = np.array(record.losses, np.float64)
    if distributed:
        from cadence import ops

        losses = ops.AllReduce()(ms.Tensor(losses)).asnumpy() / size
    if distributed and kind == "lenet":
        assert step_cell.grad_reducer.overlapped([]).bucket_count >= 4
    if distributed and sys.argv[-1] != "--distributed":
        reduction = step_cell.grad_reducer.reduction
        assert reduction == sys.argv[-1], reduction
    if rank == 0:
        weights = {p.name: p.asnumpy() for p in net.trainable_params()}
        np.savez(out, losses=losses, **weights)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
