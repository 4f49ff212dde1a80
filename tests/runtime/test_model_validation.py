"""Argument checks of Model and its methods: MindSpore's exception classes, messages that name the argument."""

from __future__ import annotations

import pytest

from cadence import Model
from cadence.testing import ListDataset, constant_network


def ds(n: int = 2) -> ListDataset:
    return ListDataset.of_steps(n)


# (call on a Model, exception class, message pattern): one bad argument per case, one case per line.
METHOD_CASES = [
    (lambda m: m.train(0, ds()), ValueError, r"For 'Model.train', the argument 'epoch' must be an int > 0, but got 0\."),
    (lambda m: m.train(1.5, ds()), TypeError, r"For 'Model.train', the argument 'epoch' must be an int > 0, but got 1.5 of type 'float'\."),
    (lambda m: m.train(True, ds()), TypeError, r"argument 'epoch' must be an int > 0, but got True of type 'bool'"),
    (lambda m: m.train(2, ds(), initial_epoch=2), ValueError, r"For 'Model.train', the argument 'epoch' must be greater than 'initial_epoch', but got epoch=2 and initial_epoch=2\."),
    (lambda m: m.fit(2, ds(), initial_epoch=3), ValueError, r"For 'Model.fit', the argument 'epoch' must be greater"),
    (lambda m: m.train(2, ds(), initial_epoch=-1), ValueError, r"argument 'initial_epoch' must be an int >= 0, but got -1"),
    (lambda m: m.train(1, ds(), sink_size=0), ValueError, r"For 'Model.train', the argument 'sink_size' must be -1 or positive, but got 0\."),
    (lambda m: m.train(1, ds(), sink_size=-2), ValueError, r"'sink_size' must be -1 or positive, but got -2"),
    (lambda m: m.train(1, ds(), dataset_sink_mode=1), TypeError, r"For 'Model.train', the argument 'dataset_sink_mode' must be a bool, but got 1 of type 'int'\."),
    (lambda m: m.train(1, ListDataset([])), ValueError, r"For 'Model.train', the argument 'train_dataset' has no data \(size 0\)"),
    (lambda m: m.train(1, None), TypeError, r"For 'Model.train', the argument 'train_dataset' must be a dataset"),
    (lambda m: m.train(1, 5), TypeError, r"the argument 'train_dataset' must be a dataset .* but got 5"),
    (lambda m: m.train(1, "data.npz"), TypeError, r"For 'Model.train', the argument 'train_dataset' must be a dataset .* but got 'data.npz' of type 'str'\."),
    (lambda m: m.train(1, {"image": [1], "label": [2]}), TypeError, r"the argument 'train_dataset' must be a dataset .* of type 'dict'\."),
    (lambda m: m.train(1, [1, 2, 3]), TypeError, r"For 'Model.train', each item of 'train_dataset' must be a batch: a tuple or list of columns " r"\(e.g. `\(images, labels\)`\), but got 1 of type 'int'\."),
    (lambda m: m.fit(1, [1, 2]), TypeError, r"For 'Model.fit', each item of 'train_dataset' must be a batch"),
    (lambda m: m.fit(1, ds(), valid_frequency="1"), TypeError, r"For 'Model.fit', the argument 'valid_frequency' must be an int or a list of epoch numbers, but got '1' of type 'str'\."),
    (lambda m: m.fit(1, ds(), valid_frequency=0), ValueError, r"'valid_frequency' must be an int > 0, but got 0"),
    (lambda m: m.fit(1, ds(), ds()), ValueError, r"For 'Model.fit', `valid_dataset` is given but the model has no `metrics`"),
    (lambda m: m.eval(ds()), ValueError, r"For 'Model.eval', the model argument 'metrics' can not be None or empty"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "match"), METHOD_CASES)
def test_method_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call(Model(constant_network()))


def test_model_arguments():
    with pytest.raises(
        TypeError, match="the argument 'network' must be a Cell or callable, but got 3"
    ):
        Model(3)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError,
        match="unexpected keyword argument 'bad_kw'; the accepted extra arguments are 'loss_scale_manager'",
    ):
        Model(constant_network(), bad_kw=1)
    with pytest.raises(
        ValueError,
        match=r"auto mixed precision \(amp_level='O2'\) needs an 'optimizer'",
    ):
        Model(constant_network(), amp_level="O2")
    with pytest.raises(ValueError, match="'amp_level' must be one of"):
        Model(constant_network(), amp_level="O9")
    with pytest.raises(
        ValueError, match="`metrics` is set but there is no evaluation network"
    ):
        Model(constant_network(), metrics={"acc"})
    with pytest.raises(
        TypeError, match="the argument 'bus' must be an EventBus or None, but got 1"
    ):
        Model(constant_network(), bus=1)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match="metric 'm' must have `clear`, `update` and `eval` methods"
    ):
        Model(
            constant_network(), eval_network=constant_network(), metrics={"m": object()}
        )
    with pytest.raises(ValueError, match="'eval_indexes' must be a list of 3 ints"):
        Model(constant_network(), eval_indexes=[0, 1])
    with pytest.raises(
        TypeError,
        match=r"For 'Model', the argument 'loss_fn' must be a loss Cell or callable, or None, but got 3 of type 'int'\.",
    ):
        Model(constant_network(), loss_fn=3)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError,
        match=r"For 'Model', the argument 'optimizer' must be an optimizer .* or None, but got 5 of type 'int'\.",
    ):
        Model(constant_network(), optimizer=5)


def test_eval_items_that_are_not_batches_name_the_dataset():
    from cadence import nn
    from cadence.nn import Accuracy

    net = nn.Dense(2, 2)
    model = Model(net, nn.MSELoss(), metrics={"acc": Accuracy()})
    with pytest.raises(
        TypeError,
        match=r"For 'Model.eval', each item of 'valid_dataset' must be a batch: .* but got 7 of type 'int'\.",
    ):
        model.eval([7])


def test_validation_happens_before_any_hook_runs():
    from cadence.testing import HookRecorder

    rec = HookRecorder()
    with pytest.raises(ValueError, match="epoch"):
        Model(constant_network()).train(0, ds(), callbacks=rec)
    assert rec.calls == []


def test_a_batch_whose_own_iteration_fails_keeps_its_error():
    class Broken:
        def __iter__(self):
            raise TypeError("inner failure of the batch")

    with pytest.raises(TypeError, match=r"^inner failure of the batch$"):
        Model(constant_network()).train(1, [Broken()])
