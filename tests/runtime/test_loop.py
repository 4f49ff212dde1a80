"""Hook traces, cb_params keys and counters of Model.train/fit/eval (reference §5)."""

from __future__ import annotations

from typing import Any

import pytest

from cadence import Model
from cadence.testing import HookRecorder, ListDataset, constant_network
from tests.helpers.models import counting_model

STEP = ["on_train_step_begin", "on_train_step_end"]
EVAL_PASS = (
    ["__enter__", "on_eval_begin", "on_eval_epoch_begin"]
    + ["on_eval_step_begin", "on_eval_step_end"] * 2
    + ["on_eval_epoch_end", "on_eval_end", "__exit__"]
)


def eval_model() -> Model:
    return counting_model(constant_network(0.5), eval_loss=0.25)


def test_train_trace(three_steps):
    rec = HookRecorder()
    Model(constant_network()).train(2, three_steps, callbacks=rec)
    epoch = ["on_train_epoch_begin", *STEP * 3, "on_train_epoch_end"]
    assert rec.names() == [
        "__enter__",
        "on_train_begin",
        *epoch * 2,
        "on_train_end",
        "__exit__",
    ]


def test_fit_trace(three_steps, two_steps):
    rec = HookRecorder()
    eval_model().fit(2, three_steps, two_steps, callbacks=[rec])
    epoch = ["on_train_epoch_begin", *STEP * 3, *EVAL_PASS, "on_train_epoch_end"]
    assert rec.names() == [
        "__enter__",
        "on_train_begin",
        *epoch * 2,
        "on_train_end",
        "__exit__",
    ]


def test_eval_trace_and_result(two_steps):
    rec = HookRecorder()
    assert eval_model().eval(two_steps, callbacks=rec) == {"n": 2.0}
    assert rec.names() == EVAL_PASS


def test_fit_valid_frequency_int_and_list(three_steps, two_steps):
    for freq, expected in ((2, [2, 4]), ([1, 3], [1, 3])):
        rec = HookRecorder()
        eval_model().fit(4, three_steps, two_steps, valid_frequency=freq, callbacks=rec)
        epochs = [
            info["cur_epoch_num"] for name, info in rec.calls if name == "on_eval_begin"
        ]
        assert epochs == expected


TRAIN_KEYS = sorted(
    [
        "batch_num",
        "cur_step_num",
        "dataset_sink_mode",
        "device_number",
        "epoch_num",
        "initial_step",
        "last_save_ckpt_step",
        "latest_ckpt_file",
        "list_callback",
        "loss_fn",
        "loss_scale_mananger",
        "loss_scale_manager",
        "mode",
        "network",
        "optimizer",
        "parallel_mode",
        "train_dataset",
        "train_dataset_element",
        "train_network",
    ]
)


def keys_at(rec: HookRecorder, hook: str, index: int = 0) -> Any:
    return [info["keys"] for name, info in rec.calls if name == hook][index]


def test_cb_params_keys_per_phase_of_train(three_steps):
    rec = HookRecorder(keys=True)
    Model(constant_network()).train(2, three_steps, callbacks=rec)
    assert keys_at(rec, "on_train_begin") == TRAIN_KEYS
    assert keys_at(rec, "on_train_epoch_begin") == sorted(
        [*TRAIN_KEYS, "cur_epoch_num"]
    )
    assert "net_outputs" not in keys_at(rec, "on_train_step_begin")
    assert keys_at(rec, "on_train_step_end") == sorted(
        [*TRAIN_KEYS, "cur_epoch_num", "net_outputs"]
    )
    assert keys_at(rec, "on_train_end") == sorted(
        [*TRAIN_KEYS, "cur_epoch_num", "net_outputs"]
    )


def test_cb_params_keys_of_eval(two_steps):
    rec = HookRecorder(keys=True)
    eval_model().eval(two_steps, callbacks=rec)
    base = [
        "batch_num",
        "cur_step_num",
        "dataset_sink_mode",
        "eval_network",
        "list_callback",
        "mode",
        "network",
        "valid_dataset",
    ]
    assert keys_at(rec, "on_eval_begin") == base
    assert keys_at(rec, "on_eval_step_begin") == sorted([*base, "eval_dataset_element"])
    assert keys_at(rec, "on_eval_epoch_end") == sorted(
        [*base, "eval_dataset_element", "net_outputs"]
    )
    assert keys_at(rec, "on_eval_end") == sorted(
        [*base, "eval_dataset_element", "metrics", "net_outputs"]
    )


def test_fit_adds_eval_keys_and_pops_metrics_after_epoch_end(three_steps, two_steps):
    seen: dict[str, Any] = {}

    def at_epoch_end(rc):
        cb = rc.original_args()
        seen.setdefault("epoch_end", (dict(cb["metrics"]), dict(cb["eval_results"])))

    def at_eval_end(rc):  # both keys exist from on_eval_end of the pass on (MindSpore)
        cb = rc.original_args()
        seen.setdefault("eval_end", (dict(cb["metrics"]), dict(cb["eval_results"])))

    def at_next_begin(rc):
        if rc.original_args().cur_epoch_num == 2:
            seen["next_begin_keys"] = sorted(rc.original_args())

    rec = HookRecorder(
        on={
            "on_train_epoch_end": at_epoch_end,
            "on_train_epoch_begin": at_next_begin,
            "on_eval_end": at_eval_end,
        }
    )
    eval_model().fit(2, three_steps, two_steps, callbacks=rec)
    metrics, results = seen["epoch_end"]
    assert metrics == {"n": 2.0}
    assert results == {"n": 2.0, "eval_loss": 0.25}
    assert seen["eval_end"] == (metrics, results)
    keys = seen["next_begin_keys"]
    assert {"eval_network", "valid_dataset", "eval_dataset_element"} <= set(keys)
    assert "metrics" not in keys and "eval_results" not in keys


def test_counters_follow_mindspore(three_steps, two_steps):
    rec = HookRecorder()
    eval_model().fit(2, three_steps, two_steps, callbacks=rec)
    steps = [
        (i["cur_epoch_num"], i["cur_step_num"], i["batch_num"], i["mode"])
        for n, i in rec.calls
        if n == "on_train_step_end"
    ]
    assert steps == [
        (1, 1, 3, "train"),
        (1, 2, 3, "train"),
        (1, 3, 3, "train"),
        (2, 4, 3, "train"),
        (2, 5, 3, "train"),
        (2, 6, 3, "train"),
    ]
    evals = [
        (i["cur_epoch_num"], i["cur_step_num"], i["batch_num"], i["mode"])
        for n, i in rec.calls
        if n == "on_eval_step_end"
    ]
    assert evals[:2] == [(1, 1, 2, "eval"), (1, 2, 2, "eval")]
    after = [
        (i["cur_step_num"], i["batch_num"], i["mode"])
        for n, i in rec.calls
        if n == "on_train_epoch_end"
    ]
    assert after == [(3, 3, "train"), (6, 3, "train")]


def test_initial_epoch_numbers_epochs_and_restarts_steps(three_steps):
    rec = HookRecorder(keys=True)
    Model(constant_network()).train(3, three_steps, callbacks=rec, initial_epoch=1)
    begins = [
        (i["cur_epoch_num"], i["cur_step_num"])
        for n, i in rec.calls
        if n == "on_train_step_begin"
    ]
    assert begins[0] == (2, 1) and begins[-1] == (3, 6)
    seen: list[int] = []
    Model(constant_network()).train(
        3,
        three_steps,
        callbacks=HookRecorder(
            on={"on_train_begin": lambda rc: seen.append(rc.original_args().epoch_num)}
        ),
        initial_epoch=1,
    )
    assert seen == [2]


def test_sink_size_sets_batch_num_only():
    rec = HookRecorder()
    Model(constant_network()).train(
        1, ListDataset.of_steps(3), callbacks=rec, dataset_sink_mode=True, sink_size=1
    )
    steps = [i["batch_num"] for n, i in rec.calls if n == "on_train_step_end"]
    assert steps == [1, 1, 1]


def test_net_outputs_and_batch_reach_callbacks(three_steps):
    got: list[tuple[object, object]] = []
    rec = HookRecorder(
        on={
            "on_train_step_end": lambda rc: got.append(
                (
                    rc.original_args().net_outputs,
                    rc.original_args().train_dataset_element,
                )
            )
        }
    )
    Model(constant_network(0.75)).train(1, three_steps, callbacks=rec)
    assert got[0] == (0.75, [1.0, 1.0])
    assert got[2] == (0.75, [3.0, 3.0])


def test_callbacks_as_one_list_tuple_or_generator(three_steps):
    for make in (
        lambda r: r[0],
        lambda r: list(r),
        lambda r: tuple(r),
        lambda r: (x for x in r),
    ):
        recs = [HookRecorder(), HookRecorder()]
        Model(constant_network()).train(1, three_steps, callbacks=make(recs))
        assert recs[0].names()[1] == "on_train_begin"


def test_callbacks_run_in_list_order(three_steps):
    order: list[str] = []
    a = HookRecorder(on={"on_train_step_end": lambda rc: order.append("a")})
    b = HookRecorder(on={"on_train_step_end": lambda rc: order.append("b")})
    Model(constant_network()).train(1, three_steps, callbacks=[b, a])
    assert order == ["b", "a"] * 3


def test_predict_calls_the_network():
    assert Model(lambda x: x * 2).predict(21) == 42


def test_loss_fn_requires_two_columns():
    model = Model(constant_network())
    vars(model)["_loss_fn"] = (
        object()
    )  # as if built with a loss: checked per batch like MindSpore
    with pytest.raises(
        ValueError, match="'train_dataset' should return two elements, but got 3"
    ):
        model.train(1, ListDataset.of_steps(1, columns=3))


class _StepEndBoom(HookRecorder):
    def on_train_step_end(self, run_context: Any) -> None:
        if run_context.original_args().cur_step_num == 2:
            raise RuntimeError("boom")


def test_step_end_event_is_built_only_for_subscribers_that_receive_it(
    three_steps, monkeypatch
):
    import cadence.training._loop as loop
    from cadence import TrainStepEnd

    built: list[Any] = []
    make = loop._train_step_end

    def recording(*args: Any) -> Any:
        built.append(make(*args))
        return built[-1]

    monkeypatch.setattr(loop, "_train_step_end", recording)
    model = Model(constant_network(0.5))
    model.train(1, three_steps, callbacks=HookRecorder())
    assert built == []  # Callback hooks receive the RunContext, never the event
    seen: list[Any] = []
    model.bus.subscribe(TrainStepEnd, seen.append)
    model.train(1, three_steps, callbacks=HookRecorder())
    assert [(e.step, e.loss) for e in seen] == [(1, 0.5), (2, 0.5), (3, 0.5)]
    assert seen == built


def test_failing_step_hook_note_names_the_step_end_event(three_steps):
    with pytest.raises(RuntimeError, match="boom") as info:
        Model(constant_network(0.5)).train(1, three_steps, callbacks=_StepEndBoom())
    assert any(
        "_StepEndBoom.on_train_step_end" in note
        and "TrainStepEnd(epoch=1, step=2" in note
        for note in info.value.__notes__
    ), info.value.__notes__
