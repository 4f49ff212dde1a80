"""Data-parallel set-up the rank scripts and benchmarks share (they run under `mpiexec`).

The scripts under `tests/distributed/` import it as `tests.helpers.parallel`: their launchers
(`run_mpi` in `tests/distributed/conftest.py`) put the repository root on `PYTHONPATH`.
"""

from __future__ import annotations

from typing import Any

import cadence as ms

__all__ = ["join_data_parallel", "parallel_context_seen"]


def join_data_parallel() -> tuple[int, int]:
    """Join the MPI group and train data-parallel with averaged gradients; return (rank, group size)."""
    from cadence.communication import get_group_size, get_rank, init

    init()
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True
    )
    return get_rank(), get_group_size()


def parallel_context_seen(model: ms.Model, dataset: Any) -> dict[str, object]:
    """Train `model` one epoch on `dataset`; return what cb_params said at train begin.

    The keys are `device_number` and `parallel_mode`.
    """
    seen: dict[str, object] = {}

    class Probe(ms.Callback):
        def on_train_begin(self, run_context: ms.RunContext) -> None:
            cb = run_context.original_args()
            seen.update(device_number=cb.device_number, parallel_mode=cb.parallel_mode)

    model.train(1, dataset, callbacks=[Probe()])
    return seen
