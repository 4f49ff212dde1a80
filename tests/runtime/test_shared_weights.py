"""The shared weights row's votes and decisions, in one process (a window of two ranks' flags).

tests/distributed/rank_api.py runs the whole path on 2 ranks: parameters kept in the
row, rebound, stepped by the optimizer, checkpointed and released.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import cadence as ms
from cadence.nn._shared_weights import ATTACHED, ELIGIBLE, OPTIMIZER, SharedWeights

SHAPES = [(2, 3), (4,)]


def shared_row() -> tuple[SharedWeights, SimpleNamespace, list[ms.Parameter]]:
    window = SimpleNamespace(
        weights=np.arange(16, dtype=np.float32),
        flags=np.zeros((2, len(SHAPES) + 1), np.uint8),
        rank=0,
        share=(0, 5),
    )
    shared = SharedWeights(window, [0, 6, 10], SHAPES)  # type: ignore[arg-type]
    params = [
        ms.Parameter(np.ones(s, np.float32), name=f"p{i}") for i, s in enumerate(SHAPES)
    ]
    return shared, window, params


def read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


# What a rank votes for its first parameter, by how that parameter's data looks.
VOTES = [
    ("private float32", lambda p, view: np.ones((2, 3), np.float32), ELIGIBLE),
    ("the row's view", lambda p, view: view, ATTACHED),
    ("float64", lambda p, view: np.ones((2, 3), np.float64), OPTIMIZER),
    ("not contiguous", lambda p, view: np.ones((3, 2), np.float32).T, OPTIMIZER),
    ("read-only", lambda p, view: read_only(np.ones((2, 3), np.float32)), OPTIMIZER),
]


@pytest.mark.parametrize(
    ("data", "vote"), [v[1:] for v in VOTES], ids=[v[0] for v in VOTES]
)
def test_vote_by_the_parameters_data(data, vote):
    shared, window, params = shared_row()
    params[0]._data = data(params[0], shared._views[0])
    shared.vote(params, {id(p): (0.1, 0.0) for p in params})
    assert window.flags[0].tolist() == [vote, ELIGIBLE, 0]


def test_vote_for_the_optimizer_without_a_plain_sgd_step():
    shared, window, params = shared_row()
    shared.vote(params, {id(params[1]): (0.1, 0.0)}, defer=True)
    assert window.flags[0].tolist() == [OPTIMIZER, ELIGIBLE, 1]
    shared.vote(
        params, None, defer=True
    )  # (nothing written to the row: no barrier to defer)
    assert window.flags[0].tolist() == [OPTIMIZER, OPTIMIZER, 0]


def test_the_least_vote_of_the_ranks_decides():
    shared, window, _ = shared_row()
    window.flags[:] = [[ATTACHED, ATTACHED, 1], [ATTACHED, ATTACHED, 1]]
    decided, deferred = shared.decide()
    assert list(decided) == [ATTACHED, ATTACHED] and deferred
    window.flags[1] = [
        ELIGIBLE,
        OPTIMIZER,
        0,
    ]  # one rank alone does not defer: none does
    decided, deferred = shared.decide()
    assert list(decided) == [ELIGIBLE, OPTIMIZER] and not deferred


def test_attach_then_detach_keeps_the_values():
    shared, window, params = shared_row()
    shared.publish_leader([0, 1], params)  # rank 0 writes its values into the row
    shared.attach([0, 1], params)
    assert shared.attached_count == 2
    params[0]._data[0, 0] = 5.0  # a write reaches the row
    assert window.weights[0] == 5.0
    shared.detach_all()
    assert shared.attached_count == 0
    window.weights[:] = -1.0  # the row no longer reaches the parameters
    assert (
        params[0].asnumpy()[0, 0] == 5.0 and params[1].asnumpy().tolist() == [1.0] * 4
    )


def test_step_share_updates_only_this_ranks_columns():
    shared, _, _ = shared_row()
    rows = np.ones((2, 16), np.float32)
    seen = []
    for i in range(2):
        shared.step_share(
            rows,
            i,
            np.float32(2),
            (0.1, 0.0),
            lambda r, lo, out, *rest: seen.append((lo, out.size)),
        )
    assert seen == [(0, 5)]  # columns 0-4 of parameter 0; none of parameter 1 (6-9)


def test_a_write_makes_the_parameter_private_first():
    shared, window, params = shared_row()
    shared.attach([0], params)
    params[0].set_data(np.full((2, 3), 7.0, np.float32))  # as load_checkpoint does
    assert (
        shared.attached_count == 0 and window.weights[0] == 0.0
    )  # the row is untouched
    assert params[0].asnumpy().tolist() == [[7.0] * 3] * 2


def test_another_rows_detach_leaves_the_parameters_new_row_alone():
    old, _, params = shared_row()
    new, window, _ = shared_row()
    old.attach([0], params)
    # Rebound (no write into the buffer): the old row still lists it.
    params[0].assign_value(np.ones((2, 3), np.float32))
    new.attach([0], params)
    old.detach_all()
    params[0][0, 0] = 9.0  # item assignment: made private by the new row's hook first
    assert new.attached_count == 0 and window.weights[0] == 0.0
