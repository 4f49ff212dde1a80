"""EarlyStopping: Keras stop semantics, baseline, zero values, restore, state, validation (reference §7.6)."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import numpy as np
import pytest

import cadence as ms
from cadence import Callback, Model, RunContext, dataset as ds, nn
from cadence.callbacks import EarlyStopping, MonitorUnavailableWarning
from cadence.testing import ListDataset, ScriptedMetric, constant_network
from tests.helpers.models import train_one_step


class Epochs(Callback):
    """Record the training epochs that ran."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        self.seen.append(run_context.original_args().cur_epoch_num)


def fit(
    values: list[Any],
    stopper: EarlyStopping,
    *,
    eval_loss: float = 0.5,
    valid_frequency: int = 1,
) -> list[int]:
    """Run `fit` for len(values) evaluated epochs with metric `acc` = values; return the epochs run."""
    epochs = Epochs()
    model = Model(
        constant_network(),
        eval_network=lambda *b: (eval_loss,),
        metrics={"acc": ScriptedMetric(*values)},
    )
    n = len(values) * valid_frequency
    model.fit(
        n,
        ListDataset.of_steps(1),
        ListDataset.of_steps(1),
        valid_frequency,
        callbacks=[stopper, epochs],
    )
    return epochs.seen


def test_default_patience_does_not_stop_while_the_metric_improves():
    """Fix: MindSpore's default (patience=0) always stopped after the first evaluated epoch."""
    stopper = EarlyStopping(monitor="acc")
    assert fit([0.1, 0.2, 0.3, 0.4], stopper) == [1, 2, 3, 4]
    assert stopper.stopped_epoch == 0
    assert stopper.best == 0.4


def test_patience_counts_consecutive_epochs_without_improvement(capsys):
    stopper = EarlyStopping(monitor="acc", patience=2, verbose=True)
    assert fit([0.1, 0.3, 0.3, 0.2, 0.9], stopper) == [1, 2, 3, 4]
    assert (stopper.best, stopper.best_epoch, stopper.stopped_epoch) == (0.3, 2, 4)
    assert capsys.readouterr().out == "Epoch 00004: early stopping\n"


@pytest.mark.parametrize("patience", [0, 1])
def test_patience_0_and_1_stop_at_the_first_epoch_without_improvement(patience):
    assert fit(
        [0.1, 0.3, 0.2, 0.4], EarlyStopping(monitor="acc", patience=patience)
    ) == [1, 2, 3]


def test_an_improvement_resets_the_count():
    assert fit(
        [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.3], EarlyStopping(monitor="acc", patience=2)
    ) == [1, 2, 3, 4, 5, 6, 7]


def test_not_verbose_prints_nothing(capsys):
    fit([0.1, 0.1], EarlyStopping(monitor="acc"))
    assert capsys.readouterr().out == ""


def test_baseline_must_be_beaten():
    """Fix: MindSpore replaced `baseline` by `min_delta`."""
    stopper = EarlyStopping(monitor="acc", patience=2, baseline=0.5)
    assert stopper.baseline == 0.5
    assert fit([0.1, 0.2, 0.3, 0.6], stopper) == [1, 2]
    assert stopper.best == 0.2


def test_beating_the_baseline_counts_as_improvement():
    assert fit(
        [0.6, 0.7, 0.8, 0.8], EarlyStopping(monitor="acc", patience=1, baseline=0.5)
    ) == [1, 2, 3, 4]


def test_zero_is_a_real_value():
    """Fix: MindSpore treated a monitored 0 as missing (and so never stopped on it)."""
    stopper = EarlyStopping(monitor="acc", mode="min")
    assert fit([0.0, 0.0, 0.0], stopper) == [1, 2]
    assert stopper.best == 0.0


def test_min_delta_is_the_smallest_improvement_and_its_sign_is_ignored():
    stopper = EarlyStopping(monitor="acc", patience=2, min_delta=-0.01)
    assert stopper.min_delta == 0.01
    assert fit([0.5, 0.505, 0.509, 0.6], stopper) == [1, 2, 3]


def test_mode_auto_minimizes_eval_loss_and_max_overrides_it():
    assert fit([0.0] * 3, EarlyStopping(), eval_loss=0.5) == [
        1,
        2,
    ]  # constant eval_loss: no improvement
    losses = iter([3.0, 2.0, 1.0, 0.5])
    epochs = Epochs()
    model = Model(
        constant_network(),
        eval_network=lambda *b: (next(losses),),
        metrics={"acc": ScriptedMetric(0, 0, 0, 0)},
    )
    model.fit(
        4,
        ListDataset.of_steps(1),
        ListDataset.of_steps(1),
        callbacks=[EarlyStopping(mode="max"), epochs],
    )
    assert epochs.seen == [1, 2]


def test_monitor_loss_reads_the_last_training_step():
    losses = iter([5.0, 3.0, 2.0, 4.0, 1.0, 1.0, 1.0, 1.0])
    epochs = Epochs()
    Model(lambda *b: next(losses)).train(
        4, ListDataset.of_steps(2), callbacks=[EarlyStopping("loss"), epochs]
    )
    assert epochs.seen == [1, 2]  # epoch 1 ends at 3.0, epoch 2 at 4.0: no improvement


def test_a_missing_value_warns_and_skips_the_epoch():
    stopper = EarlyStopping()
    with pytest.warns(MonitorUnavailableWarning) as record:
        Model(constant_network()).train(2, ListDataset.of_steps(1), callbacks=stopper)
    assert len(record) == 2
    assert str(record[0].message).startswith(
        "Early stopping is conditioned on 'eval_loss', which is not available. Available choices are: ['loss']."
    )
    assert stopper.wait == 0


def test_epochs_without_an_eval_pass_are_skipped():
    with pytest.warns(
        MonitorUnavailableWarning, match=r"Available choices are: \['loss'\]"
    ):
        assert fit([0.5, 0.4], EarlyStopping(monitor="acc"), valid_frequency=2) == [
            1,
            2,
            3,
            4,
        ]


def test_unknown_metric_lists_the_available_ones():
    with pytest.warns(
        MonitorUnavailableWarning,
        match=r"'accuracy', which is not available\. Available choices are: \['loss', 'acc', 'eval_loss'\]",
    ):
        fit([0.5], EarlyStopping(monitor="accuracy"))


def test_a_non_scalar_value_raises():
    with pytest.raises(
        ValueError,
        match=r"^For 'EarlyStopping', the monitored value 'acc' must be a single number, but got \[0\.1, 0\.2\]\.",
    ):
        fit([[0.1, 0.2]], EarlyStopping(monitor="acc"))


def test_no_hooks_in_model_eval():
    model = Model(
        constant_network(),
        eval_network=lambda *b: (0.5,),
        metrics={"acc": ScriptedMetric(1.0)},
    )
    assert model.eval(ListDataset.of_steps(1), callbacks=EarlyStopping()) == {
        "acc": 1.0
    }


# --- restore_best_weights with a real network ---------------------------------------------


class Weights(Callback):
    """Keep a copy of the weight at each epoch end (before EarlyStopping may restore it)."""

    def __init__(self) -> None:
        self.by_epoch: dict[int, np.ndarray[Any, Any]] = {}

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        self.by_epoch[cb.cur_epoch_num] = cb.network.weight.asnumpy().copy()


def test_restore_best_weights_loads_the_best_epoch(capsys):
    ms.set_seed(1)
    net = nn.Dense(3, 1)
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    data = ds.NumpySlicesDataset(
        {"x": x, "y": np.ones((4, 1), np.float32)}, shuffle=False
    ).batch(2)
    model = Model(
        net,
        nn.MSELoss(),
        nn.SGD(net.trainable_params(), 0.01),
        metrics={"acc": ScriptedMetric(0.2, 0.5, 0.4, 0.3)},
    )
    weights = Weights()
    stopper = EarlyStopping(
        monitor="acc", patience=2, verbose=True, restore_best_weights=True
    )
    model.fit(4, data, data, callbacks=[weights, stopper])
    assert stopper.stopped_epoch == 4
    assert not np.array_equal(weights.by_epoch[2], weights.by_epoch[4])
    np.testing.assert_array_equal(net.weight.asnumpy(), weights.by_epoch[2])
    assert (
        capsys.readouterr().out
        == "Restoring model weights from the end of the best epoch.\nEpoch 00004: early stopping\n"
    )


def test_restore_best_weights_needs_parameters():
    with pytest.raises(
        TypeError,
        match=r"^For 'EarlyStopping', restore_best_weights=True needs `cb_params.train_network` to have parameters",
    ):
        train_one_step(EarlyStopping(restore_best_weights=True))


# --- state protocol -----------------------------------------------------------------------


def test_state_round_trips_through_json_and_resumes_the_count():
    first = EarlyStopping(monitor="acc", patience=2)
    assert fit([0.1, 0.3, 0.3], first) == [1, 2, 3]
    state = msgspec.json.decode(msgspec.json.encode(first.state_dict()))
    assert state == {"wait": 1, "stopped_epoch": 0, "best": 0.3, "best_epoch": 2}
    resumed = EarlyStopping(monitor="acc", patience=2)
    resumed.load_state_dict(state)
    assert fit([0.2, 0.9], resumed) == [1]  # second epoch without improvement: stop
    assert EarlyStopping.state_key == "EarlyStopping"


def test_fresh_state_has_no_best():
    assert EarlyStopping().state_dict() == {
        "wait": 0,
        "stopped_epoch": 0,
        "best": None,
        "best_epoch": 0,
    }
    stopper = EarlyStopping(monitor="acc")
    stopper.load_state_dict(
        {"wait": 0, "stopped_epoch": 0, "best": None, "best_epoch": 0}
    )
    assert stopper.best == -np.inf


def test_a_reused_instance_starts_afresh():
    stopper = EarlyStopping(monitor="acc", patience=2)
    fit([0.5, 0.4], stopper)
    assert fit([0.1, 0.2], stopper) == [1, 2]
    assert stopper.best == 0.2


@pytest.mark.parametrize(
    ("kwargs", "cls", "message"),
    [
        (
            {"monitor": 1},
            TypeError,
            "For 'EarlyStopping', the argument 'monitor' must be of type 'str', but got 1 of type 'int'.",
        ),
        (
            {"min_delta": "x"},
            TypeError,
            "For 'EarlyStopping', the argument 'min_delta' must be a number, but got 'x' of type 'str'.",
        ),
        (
            {"patience": -1},
            ValueError,
            "For 'EarlyStopping', the argument 'patience' must be an int >= 0, but got -1.",
        ),
        (
            {"patience": 1.5},
            TypeError,
            "For 'EarlyStopping', the argument 'patience' must be an int >= 0, but got 1.5 of type 'float'.",
        ),
        (
            {"verbose": 1},
            TypeError,
            "For 'EarlyStopping', the argument 'verbose' must be a bool, but got 1 of type 'int'.",
        ),
        (
            {"mode": "bad"},
            ValueError,
            "For 'EarlyStopping', the argument 'mode' must be one of 'auto', 'min', 'max', but got 'bad'.",
        ),
        (
            {"mode": 1},
            TypeError,
            "For 'EarlyStopping', the argument 'mode' must be of type 'str', but got 1 of type 'int'.",
        ),
        (
            {"baseline": "x"},
            TypeError,
            "For 'EarlyStopping', the argument 'baseline' must be a number, but got 'x' of type 'str'.",
        ),
        (
            {"restore_best_weights": 1},
            TypeError,
            "For 'EarlyStopping', the argument 'restore_best_weights' must be a bool, but got 1 of type 'int'.",
        ),
    ],
)
def test_validation(kwargs, cls, message):
    with pytest.raises(cls, match=f"^{re.escape(message)}$"):
        EarlyStopping(**kwargs)


def test_state_loaded_during_the_run_does_not_leak_into_the_next_run():
    """A loader placed after the callback restores it once; the next run starts afresh."""
    from cadence.callbacks import LambdaCallback

    stopper = EarlyStopping(monitor="acc", patience=2)
    state = {"wait": 1, "stopped_epoch": 0, "best": 0.9, "best_epoch": 3}
    loader = LambdaCallback(on_train_begin=lambda rc: stopper.load_state_dict(state))
    epochs = Epochs()
    model = Model(
        constant_network(),
        eval_network=lambda *b: (0.5,),
        metrics={"acc": ScriptedMetric(0.5, 0.6, 0.7)},
    )
    model.fit(
        1,
        ListDataset.of_steps(1),
        ListDataset.of_steps(1),
        callbacks=[stopper, loader, epochs],
    )
    assert epochs.seen == [1]
    assert stopper.stopped_epoch == 1  # the loaded wait=1 plus one epoch below best 0.9
    assert fit([0.1, 0.2], stopper) == [1, 2]
    assert stopper.best == 0.2
