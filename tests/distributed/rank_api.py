"""Run under `mpiexec -n 2`: the communication API, collective primitives and cb_params on each rank.

Each check asserts; rank 0 prints `api ok` at the end.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import dataset as ds, nn, ops
from cadence.communication import (
    GlobalComm,
    get_group_size,
    get_local_rank,
    get_rank,
    init,
    release,
)
from tests.helpers.parallel import parallel_context_seen


def t(values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


def inited() -> bool:
    return GlobalComm.INITED


# Each environment picks one path for the gradients: (variables, what `reduction` says).
REDUCTION_PATHS = [
    ({}, "shared-memory window"),
    (
        {"CADENCE_ONE_RANK_PER_HOST": "1"},
        "shared-memory window, then allreduce between 2 machines",
    ),
    ({"CADENCE_SHARED_MEMORY": "0"}, "allreduce buckets"),
]


def check_reduction_paths(rank: int) -> None:
    """Every path gives every rank the same mean, bit for bit, step after step (the rows are reused)."""
    shapes = [(3, 5), (7,), (1,)]
    params = [ms.Parameter(t(np.zeros(s)), name=f"p{i}") for i, s in enumerate(shapes)]
    for env, path in REDUCTION_PATHS:
        os.environ.update(env)
        reducer = nn.DistributedGradReducer(params, mean=True)
        for step in range(2):
            rng = np.random.default_rng([step, rank])
            grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            if step == 0:  # as a training cell of the model zoo calls it
                out = [g.asnumpy() for g in reducer(tuple(t(g) for g in grads))]
            else:  # as TrainOneStepCell does: backward reports the last gradient early
                plan = reducer.overlapped(params)
                plan.begin()
                plan.ready(2, grads[2])
                out = [np.array(g) for g in plan.finish(grads)]
            both = [ops.AllGather()(t(g[None])).asnumpy() for g in grads]
            for got, pair in zip(out, both, strict=True):
                assert np.array_equal(got, (pair[0] + pair[1]) / np.float32(2)), path
                assert np.array_equal(*ops.AllGather()(t(got[None])).asnumpy()), path
        assert reducer.reduction == path, (reducer.reduction, path)
        for name in env:
            del os.environ[name]
    # Bad settings are named (on every rank alike: no rank is left waiting).
    os.environ["CADENCE_SHARED_MEMORY"] = "yes"
    zeros = (t(np.zeros((3, 5))), t([0.0] * 7), t([0.0]))
    with pytest.raises(
        ValueError, match="CADENCE_SHARED_MEMORY must be 0 or 1, but got 'yes'"
    ):
        nn.DistributedGradReducer(params)(zeros)
    del os.environ["CADENCE_SHARED_MEMORY"]
    with pytest.raises(
        ValueError, match="'bucket_bytes' must be a positive int or None, but got 0"
    ):
        nn.DistributedGradReducer(params, bucket_bytes=0)


def check_sgd_stepped_from_the_window(rank: int, size: int) -> None:
    """Plain SGD applied while the window's rows are summed gives the bits of a separate update pass."""
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    rng = np.random.default_rng(rank)
    x = rng.standard_normal((16, 5)).astype(np.float32)
    y = rng.standard_normal((16, 3)).astype(np.float32)
    from cadence.nn._window_plan import WindowPlan

    stepped_calls: list[bool] = []
    finish_stepping = WindowPlan.finish_stepping

    def counted(self: WindowPlan, *args: Any) -> Any:
        stepped_calls.append(True)
        return finish_stepping(self, *args)

    WindowPlan.finish_stepping = counted  # type: ignore[method-assign,assignment]
    weights = []
    for fold in (True, False):
        ms.set_seed(3)
        net = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 3))
        opt = nn.SGD(net.trainable_params(), 0.05, weight_decay=0.01)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        step.fold_optimizer_step = fold
        for _ in range(3):
            step(t(x), t(y))
        assert len(stepped_calls) == 3, (
            fold,
            stepped_calls,
        )  # only the folding cell steps
        plan = step.grad_reducer.overlapped([])
        assert plan.can_step and step.grad_reducer.reduction == "shared-memory window"
        weights.append([p.asnumpy().copy() for p in net.trainable_params()])
    WindowPlan.finish_stepping = finish_stepping  # type: ignore[method-assign]
    for stepped, separate in zip(*weights, strict=True):
        assert np.array_equal(stepped, separate)
        both = ops.AllGather()(t(stepped[None])).asnumpy()
        assert np.array_equal(both[0], both[size - 1])  # the ranks stay identical
    ms.reset_auto_parallel_context()


def check_dense_gradients_written_into_the_window(rank: int, size: int) -> None:
    """Dense layers write dW and db straight into the window's row: no copy, the same bits.

    The second network uses one Dense layer twice: its gradient is a sum made after
    the first product, so it is copied as before (and must not be overwritten).
    """
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    rng = np.random.default_rng(rank)
    x = rng.standard_normal((16, 5)).astype(np.float32)
    y = rng.standard_normal((16, 3)).astype(np.float32)
    from cadence.nn._window_plan import WindowPlan

    offer = WindowPlan.destinations

    def build(shared: bool) -> nn.Cell:
        if not shared:
            return nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 3))
        twice = nn.Dense(5, 5, activation="relu")
        return nn.SequentialCell(twice, twice, nn.Dense(5, 3))

    # (shared layer, offered): copies skipped over 3 steps (2 per Dense layer used once).
    for shared, skipped in ((False, 12), (True, 6)):
        weights = []
        for offered in (True, False):
            if not offered:  # the plan offers nothing: every gradient is copied
                WindowPlan.destinations = lambda self: []  # type: ignore[method-assign]
            ms.set_seed(3)
            net = build(shared)
            opt = nn.SGD(net.trainable_params(), 0.05)
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
            for _ in range(3):
                step(t(x), t(y))
            WindowPlan.destinations = offer  # type: ignore[method-assign]
            plan = step.grad_reducer.overlapped([])
            assert isinstance(plan, WindowPlan)
            assert plan.copies_skipped == (skipped if offered else 0), (
                shared,
                offered,
                plan.copies_skipped,
            )
            weights.append([p.asnumpy().copy() for p in net.trainable_params()])
        for written, copied in zip(*weights, strict=True):
            assert np.array_equal(written, copied)
            both = ops.AllGather()(t(written[None])).asnumpy()
            assert np.array_equal(both[0], both[size - 1])
    ms.reset_auto_parallel_context()


def check_weights_kept_once_per_machine(rank: int, size: int) -> tuple[Any, list[Any]]:
    """Plain SGD keeps the parameters once per machine, in the window, each rank stepping its share.

    A parameter rebound to a new array, steps the optimizer takes (here with
    `return_grad`), and another cell's optimizer (Momentum) on the same network
    leave the shared row (and come back): the bits of separate updates all along.
    Returns a trained net and its values, checked after `release()`.
    """
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    rng = np.random.default_rng(rank)
    x = rng.standard_normal((16, 5)).astype(np.float32)
    y = rng.standard_normal((16, 3)).astype(np.float32)

    def cell(net: nn.Cell, opt: Any) -> Any:
        return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)

    runs = []
    for fold in (True, False):
        ms.set_seed(3)
        net = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 3))
        step = cell(net, nn.SGD(net.trainable_params(), 0.05))
        step.fold_optimizer_step = fold
        shared = []
        for i in range(6):
            w, b = net.trainable_params()[:2]
            if i == 2:  # every rank rebinds a parameter to a new array
                w.assign_value(w.asnumpy() * np.float32(0.5))
            if i == 3:  # and writes one in place (a read-modify-write on every rank)
                b.set_data(b.asnumpy() * np.float32(0.5))
            step.return_grad = i == 4  # the caller needs gradients: the optimizer steps
            step(t(x), t(y))
            shared.append(step.grad_reducer.overlapped([])._shared.attached_count)
        assert shared == ([4, 4, 4, 4, 0, 4] if fold else [0] * 6), (fold, shared)
        runs.append([p.asnumpy().copy() for p in net.trainable_params()])
        if fold:  # a checkpoint holds the shared values
            path = f"{os.environ.get('TMPDIR', '/tmp')}/rank_api_{os.getpid()}.ckpt"
            ms.save_checkpoint(net, path)
            loaded = ms.load_checkpoint(path)
            os.unlink(path)
            for p in net.trainable_params():
                assert np.array_equal(np.asarray(loaded[p.name]), p.asnumpy())
        momentum = cell(net, nn.Momentum(net.trainable_params(), 0.05, 0.9))
        for _ in range(2):
            momentum(t(x), t(y))
        row = step.grad_reducer.overlapped([])._window.weights
        assert not any(
            np.shares_memory(p.asnumpy(), row) for p in net.trainable_params()
        )
        runs.append([p.asnumpy().copy() for p in net.trainable_params()])
    for stepped, separate in zip(runs[:2], runs[2:], strict=True):
        for got, expected in zip(stepped, separate, strict=True):
            assert np.array_equal(got, expected)
            both = ops.AllGather()(t(got[None])).asnumpy()
            assert np.array_equal(both[0], both[size - 1])
    # One rank alone rebinds a parameter, and writes another in place: the machine keeps rank 0's.
    step = cell(net, nn.SGD(net.trainable_params(), 0.05))
    for i in range(3):
        w, b = net.trainable_params()[:2]
        if rank == 1 and i == 1:
            w.assign_value(w.asnumpy() + np.float32(1))
            b.set_data(b.asnumpy() + np.float32(1))
        step(t(x), t(y))
        for p in (w, b):
            both = ops.AllGather()(p.reshape((1, -1))).asnumpy()
            assert np.array_equal(both[0], both[1]), (i, p.name)
    assert step.grad_reducer.overlapped([])._shared.attached_count == 4
    # CADENCE_SHARED_WEIGHTS=0, even on one rank alone: every rank keeps its own copy.
    kept = [p.asnumpy().copy() for p in net.trainable_params()]
    if rank == 1:
        os.environ["CADENCE_SHARED_WEIGHTS"] = "0"
    own = cell(net, nn.SGD(net.trainable_params(), 0.05))
    own(t(x), t(y))
    os.environ.pop("CADENCE_SHARED_WEIGHTS", None)
    assert own.grad_reducer.overlapped([])._shared.attached_count == 0
    assert step.grad_reducer.overlapped([])._shared.attached_count == 0
    for p, before in zip(net.trainable_params(), kept, strict=True):
        both = ops.AllGather()(p.reshape((1, -1))).asnumpy()
        assert np.array_equal(both[0], both[1]) and not np.array_equal(both[0], before)
    ms.reset_auto_parallel_context()
    return net, [p.asnumpy().copy() for p in net.trainable_params()]


def check_last_barrier_left_to_the_stop_vote(rank: int, size: int) -> None:
    """Without a TrainStepEnd listener the stop vote is the step's last barrier; with one on any rank, not."""
    import cadence.nn._window_plan as window_plan

    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    x = np.random.default_rng(0).standard_normal((64, 5)).astype(np.float32)
    y = np.random.default_rng(1).standard_normal((64, 3)).astype(np.float32)
    data = ds.NumpySlicesDataset(
        {"x": x, "y": y}, shuffle=False, num_shards=size, shard_id=rank
    ).batch(8)
    owed: list[int] = []
    owe: Any = getattr(window_plan, "owe_sync")  # noqa: B009

    def counted(*args: Any) -> None:
        owed.append(1)
        owe(*args)

    setattr(window_plan, "owe_sync", counted)  # noqa: B010
    for listening, deferred in (((), 7), ((0,), 0), ((0, 1), 0)):
        ms.set_seed(3)
        net = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 3))
        model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.05))
        owed.clear()
        model.train(
            2, data, callbacks=[ms.LossMonitor(100)] if rank in listening else []
        )
        # 8 steps: the first attaches the weights (its barriers are its own).
        assert len(owed) == deferred, (listening, owed)
        for p in net.trainable_params():
            both = ops.AllGather()(p.reshape((1, -1))).asnumpy()
            assert np.array_equal(both[0], both[1])
    setattr(window_plan, "owe_sync", owe)  # noqa: B010
    ms.reset_auto_parallel_context()


def main() -> None:
    init("nccl")  # MindSpore's GPU backend name runs on MPI here
    rank, size = get_rank(), get_group_size()
    assert size == 2 and rank in (0, 1)
    assert get_local_rank() == rank  # both on this machine
    assert inited()
    assert ms.get_auto_parallel_context("device_num") == 2
    assert ms.get_auto_parallel_context("global_rank") == rank

    # Collectives, with MindSpore's group names accepted.
    x = t([rank + 1.0, 10.0 * (rank + 1)])
    assert ops.AllReduce()(x).asnumpy().tolist() == [3.0, 30.0]
    assert ops.AllReduce(ops.ReduceOp.MAX, "hccl_world_group")(
        x
    ).asnumpy().tolist() == [2.0, 20.0]
    assert ops.AllReduce(ops.ReduceOp.MIN)(x).asnumpy().tolist() == [1.0, 10.0]
    assert ops.AllReduce(ops.ReduceOp.PROD)(x).asnumpy().tolist() == [2.0, 200.0]
    gathered = ops.AllGather()(t([[rank, rank]]))
    assert gathered.asnumpy().tolist() == [[0, 0], [1, 1]]
    (b,) = ops.Broadcast(1)((t([rank]),))
    assert b.asnumpy().tolist() == [1.0]

    # Gradients through the collectives, as MindSpore's: the backward of AllReduce(SUM)
    # all-reduces the incoming gradient (every rank's loss depends on every rank's input).
    w = ms.Parameter(t([1.0, 1.0]), name="w")
    c = t([rank + 1.0, 1.0])
    g = ms.grad(
        lambda w: ops.AllReduce()(w * c).sum(), grad_position=None, weights=[w]
    )(w)
    assert g[0].asnumpy().tolist() == [2.0 * (rank + 1), 2.0], g
    g = ms.grad(
        lambda w: (ops.AllGather()(w * c) * 2).sum(), grad_position=None, weights=[w]
    )(w)
    assert g[0].asnumpy().tolist() == [2.0 * (rank + 1) * 2, 4.0], g

    # DistributedGradReducer keeps the types and order; mean divides by the group size.
    reducer = nn.DistributedGradReducer([w], mean=True)
    out = reducer((t([rank * 2.0]), np.array([4.0], np.float64)))
    assert isinstance(out[0], ms.Tensor) and out[0].asnumpy().tolist() == [1.0]
    assert isinstance(out[1], np.ndarray) and out[1].tolist() == [4.0]
    assert nn.DistributedGradReducer([w], mean=False)((t([1.0]),))[
        0
    ].asnumpy().tolist() == [2.0]

    check_reduction_paths(rank)
    check_sgd_stepped_from_the_window(rank, size)
    check_dense_gradients_written_into_the_window(rank, size)
    shared_net, shared_values = check_weights_kept_once_per_machine(rank, size)
    check_last_barrier_left_to_the_stop_vote(rank, size)

    # cb_params in a data-parallel run.
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    net = nn.Dense(4, 2)
    model = ms.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    train_network: Any = model.train_network
    assert train_network.grad_reducer is not None
    data = {"x": np.ones((8, 4), np.float32), "y": np.zeros((8, 2), np.float32)}
    seen = parallel_context_seen(
        model, ds.NumpySlicesDataset(data, num_shards=size, shard_id=rank).batch(2)
    )
    assert seen == {"device_number": 2, "parallel_mode": "data_parallel"}, seen
    weights = ops.AllGather()(net.weight.reshape((1, -1))).asnumpy()
    assert np.array_equal(weights[0], weights[1])  # the ranks stay identical

    release()
    # `release()` gives the parameters private copies: the window may be freed.
    for p, value in zip(shared_net.trainable_params(), shared_values, strict=True):
        assert p.asnumpy().base is None and np.array_equal(p.asnumpy(), value)
    assert not inited()
    if rank == 0:
        print("api ok")


if __name__ == "__main__":
    main()
