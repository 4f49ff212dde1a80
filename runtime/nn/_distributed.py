"""`DistributedGradReducer`: gradients summed (or averaged) over the data-parallel ranks."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from ..communication import _world
from ..communication._collectives import broadcast, host_array
from ..communication._parallel_context import get_auto_parallel_context
from ..communication.management import GlobalComm, check_group
from ..compute._tensor import Tensor
from ._buckets import DEFAULT_BUCKET_BYTES, ONE_BUCKET, BucketPlan, ReductionStats
from ._cell import Cell

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ..compute._tensor import Parameter

    # Imported where used: the window's kernels load numba, which a stand-alone
    # `import cadence.nn` must not (tests/runtime/test_tensor.py).
    from ._window_plan import WindowPlan

__all__ = ["DistributedGradReducer", "broadcast_parameters", "default_bucket_bytes"]

Array = np.ndarray[Any, Any]


def _check_positive(
    where: str, name: str, value: object, alternative: str = ""
) -> None:
    # ValueError for a wrong type too, as the MindSpore cell this ports raises.
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(
            f"For '{where}', the argument '{name}' must be a positive int{alternative}, but got {value!r}."
        )


class DistributedGradReducer(Cell):
    """Reduce gradients over the ranks of the job, as `mindspore.nn.DistributedGradReducer`.

    `construct(grads)` returns the gradients summed over the ranks, divided by
    `degree` when `mean` is True, in the order and type given (Tensors or
    arrays). Gradients of one dtype travel together in one allreduce.

    Args:
        parameters: The parameters the gradients belong to (their order).
        mean: Average instead of sum; None reads `gradients_mean` from the
            auto-parallel context.
        degree: The number of ranks to divide by; None reads `device_num`
            (the group size unless set).
        fusion_type: Accepted for compatibility.
        group: The world group (cadence has no other).
        bucket_bytes: (cadence) Size of the buckets `TrainOneStepCell` reduces
            with `MPI_Allreduce` while backward runs (see `overlapped`). None
            chooses: where ranks share this machine (and the gradients one
            dtype), no buckets but the machine's shared-memory window, summed
            when backward ends (`cadence/communication/_node_window.py`); else
            1 MiB when each rank on this machine has at least 2 cores, else one
            bucket started when backward ends (with one core per rank, a
            reduction running during backward takes the core backward needs:
            measured 25-30% slower here, see docs/performance.md). Set it (or
            the attribute, before the first step) to force buckets.

    Raises:
        RuntimeError: If `cadence.communication.init()` was not called.
        TypeError, ValueError: For a bad argument.

    Example:
        >>> import numpy as np, cadence as ms, cadence.nn as nn
        >>> from cadence.communication import init, release
        >>> init()
        >>> net = nn.Dense(2, 1)
        >>> reducer = nn.DistributedGradReducer(net.trainable_params(), mean=True)
        >>> [g.shape for g in reducer((np.ones((1, 2), np.float32), np.ones(1, np.float32)))]
        [(1, 2), (1,)]
        >>> release()
    """

    _comm_world: _world.World
    _plan: BucketPlan | WindowPlan | None
    _window_ok: bool | None

    def __init__(
        self,
        parameters: Iterable[Parameter],
        mean: bool | None = None,
        degree: int | None = None,
        fusion_type: int = 1,
        group: str = GlobalComm.WORLD_COMM_GROUP,
        *,
        bucket_bytes: int | None = None,
    ) -> None:
        super().__init__(auto_prefix=False)
        where = "DistributedGradReducer"
        world = _world.require(where)
        check_group(group, where)
        if mean is None:
            mean = bool(get_auto_parallel_context("gradients_mean"))
        elif not isinstance(mean, bool):
            raise TypeError(
                f"For '{where}', the argument 'mean' must be a bool or None, but got {mean!r}."
            )
        if degree is None:
            degree = int(get_auto_parallel_context("device_num"))
        else:
            _check_positive(where, "degree", degree, " or None")
        params = list(parameters)
        if bucket_bytes is not None:
            _check_positive(where, "bucket_bytes", bucket_bytes, " or None")
        self.parameter_count = len(params)
        self.mean = mean
        self.degree = degree
        self.bucket_bytes: int | None = bucket_bytes
        """None: chosen at the first step (see the class); an int: `MPI_Allreduce` buckets of that size."""
        self.stats = ReductionStats()
        """Allreduce time and the part of it not hidden behind backward (the overlapped path)."""
        object.__setattr__(self, "_comm_world", world)
        object.__setattr__(self, "_plan", None)
        object.__setattr__(self, "_window_ok", None)

    def construct(self, grads: Sequence[Any]) -> tuple[Any, ...]:
        """Return the reduced gradients (same order and types as `grads`)."""
        arrays = [host_array(g) for g in grads]
        reduced = self.reduce_arrays(arrays)
        return tuple(
            Tensor._wrap(r) if isinstance(g, Tensor) else r
            for g, r in zip(grads, reduced, strict=True)
        )

    def overlapped(self, weights: Sequence[Any]) -> BucketPlan | WindowPlan:
        """Return the reduction plan for `weights` (built on first use): `begin`, `ready` from backward, `finish`.

        Collective on first use: every rank builds its plan at the same step.
        """
        plan = self._plan
        if plan is None:
            arrays = [host_array(w) for w in weights]
            shapes = [tuple(a.shape) for a in arrays]
            divisor = float(self.degree) if self.mean else None
            world, size = self._comm_world, self.bucket_bytes
            if self._window_serves(arrays):
                from ._window_plan import WindowPlan

                plan = WindowPlan(world, shapes, arrays[0].dtype, divisor, self.stats)
            else:
                plan = BucketPlan(
                    world,
                    shapes,
                    [a.dtype for a in arrays],
                    divisor,
                    default_bucket_bytes(world.local_size) if size is None else size,
                    self.stats,
                )
            object.__setattr__(self, "_plan", plan)
        return plan

    def _window_serves(self, arrays: Sequence[Array]) -> bool:
        # One dtype (one window row type), no buckets asked for, ranks sharing the machine.
        # Asked once (the ranks vote): every call of a reducer is collective, so all ranks ask together.
        if self.bucket_bytes is not None or len({a.dtype for a in arrays}) != 1:
            return False
        if self._window_ok is None:
            from ..communication._node_window import window_wanted

            elements = sum(a.size for a in arrays)
            ok = window_wanted(self._comm_world, elements, arrays[0].dtype.itemsize)
            object.__setattr__(self, "_window_ok", ok)
        return bool(self._window_ok)

    @property
    def reduction(self) -> str:
        """How gradients travel (`shared-memory window`, `allreduce buckets`, ...); `not planned yet` before the first step."""
        plan = self._plan
        return "not planned yet" if plan is None else plan.describe()

    def reduce_arrays(self, arrays: list[Array]) -> list[Array]:
        """Return `arrays` reduced over the ranks: through the window where it serves, else one allreduce per dtype."""
        world = self._comm_world
        plan = self._plan
        if plan is None and self._window_serves(arrays):
            plan = self.overlapped(arrays)
        if (
            plan is not None
            and not isinstance(plan, BucketPlan)
            and plan.shapes_match(arrays)
        ):
            plan.begin()
            # Copies: the caller may keep them past another call, which reuses the window.
            return [g.copy() for g in plan.finish(arrays)]
        out: list[Array] = list(arrays)
        by_dtype: dict[np.dtype[Any], list[int]] = {}
        for i, a in enumerate(arrays):
            by_dtype.setdefault(a.dtype, []).append(i)
        for dtype, idx in by_dtype.items():
            flat = np.concatenate([arrays[i].ravel() for i in idx]).astype(
                dtype, copy=False
            )
            if world.size > 1:
                with world.watchdog.guard("gradient AllReduce"):
                    world.comm.Allreduce(world.mpi.IN_PLACE, flat, op=world.mpi.SUM)
            if self.mean:
                flat /= dtype.type(self.degree)
            offset = 0
            for i in idx:
                n = arrays[i].size
                out[i] = flat[offset : offset + n].reshape(arrays[i].shape)
                offset += n
        return out


def default_bucket_bytes(ranks_here: int) -> int:
    """Return the bucket size for `ranks_here` ranks on this machine: overlap only with spare cores."""
    cores = os.cpu_count() or 1
    return DEFAULT_BUCKET_BYTES if cores >= 2 * ranks_here else ONE_BUCKET


def broadcast_parameters(params: Iterable[Parameter], root: int = 0) -> None:
    """Overwrite every rank's `params` with rank `root`'s values (one broadcast per dtype)."""
    world = _world.require("broadcast_parameters")
    items = list(params)
    if world.size == 1 or not items:
        return
    by_dtype: dict[np.dtype[Any], list[Parameter]] = {}
    for p in items:
        by_dtype.setdefault(host_array(p).dtype, []).append(p)
    for group in by_dtype.values():
        flat = np.concatenate([host_array(p).ravel() for p in group])
        flat = broadcast(flat, root, where="parameter broadcast")
        offset = 0
        for p in group:
            n = int(np.prod(p.shape))
            p.set_data(flat[offset : offset + n].reshape(p.shape))
            offset += n
