"""`Model.eval` called from a training callback on the same Model: a nested run, as MindSpore runs it."""

import threading

import numpy as np
import pytest

import cadence as ms
from cadence import (
    Callback,
    EvalBegin,
    EvalEnd,
    EvalStepEnd,
    Event,
    Model,
    RunEnded,
    dataset as ds,
    nn,
)
from cadence.testing import (
    BatchCounter,
    EventRecorder,
    HookRecorder,
    ListDataset,
    constant_network,
)


def blobs(n, seed):
    """Two well separated classes in 4 dimensions, batched by 8."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n).astype(np.int32)
    x = (rng.standard_normal((n, 4)) + 3.0 * labels[:, None]).astype(np.float32)
    return ds.NumpySlicesDataset({"x": x, "y": labels}, shuffle=False).batch(8)


def classifier():
    ms.set_seed(0)
    net = nn.Dense(4, 2)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), 0.1)
    return Model(net, loss, opt, metrics={"accuracy"})


def counting_model(loss=0.5, metric="batches"):
    """A Model whose evaluation counts its batches (metric `metric`) and reports `loss`."""
    return Model(
        constant_network(0.5),
        eval_network=lambda *batch: (loss, [1], [1]),
        metrics={metric: BatchCounter()},
    )


class EvalEveryEpoch(Callback):
    """The EvalCallBack of MindSpore's tutorial: evaluate every `interval` epochs, keep the best."""

    def __init__(self, model, dataset, interval=1, callbacks=None, metric="accuracy"):
        self.model, self.dataset, self.interval = model, dataset, interval
        self.callbacks, self.metric = callbacks, metric
        self.history = []
        self.best = 0.0

    def on_train_epoch_end(self, run_context):
        epoch = run_context.original_args().cur_epoch_num
        if epoch % self.interval == 0:
            acc = self.model.eval(self.dataset, callbacks=self.callbacks)[self.metric]
            self.history.append((epoch, acc))
            self.best = max(self.best, acc)


def test_an_eval_callback_records_accuracy_per_epoch_as_a_separate_eval_would():
    model = classifier()
    valid = blobs(32, seed=1)
    cb = EvalEveryEpoch(model, valid)
    model.train(3, blobs(64, seed=0), callbacks=cb)
    assert [epoch for epoch, _ in cb.history] == [1, 2, 3]
    assert all(0.0 <= acc <= 1.0 for _, acc in cb.history)
    # The last nested evaluation saw the final weights: a top-level eval agrees.
    assert model.eval(valid)["accuracy"] == pytest.approx(cb.history[-1][1])
    assert cb.best == max(acc for _, acc in cb.history)
    assert cb.best > 0.8  # separable data: the model did learn while being evaluated


def test_nested_eval_runs_its_own_callbacks_and_not_the_training_ones():
    model = counting_model(loss=0.5)
    outer, inner = HookRecorder(keys=True), HookRecorder(keys=True)
    evaluator = EvalEveryEpoch(
        model, ListDataset.of_steps(2), interval=2, callbacks=inner, metric="batches"
    )
    model.train(2, ListDataset.of_steps(3), callbacks=[outer, evaluator])

    assert not any(name.startswith("on_eval") for name in outer.names())
    assert inner.names() == [
        "__enter__",
        "on_eval_begin",
        "on_eval_epoch_begin",
        "on_eval_step_begin",
        "on_eval_step_end",
        "on_eval_step_begin",
        "on_eval_step_end",
        "on_eval_epoch_end",
        "on_eval_end",
        "__exit__",
    ]
    # Its own cb_params, counting its own steps, in eval mode.
    _, end = inner.calls[-2]
    assert (end["mode"], end["cur_step_num"], end["batch_num"]) == ("eval", 2, 2)
    assert "train_network" not in end["keys"]
    # Training's cb_params went on untouched: the step counter kept counting.
    steps = [
        info["cur_step_num"]
        for name, info in outer.calls
        if name == "on_train_step_end"
    ]
    assert steps == [1, 2, 3, 4, 5, 6]
    _, train_end = outer.calls[-2]
    assert (train_end["mode"], train_end["batch_num"]) == ("train", 3)
    assert evaluator.history == [
        (2, 2)
    ]  # evaluated after epoch 2 only, over its 2 batches


def test_events_of_a_nested_eval_carry_depth_one_and_the_run_ends_once():
    model = counting_model(loss=0.25)
    rec = EventRecorder()
    model.bus.subscribe(Event, rec)

    class Probe(Callback):
        def on_train_epoch_end(self, run_context):
            model.eval(ListDataset.of_steps(2))

    model.train(1, ListDataset.of_steps(1), callbacks=Probe())
    assert rec.names() == [
        "TrainBegin",
        "TrainEpochBegin",
        "TrainStepBegin",
        "TrainStepEnd",
        "TrainEpochEnd",
        "EvalBegin",
        "EvalEpochBegin",
        "EvalStepBegin",
        "EvalStepEnd",
        "EvalStepBegin",
        "EvalStepEnd",
        "EvalEpochEnd",
        "EvalEnd",
        "TrainEnd",
        "RunCompleted",
    ]
    evals = [e for e in rec.events if type(e).__name__.startswith("Eval")]
    assert {e.depth for e in evals} == {1}
    end = next(e for e in evals if isinstance(e, EvalEnd))
    assert (end.epoch, end.step, end.metrics) == (None, 2, {"batches": 2})
    assert [type(e).__name__ for e in rec.events if isinstance(e, RunEnded)] == [
        "RunCompleted"
    ]
    assert rec.events[-1].kind == "train"


def test_fit_passes_are_depth_zero_and_their_hooks_ignore_an_eval_nested_in_them():
    model = counting_model(loss=0.25)
    depths = []
    model.bus.subscribe(EvalBegin, lambda e: depths.append((e.epoch, e.depth)))
    outer, inner = HookRecorder(), HookRecorder()

    class EvalInsideThePass(Callback):
        def on_eval_end(self, run_context):
            model.eval(ListDataset.of_steps(3), callbacks=inner)

    model.fit(
        1,
        ListDataset.of_steps(1),
        ListDataset.of_steps(2),
        callbacks=[outer, EvalInsideThePass()],
    )
    assert depths == [(1, 0), (None, 1)]
    # The fit pass's hooks answered only their own pass (2 steps), not the nested one (3).
    assert outer.names().count("on_eval_step_end") == 2
    assert inner.names().count("on_eval_step_end") == 3


def test_a_stop_requested_in_a_nested_eval_ends_it_but_not_the_training():
    model = counting_model(loss=0.5)
    stopper = HookRecorder(on={"on_eval_step_end": lambda rc: rc.request_stop()})
    results = []

    class Evaluate(Callback):
        def on_train_epoch_end(self, run_context):
            results.append(model.eval(ListDataset.of_steps(5), callbacks=stopper))

    rec = EventRecorder()
    model.bus.subscribe(RunEnded, rec)
    model.train(2, ListDataset.of_steps(1), callbacks=Evaluate())
    assert results == [{"batches": 1}, {"batches": 1}]
    assert rec.names() == ["RunCompleted"]


def test_a_failing_nested_eval_fails_the_training_run_with_its_exception():
    def broken(*batch):
        raise ZeroDivisionError("eval network broke")

    model = Model(
        constant_network(0.5), eval_network=broken, metrics={"b": BatchCounter()}
    )
    inner = HookRecorder()

    class Evaluate(Callback):
        def on_train_epoch_end(self, run_context):
            model.eval(ListDataset.of_steps(1), callbacks=inner)

    rec = EventRecorder()
    model.bus.subscribe(RunEnded, rec)
    with pytest.raises(ZeroDivisionError, match="eval network broke"):
        model.train(1, ListDataset.of_steps(1), callbacks=Evaluate())
    assert inner.names()[-1] == "__exit__"
    assert rec.names() == ["RunFailed"]
    assert rec.events[0].kind == "train"


def test_the_nested_eval_gives_the_network_back_in_training_mode():
    modes = []

    class Net:
        def set_train(self, mode=True):
            modes.append(mode)

        def __call__(self, *batch):
            return 0.5

    net = Net()
    model = Model(net, eval_network=net, metrics={"b": BatchCounter()})
    modes_at_steps = []

    class Evaluate(Callback):
        def on_train_step_begin(self, run_context):
            modes_at_steps.append(modes[-1])

        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 1:
                model.eval(ListDataset.of_steps(1))

    model.train(1, ListDataset.of_steps(2), callbacks=Evaluate())
    assert modes_at_steps == [True, True]
    assert False in modes  # the evaluation did switch it to inference


def test_train_inside_a_callback_and_eval_from_another_thread_are_still_refused():
    model = counting_model(loss=0.5, metric="b")
    errors = []

    def eval_elsewhere():
        try:
            model.eval(ListDataset.of_steps(1))
        except RuntimeError as exc:
            errors.append(str(exc))

    class Misuse(Callback):
        def on_train_epoch_end(self, run_context):
            with pytest.raises(RuntimeError, match="This Model is already running"):
                model.train(1, ListDataset.of_steps(1))
            worker = threading.Thread(target=eval_elsewhere)
            worker.start()
            worker.join(timeout=10)
            assert not worker.is_alive()

    model.train(1, ListDataset.of_steps(1), callbacks=Misuse())
    assert len(errors) == 1 and "already running" in errors[0]
    assert model.eval(ListDataset.of_steps(1)) == {"b": 1}  # usable again afterwards


def test_events_distinguish_depth_in_worker_subscribers_too():
    model = counting_model(loss=0.5, metric="b")
    seen = []

    async def record(event):
        seen.append((type(event).__name__, event.depth))

    model.bus.subscribe(EvalStepEnd, record, mode="worker")

    class Evaluate(Callback):
        def on_train_epoch_end(self, run_context):
            model.eval(ListDataset.of_steps(2))

    model.fit(1, ListDataset.of_steps(1), ListDataset.of_steps(1), callbacks=Evaluate())
    assert seen == [("EvalStepEnd", 0), ("EvalStepEnd", 1), ("EvalStepEnd", 1)]


def test_model_of_a_non_callable_names_the_received_type():
    with pytest.raises(TypeError, match="but got 1 of type 'int'"):
        Model(1)  # type: ignore[arg-type]
