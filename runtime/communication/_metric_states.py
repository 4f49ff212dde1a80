"""Reduce evaluation metrics across ranks so that every rank reports the global value.

A metric accumulates state in `update` (counts, sums, per-class arrays, lists of
scores) and turns it into a value in `eval`. Rather than averaging the ranks'
values (wrong for ratios of counts when shards differ, and for lists of
scores), cadence merges the *state*: attributes that `update` changed on any
rank are state; numbers and numeric arrays are summed over the ranks, lists
are concatenated in rank order. `eval` then computes the value of the whole
evaluation set. Attributes no rank changed (settings like `k` or `eval_type`)
are left alone. A metric whose state is neither (an object `update` replaced)
keeps its local value; see docs/distributed.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._world import current

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MetricStates", "snapshot_metrics"]


def _copy(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return list(value)
    return value


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and bool(np.array_equal(a, b))
        )
    try:
        return bool(a == b)
    except Exception:  # an exotic object: treat as changed
        return False


class MetricStates:
    """The metrics' attributes right after `clear()`: what `update` changes is their state."""

    def __init__(self, metrics: Mapping[str, Any]) -> None:
        self._metrics = dict(metrics)
        self._before = {
            name: {k: _copy(v) for k, v in vars(m).items()}
            for name, m in self._metrics.items()
            if hasattr(m, "__dict__")
        }

    def reduce(self) -> None:
        """Merge every metric's state over the ranks, in place (a collective: all ranks call it)."""
        world = current()
        if world is None or world.size == 1:
            return
        changed: list[tuple[str, str]] = []
        for name in sorted(self._before):
            now = vars(self._metrics[name])
            before = self._before[name]
            changed.extend(
                (name, k)
                for k in sorted(now)
                if k not in before or not _same(before[k], now[k])
            )
        with world.watchdog.guard("metric state exchange"):
            every = world.comm.allgather(changed)
            keys = sorted({key for keys in every for key in keys})
            local = [vars(self._metrics[n]).get(k) for n, k in keys]
            gathered = world.comm.allgather(local)
        for i, (name, attr) in enumerate(keys):
            merged = _merge([values[i] for values in gathered])
            if merged is not None:
                setattr(self._metrics[name], attr, merged)

    def reduce_mean_parts(self, total: float, count: int) -> tuple[float, int]:
        """Return `(total, count)` summed over the ranks (fit's `eval_loss` of the whole set)."""
        world = current()
        if world is None or world.size == 1:
            return total, count
        parts = np.array([total, count], np.float64)
        with world.watchdog.guard("eval loss reduction"):
            world.comm.Allreduce(world.mpi.IN_PLACE, parts, op=world.mpi.SUM)
        return float(parts[0]), int(parts[1])


def _merge(values: list[Any]) -> Any:
    """Return the ranks' values of one state attribute merged, or None to keep the local one."""
    if all(isinstance(v, list) for v in values):
        return [item for v in values for item in v]
    if all(
        isinstance(v, int | float | np.number) and not isinstance(v, bool)
        for v in values
    ):
        return sum(values[1:], values[0])
    if all(isinstance(v, np.ndarray) and v.dtype.kind in "iuf" for v in values):
        shapes = {v.shape for v in values}
        if len(shapes) == 1:
            return np.sum(values, axis=0).astype(values[0].dtype)
    return None


def snapshot_metrics(metrics: Mapping[str, Any]) -> MetricStates | None:
    """Return the metrics' state snapshot in a multi-rank job, None otherwise."""
    world = current()
    if world is None or world.size == 1:
        return None
    return MetricStates(metrics)
