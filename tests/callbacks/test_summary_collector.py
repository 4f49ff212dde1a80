"""SummaryCollector: event files read back with TensorBoard's own reader; validation (reference §7.11)."""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # type: ignore[import-untyped]

import cadence.callbacks.summary._writer as summary_writer
from cadence import Model, SubscriberError, Tensor, nn
from cadence.callbacks import LambdaCallback, SummaryCollector
from cadence.callbacks.summary._histogram import histogram
from cadence.dataset import NumpySlicesDataset
from cadence.testing import HookRecorder, ListDataset, constant_network
from tests.helpers.failures import failing_network
from tests.helpers.models import train_one_step
from tests.helpers.processes import run_python

if TYPE_CHECKING:
    from pathlib import Path

KEEP_ALL = {"scalars": 0, "histograms": 0, "tensors": 0, "compressedHistograms": 0}


def read(logdir: Path) -> EventAccumulator:
    acc = EventAccumulator(str(logdir), size_guidance=KEEP_ALL)
    acc.Reload()
    return acc


def scalars(acc: EventAccumulator, tag: str) -> list[tuple[int, Any]]:
    return [(e.step, pytest.approx(e.value)) for e in acc.Scalars(tag)]


def event_files(logdir: Path) -> list[Path]:
    return sorted(logdir.glob("events.out.tfevents.*"))


def mlp_model(
    lr: object = 0.1,
    metrics: dict[str, object] | None = None,
    net: nn.Cell | None = None,
) -> Model:
    net = net or nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(
        net, loss, nn.SGD(net.trainable_params(), learning_rate=lr), metrics=metrics
    )


def dataset(steps: int, batch: int = 8, seed: int = 0) -> Any:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((steps * batch, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    return NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


# --- what is written ------------------------------------------------------------------------


def test_loss_at_step_one_and_every_collect_freq_steps(tmp_path):
    Model(constant_network(0.5)).train(
        2, ListDataset.of_steps(3), callbacks=SummaryCollector(tmp_path, collect_freq=2)
    )
    acc = read(tmp_path)
    assert acc.Tags()["scalars"] == ["train/loss"]  # no optimizer: no learning rate
    assert scalars(acc, "train/loss") == [(1, 0.5), (2, 0.5), (4, 0.5), (6, 0.5)]
    assert len(event_files(tmp_path)) == 1


def test_loss_is_the_mean_of_the_first_output(tmp_path):
    losses = iter([1.0, 3.0, 5.0])

    def network(*batch):
        return Tensor(np.array([next(losses), 0.0], np.float32)), "extra"

    Model(network).train(
        1, ListDataset.of_steps(3), callbacks=SummaryCollector(tmp_path, collect_freq=1)
    )
    assert scalars(read(tmp_path), "train/loss") == [(1, 0.5), (2, 1.5), (3, 2.5)]


def test_learning_rate_of_each_collected_step_from_a_per_step_list(tmp_path):
    model = mlp_model(lr=[0.5, 0.4, 0.3, 0.2, 0.1, 0.05])
    model.train(2, dataset(3), callbacks=SummaryCollector(tmp_path, collect_freq=2))
    acc = read(tmp_path)
    assert scalars(acc, "train/lr") == [(1, 0.5), (2, 0.4), (4, 0.2), (6, 0.05)]
    assert [s for s, _ in scalars(acc, "train/loss")] == [1, 2, 4, 6]


def test_learning_rate_from_a_schedule_cell(tmp_path):
    schedule = nn.ExponentialDecayLR(0.1, 0.5, 1)
    mlp_model(lr=schedule).train(
        1, dataset(3), callbacks=SummaryCollector(tmp_path, collect_freq=1)
    )
    assert scalars(read(tmp_path), "train/lr") == [(1, 0.1), (2, 0.05), (3, 0.025)]


def test_histograms_of_the_first_five_parameters_match_the_parameters(tmp_path):
    net = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])
    mlp_model(net=net).train(
        1,
        dataset(4),
        callbacks=SummaryCollector(tmp_path, collect_freq=1, collect_tensor_freq=2),
    )
    acc = read(tmp_path)
    names = ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert acc.Tags()["histograms"] == [f"params/{n}" for n in names]
    net_params = {
        p.name: p.asnumpy() for p in net.trainable_params()
    }  # after step 4, the last histogram step
    for name in names:
        events = acc.Histograms(f"params/{name}")
        assert [e.step for e in events] == [1, 2, 4]
        last = events[-1].histogram_value
        values = net_params[name]
        assert last.num == values.size
        assert sum(last.bucket) == values.size
        assert last.min == pytest.approx(values.min())
        assert last.max == pytest.approx(values.max())
        assert last.sum == pytest.approx(values.sum(), abs=1e-5)


def test_each_histogram_summarizes_the_parameter_as_it_was_at_its_step(tmp_path):
    net = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])
    seen: dict[int, np.ndarray] = {}

    def keep(run_context):
        cb = run_context.original_args()
        weight = next(p for p in net.trainable_params() if p.name == "0.weight")
        seen[cb.cur_step_num] = np.array(weight.asnumpy(), copy=True)

    collector = SummaryCollector(tmp_path, collect_freq=1, collect_tensor_freq=1)
    mlp_model(lr=0.5, net=net).train(
        1,
        dataset(3),
        callbacks=[collector, LambdaCallback(on_train_step_end=keep)],
    )
    events = read(tmp_path).Histograms("params/0.weight")
    assert [e.step for e in events] == [1, 2, 3]
    assert len({float(seen[step].sum()) for step in seen}) == 3  # the weight changed
    for event in events:
        values = seen[event.step].astype(np.float64).ravel()
        hist = event.histogram_value
        assert (hist.min, hist.max) == (
            pytest.approx(values.min()),
            pytest.approx(values.max()),
        )
        assert hist.sum == pytest.approx(values.sum(), rel=1e-6, abs=1e-6)
        assert hist.sum_squares == pytest.approx(np.dot(values, values), rel=1e-6)


def test_histogram_regular_selects_parameters_by_name(tmp_path):
    collector = SummaryCollector(
        tmp_path, collect_specified_data={"histogram_regular": r"2\."}
    )
    mlp_model().train(1, dataset(2), callbacks=collector)
    assert read(tmp_path).Tags()["histograms"] == ["params/2.weight", "params/2.bias"]


def test_keep_default_action_false_collects_only_what_is_named(tmp_path):
    collector = SummaryCollector(
        tmp_path,
        collect_specified_data={"collect_metric": True},
        keep_default_action=False,
    )
    assert collector.collect_specified_data == {"collect_metric": True}
    mlp_model().train(1, dataset(2), callbacks=collector)
    tags = read(tmp_path).Tags()
    assert tags["histograms"] == []
    assert tags["scalars"] == ["train/loss", "train/lr"]


def test_collect_metric_false_writes_no_scalars(tmp_path):
    collector = SummaryCollector(
        tmp_path, collect_specified_data={"collect_metric": False}
    )
    mlp_model().train(1, dataset(2), callbacks=collector)
    tags = read(tmp_path).Tags()
    assert tags["scalars"] == []
    assert len(tags["histograms"]) == 4


def test_default_histogram_steps_are_thinned_to_at_most_twenty(tmp_path):
    mlp_model().train(
        1, dataset(400, batch=1), callbacks=SummaryCollector(tmp_path, collect_freq=1)
    )
    acc = read(tmp_path)
    steps = [e.step for e in acc.Histograms("params/0.bias")]
    assert len(steps) <= 20
    assert steps[:3] == [
        1,
        22,
        44,
    ]  # every 22nd step: the smallest multiple of 1 giving at most 20
    assert len(acc.Scalars("train/loss")) == 400


def test_fit_writes_eval_metrics_at_each_epoch_end_in_one_file(tmp_path):
    model = mlp_model(metrics={"acc": nn.Accuracy()})
    model.fit(
        2,
        dataset(3),
        dataset(2, seed=1),
        callbacks=SummaryCollector(tmp_path, collect_freq=10),
    )
    acc = read(tmp_path)
    assert [e.step for e in acc.Scalars("eval/acc")] == [3, 6]
    assert all(0.0 <= e.value <= 1.0 for e in acc.Scalars("eval/acc"))
    assert len(event_files(tmp_path)) == 1


def test_model_eval_writes_metrics_at_the_last_training_step(tmp_path):
    model = mlp_model(metrics={"acc": nn.Accuracy()})
    collector = SummaryCollector(tmp_path)
    model.train(1, dataset(3), callbacks=collector)
    result = model.eval(dataset(2, seed=1), callbacks=collector)
    acc = read(tmp_path)
    assert scalars(acc, "eval/acc") == [(3, result["acc"])]
    assert len(event_files(tmp_path)) == 2  # one file per run


def test_model_eval_alone_writes_at_step_zero(tmp_path):
    model = mlp_model(metrics={"acc": nn.Accuracy()})
    result = model.eval(dataset(2), callbacks=SummaryCollector(tmp_path))
    assert scalars(read(tmp_path), "eval/acc") == [(0, result["acc"])]


def test_per_class_metrics_become_one_scalar_per_class(tmp_path):
    model = mlp_model(metrics={"recall": nn.Recall()})
    result = model.eval(dataset(2), callbacks=SummaryCollector(tmp_path))
    tags = read(tmp_path).Tags()["scalars"]
    assert tags == [f"eval/recall/{i}" for i in range(len(result["recall"]))]


def test_custom_lineage_data_is_written_as_text(tmp_path):
    collector = SummaryCollector(
        tmp_path, custom_lineage_data={"model": "mlp", "version": 2}
    )
    train_one_step(collector)
    (event,) = read(tmp_path).Tensors("custom_lineage_data/text_summary")
    assert json.loads(event.tensor_proto.string_val[0]) == {
        "model": "mlp",
        "version": 2,
    }


# --- how it is written ------------------------------------------------------------------------


def test_writing_happens_off_the_training_thread_and_leaves_no_subscription(
    tmp_path, monkeypatch
):
    threads: set[int] = set()
    handle = summary_writer.EventFileSink.handle

    def spy(self, record):
        threads.add(threading.get_ident())
        handle(self, record)

    monkeypatch.setattr(summary_writer.EventFileSink, "handle", spy)
    model = Model(constant_network())
    model.train(
        1, ListDataset.of_steps(4), callbacks=SummaryCollector(tmp_path, collect_freq=1)
    )
    assert threads
    assert threading.get_ident() not in threads
    assert not [s for s in model.bus.subscriptions if "SummaryCollector" in s.name]
    assert (
        len(read(tmp_path).Scalars("train/loss")) == 4
    )  # flushed and closed before train returned


def test_records_reach_the_writer_in_bursts_at_epoch_ends(tmp_path, monkeypatch):
    handled: list[int] = []
    handle = summary_writer.EventFileSink.handle

    def spy(self, record):
        handled.append(record.step)
        handle(self, record)

    monkeypatch.setattr(summary_writer.EventFileSink, "handle", spy)
    seen_mid_epoch: list[list[int]] = []

    def look(rc):
        if rc.original_args().cur_step_num == 8:
            rc.bus.drain_sync()
            seen_mid_epoch.append(list(handled))

    recorder = HookRecorder(on={"on_train_step_end": look})
    collector = SummaryCollector(tmp_path, collect_freq=1)
    Model(constant_network()).train(
        1, ListDataset.of_steps(10), callbacks=[collector, recorder]
    )
    assert seen_mid_epoch == [
        []
    ]  # nothing handed over during the epoch (well under 5 s)
    assert handled == [
        *range(1, 11),
        0,
    ]  # then every step at the epoch's end, and the close


def test_a_failing_run_still_closes_its_file(tmp_path):
    with pytest.raises(RuntimeError, match="step 3 broke"):
        Model(failing_network(3, "step 3 broke", loss=0.25)).train(
            1,
            ListDataset.of_steps(4),
            callbacks=SummaryCollector(tmp_path, collect_freq=1),
        )
    assert scalars(read(tmp_path), "train/loss") == [(1, 0.25), (2, 0.25)]


def test_a_writer_failure_fails_the_run(tmp_path, monkeypatch):
    def broken(self):
        raise OSError("disk full")

    monkeypatch.setattr(summary_writer.EventFileSink, "_open", broken)
    with pytest.raises(
        SubscriberError,
        match=r"'SummaryCollector.writer' failed on SummaryBatch\(step=1\): OSError: disk full",
    ):
        Model(constant_network()).train(
            1,
            ListDataset.of_steps(3),
            callbacks=SummaryCollector(tmp_path, collect_freq=1),
        )


def test_two_collectors_on_one_bus_write_their_own_files(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    callbacks = [
        SummaryCollector(a, collect_freq=1),
        SummaryCollector(b, collect_freq=2),
    ]
    Model(constant_network()).train(1, ListDataset.of_steps(2), callbacks=callbacks)
    assert [s for s, _ in scalars(read(a), "train/loss")] == [1, 2]
    assert [s for s, _ in scalars(read(b), "train/loss")] == [1, 2]
    assert len(event_files(a)) == len(event_files(b)) == 1


def test_nothing_is_created_before_a_run(tmp_path):
    SummaryCollector(tmp_path / "later")
    assert not (tmp_path / "later").exists()


def test_histogram_of_values_with_nan_keeps_the_finite_ones():
    hist = histogram(np.array([np.nan, 1.0, 2.0, np.inf, 3.0], np.float32), bins=2)
    assert hist is not None
    assert hist["num"] == 3
    assert hist["bucket_counts"] == [0, 1, 2]
    assert hist["bucket_limits"] == [1.0, 2.0, 3.0]
    assert histogram(np.array([np.nan])) is None


def test_histogram_of_a_large_tensor_counts_a_sample_and_keeps_exact_statistics():
    values = np.random.default_rng(0).standard_normal(200_000).astype(np.float32)
    hist = histogram(values, bins=16, sample=10_000)
    assert hist is not None
    assert hist["num"] == 200_000
    assert (hist["min"], hist["max"]) == (float(values.min()), float(values.max()))
    assert hist["sum"] == pytest.approx(values.sum(dtype=np.float64))
    assert sum(hist["bucket_counts"]) == pytest.approx(200_000)
    exact, _ = np.histogram(values, bins=16, range=(hist["min"], hist["max"]))
    assert np.allclose(hist["bucket_counts"][1:], exact, rtol=0.15, atol=200)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, ">f4"])
def test_histogram_sums_are_exact_in_float64_for_every_dtype(dtype):
    values = (np.random.default_rng(1).standard_normal((300, 7)) * 100).astype(dtype)
    hist = histogram(
        values[:, ::2]
    )  # a strided view: read as it is, not copied by the caller
    assert hist is not None
    expected = values[:, ::2].astype(np.float64)
    assert hist["num"] == expected.size
    assert (hist["min"], hist["max"]) == (expected.min(), expected.max())
    assert hist["sum"] == pytest.approx(expected.sum(), rel=1e-12)
    assert hist["sum_squares"] == pytest.approx(
        np.dot(expected.ravel(), expected.ravel()), rel=1e-12
    )
    assert (
        hist["bucket_counts"][1:]
        == np.histogram(expected, bins=64, range=(hist["min"], hist["max"]))[0].tolist()
    )


def test_histogram_of_nothing_is_none():
    assert histogram(np.zeros((0, 3), np.float32)) is None
    assert histogram(np.array([np.inf, -np.inf])) is None


def test_histogram_of_a_constant_tensor_has_one_full_bucket():
    hist = histogram(np.zeros(10, np.float32), bins=4)
    assert hist is not None
    assert sum(hist["bucket_counts"]) == 10
    assert hist["min"] == hist["max"] == 0.0
    assert hist["bucket_limits"][0] < 0.0 < hist["bucket_limits"][-1]


# --- validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"summary_dir": 1},
            TypeError,
            r"argument 'summary_dir' must be of type 'str' or 'PathLike', but got 1",
        ),
        (
            {"summary_dir": " "},
            ValueError,
            r"argument 'summary_dir' must be a non-empty directory path, but got ' '",
        ),
        (
            {"collect_freq": 0},
            ValueError,
            r"For 'SummaryCollector', the argument 'collect_freq' must be an int > 0, but got 0\.",
        ),
        (
            {"collect_freq": 1.5},
            TypeError,
            r"argument 'collect_freq' must be an int > 0, but got 1\.5 of type 'float'",
        ),
        (
            {"collect_freq": True},
            TypeError,
            r"argument 'collect_freq' must be an int > 0, but got True",
        ),
        (
            {"num_process": 0},
            ValueError,
            r"argument 'num_process' must be an int > 0, but got 0",
        ),
        (
            {"collect_specified_data": []},
            TypeError,
            r"argument 'collect_specified_data' must be of type 'dict', but got \[\]",
        ),
        (
            {"collect_specified_data": {1: True}},
            TypeError,
            r"keys of the argument 'collect_specified_data' must be str, but got 1",
        ),
        (
            {"collect_specified_data": {"bad": True, "collect_metric": True}},
            ValueError,
            r"argument 'collect_specified_data' must have keys among \['collect_metric', .*'collect_landscape'\], but got the unsupported keys \['bad'\]",
        ),
        (
            {"collect_specified_data": {"collect_graph": 1}},
            TypeError,
            r"argument 'collect_specified_data\[\"collect_graph\"\]' must be a bool, but got 1 of type 'int'",
        ),
        (
            {"collect_specified_data": {"histogram_regular": 1}},
            TypeError,
            r"argument 'collect_specified_data\[\"histogram_regular\"\]' must be of type 'str', but got 1",
        ),
        (
            {"collect_specified_data": {"histogram_regular": "("}},
            ValueError,
            r"argument 'collect_specified_data\[\"histogram_regular\"\]' must be a valid regular expression, but got '\('",
        ),
        (
            {"collect_specified_data": {"collect_landscape": []}},
            TypeError,
            r"argument 'collect_specified_data\[\"collect_landscape\"\]' must be of type 'dict', but got \[\]",
        ),
        (
            {"keep_default_action": 1},
            TypeError,
            r"argument 'keep_default_action' must be a bool, but got 1",
        ),
        (
            {"custom_lineage_data": [1]},
            TypeError,
            r"argument 'custom_lineage_data' must be of type 'dict', but got \[1\]",
        ),
        (
            {"custom_lineage_data": {1: 1}},
            TypeError,
            r"keys of the argument 'custom_lineage_data' must be str, but got 1",
        ),
        (
            {"custom_lineage_data": {"a": [1]}},
            TypeError,
            r"values of the argument 'custom_lineage_data' must be int, float or str, but got \[1\]",
        ),
        (
            {"collect_tensor_freq": 0},
            ValueError,
            r"argument 'collect_tensor_freq' must be an int > 0, but got 0",
        ),
        (
            {"max_file_size": -1},
            ValueError,
            r"argument 'max_file_size' must be an int > 0, but got -1",
        ),
        (
            {"export_options": "npy"},
            TypeError,
            r"argument 'export_options' must be of type 'dict', but got 'npy'",
        ),
        (
            {"export_options": {"format": "npy"}},
            ValueError,
            r"'export_options' must have keys among \['tensor_format'\], but got the unsupported keys \['format'\]",
        ),
        (
            {"export_options": {"tensor_format": "h5"}},
            ValueError,
            r"argument 'export_options\[\"tensor_format\"\]' must be None or 'npy', but got 'h5'",
        ),
    ],
)
def test_validation(tmp_path, kwargs, error, match):
    kwargs = {"summary_dir": str(tmp_path), **kwargs}
    with pytest.raises(error, match=match):
        SummaryCollector(**kwargs)


def test_summary_dir_that_is_a_file(tmp_path):
    path = tmp_path / "file"
    path.write_text("")
    with pytest.raises(
        ValueError,
        match=r"argument 'summary_dir' must be a directory, but got the file",
    ):
        SummaryCollector(path)


def test_valid_options_are_accepted(tmp_path):
    collector = SummaryCollector(
        str(tmp_path),
        collect_freq=3,
        num_process=4,
        collect_specified_data={
            "collect_graph": False,
            "histogram_regular": "^0",
            "collect_landscape": {"unit": "step"},
        },
        custom_lineage_data={"a": 1, "b": 0.5, "c": "x"},
        collect_tensor_freq=6,
        max_file_size=1 << 20,
        export_options={"tensor_format": "npy"},
    )
    assert collector.summary_dir == str(tmp_path)
    assert collector.collect_specified_data["collect_graph"] is False
    assert collector.collect_specified_data["collect_metric"] is True


def test_an_epochs_records_reach_the_writer_as_one_batch(tmp_path):
    # 100 collection steps, more than the writer's queue holds: one publish at the
    # epoch's end (then the close), so the training thread never waits for the writer.
    model = Model(constant_network())
    batches: list[summary_writer.SummaryBatch] = []
    model.bus.subscribe(summary_writer.SummaryBatch, batches.append)
    model.train(
        1,
        ListDataset.of_steps(100),
        callbacks=SummaryCollector(tmp_path, collect_freq=1),
    )
    assert len(batches) == 2
    steps = [record.step for record in batches[0].records]
    assert steps == list(range(1, 101))
    assert batches[0].step == 1
    assert [record.close for record in batches[1].records] == [True]
    assert [s for s, _ in scalars(read(tmp_path), "train/loss")] == steps


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "values",
    [
        [-5.0, -3.0, -4.0],  # negative only: order keys of negative floats are flipped
        [-0.0, 0.0, 2.5, -1.5],
        [3e38, -3e38, 1.0],  # the extremes of float32
        [7.0],
        [1e-45, -1e-45, 0.0],  # subnormals (float32's smallest)
    ],
)
def test_histogram_extremes_match_numpy(values, dtype):
    array = np.array(values, dtype)
    hist = histogram(array)
    assert hist is not None
    assert (hist["min"], hist["max"]) == (float(array.min()), float(array.max()))
    assert hist["sum"] == pytest.approx(array.astype(np.float64).sum())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_ignores_nan_of_either_sign(dtype):
    negative_nan = -np.array(np.nan, dtype)
    array = np.array([negative_nan, 4.0, -2.0, np.nan], dtype)
    hist = histogram(array)
    assert hist is not None
    assert (hist["min"], hist["max"], hist["num"]) == (-2.0, 4.0, 2)


def test_tensorboardx_is_imported_by_the_training_thread_before_the_first_step(
    tmp_path: Path,
) -> None:
    # Importing tensorboardX imports PyTorch where it is installed (about a second of
    # CPU): it must not happen on the writer thread while the first epoch trains.
    script = f"""
import sys
from cadence import Callback, Model
from cadence.callbacks import SummaryCollector
from cadence.testing import ListDataset, constant_network

class FirstStep(Callback):
    def on_train_step_begin(self, run_context):
        if run_context.original_args().cur_step_num == 1:
            print("loaded before the first step:", "tensorboardX" in sys.modules)

assert "tensorboardX" not in sys.modules
Model(constant_network(0.5)).train(
    1, ListDataset.of_steps(2), callbacks=[SummaryCollector({str(tmp_path)!r}, collect_freq=1), FirstStep()]
)
"""
    result = run_python(script, check=True)
    assert result.stdout.splitlines() == ["loaded before the first step: True"]
