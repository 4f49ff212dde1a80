"""Metrics inside `Model.eval` and `Model.fit`: values as `eval` returns them, custom metrics, `set_indexes`."""

import numpy as np
import pytest

import cadence as ms
import cadence.nn as nn
from cadence.testing import ListDataset
from cadence.train import MAE, MSE, Callback, Loss, Metric, Model, rearrange_inputs


def regression_data(steps=3, batch=4):
    rng = np.random.default_rng(1)
    batches = []
    for _ in range(steps):
        x = rng.normal(size=(batch, 3)).astype(np.float32)
        y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
        batches.append([ms.Tensor(x), ms.Tensor(y)])
    return ListDataset(batches)


class MaxError(Metric):
    """A custom metric in MindSpore's style: the largest absolute error seen."""

    def __init__(self):
        super().__init__()
        self._errors = []

    def clear(self):
        self._errors.clear()

    @rearrange_inputs
    def update(self, y_pred, y):
        error = np.abs(self._convert_data(y_pred) - self._convert_data(y))
        self._errors.append(float(error.max()))

    def eval(self):
        return max(self._errors)


def test_model_eval_returns_metric_values_as_they_are():
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    data = regression_data()
    model = Model(
        net,
        nn.MSELoss(),
        metrics={"mae": MAE(), "mse": MSE(), "max": MaxError(), "loss": Loss()},
    )
    result = model.eval(data)
    assert type(result["mae"]) is np.float64
    assert type(result["mse"]) is np.float64
    assert type(result["loss"]) is np.float64
    assert (
        type(result["max"]) is float
    )  # a custom metric's value is not converted, as in MindSpore
    xs = np.concatenate([b[0].asnumpy() for b in data.batches])
    ys = np.concatenate([b[1].asnumpy() for b in data.batches])
    pred = net(ms.Tensor(xs)).asnumpy()
    assert result["mae"] == pytest.approx(np.abs(pred - ys).sum() / len(ys), rel=1e-5)
    assert result["mse"] == pytest.approx(((pred - ys) ** 2).sum() / len(ys), rel=1e-5)
    assert result["max"] == pytest.approx(np.abs(pred - ys).max(), rel=1e-5)


def test_fit_puts_float64_values_in_cb_params_and_eval_results():
    seen = {}

    class Record(Callback):
        def on_train_epoch_end(self, run_context):
            cb = run_context.original_args()
            seen["metrics"] = dict(cb.metrics)
            seen["eval_results"] = dict(cb.eval_results)

    ms.set_seed(0)
    model = Model(
        net := nn.Dense(3, 1),
        nn.MSELoss(),
        nn.SGD(net.trainable_params(), 0.01),
        metrics={"mae"},
    )
    model.fit(1, regression_data(), regression_data(2), callbacks=[Record()])
    assert type(seen["metrics"]["mae"]) is np.float64
    assert type(seen["eval_results"]["mae"]) is np.float64


def test_set_indexes_picks_the_inputs_update_receives():
    mae = MAE().set_indexes([0, 2])
    mae.update(
        ms.Tensor(np.array([1.0, 2.0], np.float32)), "ignored", np.array([1.5, 1.0])
    )
    assert mae.eval() == pytest.approx(0.75)  # MindSpore 2.10: 0.75
    swapped = MaxError().set_indexes([1, 0])
    swapped.update(np.array([1.0]), np.array([4.0]))
    assert swapped.eval() == 3.0
    with pytest.raises(ValueError, match="'indexes' must be a list of ints"):
        MAE().set_indexes((0, 1))
    with pytest.raises(ValueError, match="must select among the 2 inputs"):
        MAE().set_indexes([0, 3]).update(np.zeros(2), np.zeros(2))


def test_eval_network_with_three_outputs_and_set_indexes():
    """A MindSpore pattern: the eval network returns (loss, logits, labels), each metric picks its inputs."""

    class EvalNet(nn.Cell):
        def __init__(self, net, loss_fn):
            super().__init__()
            self.net, self.loss_fn = net, loss_fn

        def construct(self, x, y):
            out = self.net(x)
            return self.loss_fn(out, y), out, y

    ms.set_seed(0)
    net = nn.Dense(3, 1)
    metrics = {"mae": MAE().set_indexes([1, 2]), "loss": Loss().set_indexes([0])}
    model = Model(net, eval_network=EvalNet(net, nn.MSELoss()), metrics=metrics)
    result = model.eval(regression_data())
    assert type(result["mae"]) is np.float64 and result["mae"] > 0
    assert type(result["loss"]) is np.float64 and result["loss"] > 0


def test_metric_base_methods_must_be_defined():
    class Incomplete(Metric):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()  # type: ignore[abstract]
    with pytest.raises(
        TypeError, match="must be Tensors, numpy arrays, lists or numbers"
    ):
        MAE().update({"a": 1}, [1])


def test_metric_names_build_every_named_metric_in_model():
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    model = Model(net, nn.MSELoss(), metrics={"mae", "mse", "loss"})
    result = model.eval(regression_data())
    assert sorted(result) == ["loss", "mae", "mse"]
    assert all(type(v) is np.float64 for v in result.values())


def test_a_set_of_metric_names_gives_its_results_in_sorted_order():
    # Six names: a set iterates them in sorted order by chance once in 720 processes.
    names = {"recall", "loss", "F1", "accuracy", "top_1_accuracy", "precision"}
    built = nn.get_metrics(names)
    assert built is not None
    assert list(built) == sorted(names)
    ms.set_seed(0)
    rng = np.random.default_rng(2)
    batches = [
        [
            ms.Tensor(rng.normal(size=(6, 3)).astype(np.float32)),
            ms.Tensor(np.arange(6) % 3),
        ]
        for _ in range(2)
    ]
    model = Model(
        nn.Dense(3, 3), nn.SoftmaxCrossEntropyWithLogits(sparse=True), metrics=names
    )
    assert list(model.eval(ListDataset(batches))) == sorted(names)
