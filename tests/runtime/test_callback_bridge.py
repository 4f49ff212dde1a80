"""Legacy-alias dispatch (reference §2.2), overridden-hooks-only subscription, callback list checks."""

from __future__ import annotations

import warnings

import pytest

from cadence import CadenceWarning, Callback, LegacyHookWarning, Model
from cadence.testing import ListDataset, constant_network
from tests.helpers.models import counting_model, train_one_step


def model() -> Model:
    return counting_model(eval_loss=0.0)


def run_all(cb: Callback) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LegacyHookWarning)
        m = model()
        m.train(1, ListDataset.of_steps(2), callbacks=cb)
        m.eval(ListDataset.of_steps(1), callbacks=cb)


def test_legacy_step_end_fires_for_train_and_eval_steps():
    calls: list[str] = []

    class Legacy(Callback):
        def step_end(self, run_context):
            calls.append(run_context.original_args().mode)

    run_all(Legacy())
    assert calls == ["train", "train", "eval"]


def test_new_hook_wins_in_training_legacy_still_runs_in_eval():
    calls: list[str] = []

    class Both(Callback):
        def on_train_step_end(self, run_context):
            calls.append("on_train_step_end")

        def step_end(self, run_context):
            calls.append("step_end")

    run_all(Both())
    assert calls == ["on_train_step_end", "on_train_step_end", "step_end"]


@pytest.mark.parametrize(
    ("legacy", "train_hook", "eval_hook"),
    [
        ("begin", "on_train_begin", "on_eval_begin"),
        ("epoch_begin", "on_train_epoch_begin", "on_eval_epoch_begin"),
        ("step_begin", "on_train_step_begin", "on_eval_step_begin"),
        ("epoch_end", "on_train_epoch_end", "on_eval_epoch_end"),
        ("end", "on_train_end", "on_eval_end"),
    ],
)
def test_every_legacy_alias_maps_to_a_train_and_an_eval_hook(
    legacy, train_hook, eval_hook
):
    calls: list[str] = []
    cls = type(
        "Legacy",
        (Callback,),
        {legacy: lambda self, rc: calls.append(rc.original_args().mode)},
    )
    run_all(cls())
    assert calls.count("train") >= 1 and calls.count("eval") == 1


def test_inherited_legacy_methods_run_without_a_warning():
    class Base(Callback):
        def step_end(self, run_context):
            pass

    class Child(Base):
        pass

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        train_one_step(Child())


def test_own_legacy_methods_warn_in_train_eval_and_fit():
    class Legacy(Callback):
        def step_end(self, run_context):
            pass

    m = model()
    with pytest.warns(
        LegacyHookWarning,
        match=r"For Legacy callback, \['step_end'\] methods may not be supported",
    ):
        m.train(1, ListDataset.of_steps(1), callbacks=Legacy())
    with pytest.warns(LegacyHookWarning):
        m.fit(
            1, ListDataset.of_steps(1), ListDataset.of_steps(1), callbacks=Legacy()
        )  # MindSpore raises; we warn
    with pytest.warns(LegacyHookWarning):
        m.eval(ListDataset.of_steps(1), callbacks=Legacy())


def test_only_overridden_hooks_are_subscribed():
    seen: list[list[str]] = []

    class One(Callback):
        def on_train_step_end(self, run_context):
            if not seen:
                seen.append([s.name for s in m.bus.subscriptions])

    m = Model(constant_network())
    m.train(1, ListDataset.of_steps(1), callbacks=One())
    assert seen == [["One.on_train_step_end"]]
    assert m.bus.subscriptions == ()  # removed after the run


def test_instance_attribute_hooks_count_as_overrides():
    calls: list[int] = []
    cb = Callback()
    vars(cb)["on_train_step_end"] = lambda rc: calls.append(
        rc.original_args().cur_step_num
    )  # as LambdaCallback does
    Model(constant_network()).train(1, ListDataset.of_steps(2), callbacks=cb)
    assert calls == [1, 2]


def test_misspelled_hook_gets_a_warning_listing_valid_ones():
    class Typo(Callback):
        def on_train_stepend(self, run_context):
            pass

    with pytest.warns(
        CadenceWarning,
        match="Typo.on_train_stepend matches no callback hook.*Valid hooks: on_train_begin",
    ):
        train_one_step(Typo())


def test_a_built_in_subclass_overriding_a_legacy_name_its_hooks_shadow_gets_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cadence.callbacks import History, LossMonitor

    class MyLoss(LossMonitor):  # MindSpore: this step_end replaced LossMonitor's work
        def step_end(self, run_context):
            raise AssertionError("never called")

    with (
        pytest.warns(LegacyHookWarning),
        pytest.warns(
            CadenceWarning,
            match=r"^MyLoss\.step_end is never called: LossMonitor implements on_train_step_end and "
            r"on_eval_step_end itself \(MindSpore's did its work in 'step_end'\)\. Override those hooks",
        ),
    ):
        model().train(1, ListDataset.of_steps(1), callbacks=MyLoss())
    assert capsys.readouterr().out == "epoch: 1 step: 1, loss is 1.0\n"

    class MyHistory(History):  # overrides the hooks themselves: fine
        def on_train_epoch_end(self, run_context):
            super().on_train_epoch_end(run_context)

    class StepEnd(Callback):  # a legacy method of one's own callback is reached
        def step_end(self, run_context):
            pass

    class Child(StepEnd, LossMonitor):  # ...also when mixed with a built-in below it
        pass

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", LegacyHookWarning)
        model().train(1, ListDataset.of_steps(1), callbacks=[MyHistory(), StepEnd()])
    with pytest.warns(CadenceWarning, match=r"^Child\.step_end is never called"):
        model().train(1, ListDataset.of_steps(1), callbacks=Child())


def test_fit_checks_its_callbacks_once_not_again_at_each_evaluation_pass() -> None:
    from cadence.callbacks import LossMonitor

    class MyLoss(LossMonitor):
        def step_end(self, run_context):
            pass

    class Typo(Callback):
        def on_train_step_ned(self, run_context):
            pass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model().fit(
            3,
            ListDataset.of_steps(2),
            ListDataset.of_steps(1),
            callbacks=[MyLoss(), Typo()],
        )
    shadowed = [
        w for w in caught if "MyLoss.step_end is never called" in str(w.message)
    ]
    misspelled = [w for w in caught if "on_train_step_ned" in str(w.message)]
    assert len(shadowed) == 1  # three evaluation passes, one warning
    assert len(misspelled) == 1


def test_enter_returning_a_callback_replaces_it_and_anything_else_warns():
    calls: list[str] = []

    class Replacement(Callback):
        def on_train_begin(self, run_context):
            calls.append("replacement")

    class Swapper(Callback):
        def __enter__(self):
            return Replacement()

        def on_train_begin(self, run_context):
            calls.append("original")

    class Odd(Callback):
        def __enter__(self):
            return 42

    train_one_step(Swapper())
    assert calls == ["replacement"]
    with pytest.warns(
        CadenceWarning, match="return 'self' or a Callback as the enter target"
    ):
        train_one_step(Odd())


@pytest.mark.parametrize(
    ("bad", "what"),
    [
        (1, r"`callbacks` is 1 of type 'int', neither a Callback nor a list of them"),
        ("cb", r"`callbacks` is 'cb' of type 'str', neither a Callback nor a list"),
        (object(), r"`callbacks` is <object object at .*> of type 'object', neither"),
        ([Callback(), 3], r"`callbacks\[1\]` is 3 of type 'int'"),
        ((c for c in [2]), r"`callbacks\[0\]` is 2 of type 'int'"),
        (
            Callback,
            r"`callbacks` is the class Callback itself, not an instance of it\. Pass `Callback\(\)`\.$",
        ),
        (
            [Callback(), Callback],
            r"`callbacks\[1\]` is the class Callback itself, not an instance of it\. Pass `Callback\(\)`\.$",
        ),
    ],
)
def test_non_callbacks_are_rejected_saying_what_was_given(bad, what):
    # MindSpore's class and first sentence, then what was wrong.
    with pytest.raises(
        TypeError,
        match=r"^When the 'callbacks' is a list, the elements in 'callbacks' must be Callback functions: "
        + what,
    ):
        train_one_step(bad)


def test_cb_params_attribute_errors_are_key_and_attribute_errors():
    got: list[object] = []

    class Probe(Callback):
        def on_train_begin(self, run_context):
            cb = run_context.original_args()
            got.append(hasattr(cb, "net_outputs"))
            got.append(getattr(cb, "net_outputs", "default"))
            cb.my_key = 7
            try:
                _ = cb.nope
            except KeyError as exc:
                got.append(isinstance(exc, AttributeError))

        def on_train_end(self, run_context):
            got.append(run_context.original_args().my_key)

    train_one_step(Probe())
    assert got == [False, "default", True, 7]


def test_run_context_checks_its_argument():
    from cadence import RunContext

    with pytest.raises(
        TypeError,
        match="The argument 'original_args' of RunContext should be dict type, but got <class 'list'>",
    ):
        RunContext([])  # type: ignore[arg-type]
    rc = RunContext({})
    assert not rc.get_stop_requested()
    rc.request_stop()
    rc.request_stop()
    assert rc.get_stop_requested()
