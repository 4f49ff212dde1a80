"""History: epoch and history records in train, fit and eval; fresh per run; state (reference §7.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import numpy as np

from cadence import Model, Tensor
from cadence.callbacks import History
from cadence.testing import ListDataset, ScriptedMetric

if TYPE_CHECKING:
    from collections.abc import Callable


def step_losses(*losses: float) -> Callable[..., Tensor]:
    """A network returning the next loss (a float32 Tensor) at each step."""
    it = iter(losses)
    return lambda *batch: Tensor(np.float32(next(it)))


def test_train_records_each_epoch_and_its_last_output():
    history = History()
    Model(step_losses(3.0, 2.5, 2.0, 1.5)).train(
        2, ListDataset.of_steps(2), callbacks=history
    )
    assert history.epoch == {"epoch": [1, 2]}
    assert history.history == {"net_output": [2.5, 1.5]}
    assert all(type(v) is np.float32 for v in history.history["net_output"])


def test_fit_records_metrics_only_after_eval_passes():
    model = Model(
        step_losses(*[1.0] * 3),
        eval_network=lambda *batch: (Tensor(np.float32(0.7)),),
        metrics={"acc": ScriptedMetric(0.25), "loss": ScriptedMetric(0.75)},
    )
    history = History()
    model.fit(
        3,
        ListDataset.of_steps(1),
        ListDataset.of_steps(2),
        valid_frequency=2,
        callbacks=history,
    )
    assert history.epoch == {"epoch": [1, 2, 3]}
    assert history.history == {
        "net_output": [1.0, 1.0, 1.0],
        "acc": [0.25],
        "loss": [0.75],
    }


def test_model_eval_records_one_epoch_and_the_last_eval_loss():
    model = Model(
        step_losses(),
        eval_network=step_losses(0.5, 0.25),
        metrics={"acc": ScriptedMetric(1.0)},
    )
    history = History()
    model.eval(ListDataset.of_steps(2), callbacks=history)
    assert history.epoch == {"epoch": [1]}
    assert history.history == {"net_output": [0.25]}


def test_tuple_outputs_record_the_mean_of_the_first_item():
    history = History()

    def net(*batch: object) -> tuple[Tensor, Tensor]:
        return Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.zeros(3, np.float32))

    Model(net).train(1, ListDataset.of_steps(1), callbacks=history)
    assert history.history == {"net_output": [1.5]}


def test_a_reused_instance_starts_afresh_each_run():
    """Fix: MindSpore's `history` kept growing across runs."""
    history = History()
    model = Model(step_losses(1.0, 2.0, 3.0))
    model.train(1, ListDataset.of_steps(1), callbacks=history)
    model.train(2, ListDataset.of_steps(1), callbacks=history)
    assert history.epoch == {"epoch": [1, 2]}
    assert history.history == {"net_output": [2.0, 3.0]}


def test_state_round_trips_through_json_and_a_resumed_run_continues():
    history = History()
    Model(step_losses(4.0, 3.0)).train(2, ListDataset.of_steps(1), callbacks=history)
    state = msgspec.json.decode(msgspec.json.encode(history.state_dict()))
    assert state == {"history": {"net_output": [4.0, 3.0]}, "epoch": {"epoch": [1, 2]}}
    resumed = History()
    resumed.load_state_dict(state)
    Model(step_losses(2.0)).train(
        3, ListDataset.of_steps(1), callbacks=resumed, initial_epoch=2
    )
    assert resumed.epoch == {"epoch": [1, 2, 3]}
    assert resumed.history == {"net_output": [4.0, 3.0, 2.0]}
    assert History.state_key == "History"


def test_fresh_state():
    history = History()
    assert history.history == {}
    assert history.epoch is None
    assert history.state_dict() == {"history": {}, "epoch": None}
