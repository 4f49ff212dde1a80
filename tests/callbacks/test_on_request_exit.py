"""OnRequestExit: validation, a real signal stops training at the next step boundary, saves, ends cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Callback, Model, RunContext
from cadence.callbacks import CheckpointWarning, OnRequestExit
from cadence.testing import (
    HookRecorder,
    small_regression_dataset as dataset,
    small_regression_model as make_model,
)


class SendSignal(Callback):
    """Send `sig` to this process at the end of global step `step` (of the first run)."""

    def __init__(
        self, step: int, sig: int = signal.SIGTERM, hook: str = "train"
    ) -> None:
        self.step, self.sig, self.hook = step, sig, hook

    def _maybe(self, run_context: RunContext) -> None:
        if run_context.original_args().cur_step_num == self.step:
            os.kill(os.getpid(), self.sig)

    def on_train_step_end(self, run_context: RunContext) -> None:
        if self.hook == "train":
            self._maybe(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        if self.hook == "eval":
            self._maybe(run_context)


def steps_run(
    recorder: HookRecorder, hook: str = "on_train_step_end"
) -> list[tuple[int, int]]:
    return [
        (i["cur_epoch_num"], i["cur_step_num"]) for n, i in recorder.calls if n == hook
    ]


# --- validation ---------------------------------------------------------------------------------


def test_validation(tmp_path: Any) -> None:
    d = str(tmp_path)
    with pytest.raises(
        ValueError,
        match=r"For 'OnRequestExit', the argument 'save_ckpt' must be a bool, but got 1 of type 'int'",
    ):
        OnRequestExit(save_ckpt=1, directory=d)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=r"argument 'save_mindir' must be a bool, but got 'y'"
    ):
        OnRequestExit(save_mindir="y", directory=d)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError,
        match=r"argument 'sig' must be a signal number .* but got '15' of type 'str'",
    ):
        OnRequestExit(sig="15", directory=d)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError,
        match=r"argument 'sig' cannot be SIGKILL: that signal cannot be caught",
    ):
        OnRequestExit(sig=signal.SIGKILL, directory=d)
    with pytest.raises(
        ValueError, match=r"argument 'sig' must be a valid signal number, but got 999"
    ):
        OnRequestExit(sig=999, directory=d)
    with pytest.raises(
        TypeError, match=r"argument 'directory' must be a str, but got 1 of type 'int'"
    ):
        OnRequestExit(directory=1)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"argument 'file_name' must be a str, but got 1 of type 'int'"
    ):
        OnRequestExit(file_name=1, directory=d)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"argument 'config_file' must be None or a str, but got 1"
    ):
        OnRequestExit(config_file=1, directory=d)  # type: ignore[arg-type]


def test_constructor_creates_rank_directory(tmp_path: Any) -> None:
    cb = OnRequestExit(directory=str(tmp_path), file_name="Mine")
    assert (tmp_path / "rank_0").is_dir()
    assert cb.train_name == str(tmp_path / "rank_0" / "Mine_train")
    assert cb.eval_name == str(tmp_path / "rank_0" / "Mine_eval")


# --- the signal ------------------------------------------------------------------------------------


def test_sigterm_stops_at_the_step_boundary_and_saves(tmp_path: Any) -> None:
    model = make_model()
    recorder = HookRecorder()
    before = signal.getsignal(signal.SIGTERM)
    exit_cb = OnRequestExit(directory=str(tmp_path), save_mindir=False)
    model.train(3, dataset(), callbacks=[SendSignal(2), exit_cb, recorder])
    assert steps_run(recorder) == [(1, 1), (1, 2)]
    names = recorder.names()
    assert names[-3:] == ["on_train_epoch_end", "on_train_end", "__exit__"]
    assert signal.getsignal(signal.SIGTERM) == before
    saved = ms.load_checkpoint(str(tmp_path / "rank_0" / "Net_train.ckpt"))
    for _name, param in model.train_network.parameters_and_names():  # type: ignore[attr-defined]
        value = saved[param.name]
        assert not isinstance(value, str)
        np.testing.assert_array_equal(value.asnumpy(), param.asnumpy())


def test_signal_before_the_callback_in_the_list_acts_on_the_same_step(
    tmp_path: Any,
) -> None:
    recorder = HookRecorder()
    model = make_model()
    model.train(
        2,
        dataset(),
        callbacks=[
            OnRequestExit(directory=str(tmp_path), save_mindir=False),
            SendSignal(4),
            recorder,
        ],
    )
    # The signal arrived after OnRequestExit's hook of step 4: it stops after step 5 at the latest.
    assert steps_run(recorder)[-1] in {(2, 4), (2, 5)}


def test_no_signal_no_file(tmp_path: Any) -> None:
    make_model().train(1, dataset(), callbacks=[OnRequestExit(directory=str(tmp_path))])
    assert os.listdir(tmp_path / "rank_0") == []


def test_save_ckpt_false_saves_nothing(tmp_path: Any) -> None:
    make_model().train(
        2,
        dataset(),
        callbacks=[
            SendSignal(1),
            OnRequestExit(save_ckpt=False, save_mindir=False, directory=str(tmp_path)),
        ],
    )
    assert os.listdir(tmp_path / "rank_0") == []


def test_save_mindir_warns_once(tmp_path: Any) -> None:
    exit_cb = OnRequestExit(directory=str(tmp_path))
    with pytest.warns(
        CheckpointWarning,
        match=r"cadence has no MindIR exporter, so no \.mindir file was written",
    ):
        make_model().train(2, dataset(), callbacks=[SendSignal(1), exit_cb])
    make_model().train(
        2, dataset(), callbacks=[SendSignal(1), exit_cb]
    )  # no second warning (filterwarnings=error)
    assert sorted(os.listdir(tmp_path / "rank_0")) == ["Net_train.ckpt"]


def test_custom_signal(tmp_path: Any) -> None:
    recorder = HookRecorder()
    make_model().train(
        2,
        dataset(),
        callbacks=[
            SendSignal(1, signal.SIGUSR1),
            OnRequestExit(
                directory=str(tmp_path), save_mindir=False, sig=signal.SIGUSR1
            ),
            recorder,
        ],
    )
    assert steps_run(recorder) == [(1, 1)]


def stopped_by_a_signal(
    model: Model, directory: Any, epochs: int, step: int
) -> dict[str, Any]:
    """Train until SIGTERM at `step` stops the run and OnRequestExit saves; return the weights by parameter name."""
    model.train(
        epochs,
        dataset(),
        callbacks=[
            SendSignal(step),
            OnRequestExit(directory=str(directory), save_mindir=False),
        ],
    )
    network: Any = model.train_network
    return {p.name: p.asnumpy().copy() for p in network.get_parameters()}


def test_next_run_loads_the_saved_checkpoint(tmp_path: Any) -> None:
    stopped = stopped_by_a_signal(make_model(), tmp_path, epochs=2, step=2)
    second = make_model()
    seen: dict[str, Any] = {}

    class Look(Callback):
        def on_train_epoch_begin(self, run_context: RunContext) -> None:
            if not seen:
                net = run_context.original_args().train_network
                seen.update({p.name: p.asnumpy().copy() for p in net.get_parameters()})

    second.train(
        1,
        dataset(),
        callbacks=[OnRequestExit(directory=str(tmp_path), save_mindir=False), Look()],
    )
    for name, value in stopped.items():
        np.testing.assert_array_equal(seen[name], value)
    # save_ckpt=False loads nothing, as MindSpore: the run starts from its own weights.
    seen.clear()
    third = make_model()
    network: Any = third.train_network
    own = {p.name: p.asnumpy().copy() for p in network.get_parameters()}
    third.train(
        1,
        dataset(),
        callbacks=[
            OnRequestExit(directory=str(tmp_path), save_ckpt=False, save_mindir=False),
            Look(),
        ],
    )
    assert seen.keys() == own.keys()
    for name, value in own.items():
        np.testing.assert_array_equal(seen[name], value)
    assert any(not np.array_equal(own[n], stopped[n]) for n in stopped)


def test_signal_during_fit_evaluation_stops_the_pass_and_training(
    tmp_path: Any,
) -> None:
    recorder = HookRecorder()
    model = make_model(metrics={"loss"})
    model.fit(
        3,
        dataset(),
        dataset(3),
        callbacks=[
            SendSignal(1, hook="eval"),
            OnRequestExit(directory=str(tmp_path), save_mindir=False),
            recorder,
        ],
    )
    assert steps_run(recorder, "on_eval_step_end") == [(1, 1)]
    assert steps_run(recorder) == [(1, 1), (1, 2), (1, 3)]
    assert (tmp_path / "rank_0" / "Net_train.ckpt").exists()


def test_signal_during_model_eval_stops_it_and_saves_the_eval_network(
    tmp_path: Any,
) -> None:
    recorder = HookRecorder()
    model = make_model(metrics={"loss"})
    before = signal.getsignal(signal.SIGTERM)
    exit_cb = OnRequestExit(directory=str(tmp_path), save_mindir=False)
    installed: list[Any] = []

    class Probe(Callback):
        def on_eval_begin(self, run_context: RunContext) -> None:
            installed.append(signal.getsignal(signal.SIGTERM))

    model.eval(
        dataset(3), callbacks=[SendSignal(1, hook="eval"), exit_cb, Probe(), recorder]
    )
    assert installed == [exit_cb._handle]  # installed at on_eval_begin, as MindSpore
    assert signal.getsignal(signal.SIGTERM) == before  # and put back after
    assert [
        i["cur_step_num"] for n, i in recorder.calls if n == "on_eval_step_end"
    ] == [1]
    assert exit_cb.exit and exit_cb.exit_requested  # MindSpore's attribute name too
    saved: Any = ms.load_checkpoint(str(tmp_path / "rank_0" / "Net_eval.ckpt"))
    network: Any = model.eval_network
    for param in network.get_parameters():
        np.testing.assert_array_equal(saved[param.name].asnumpy(), param.asnumpy())
    assert not (tmp_path / "rank_0" / "Net_train.ckpt").exists()


def test_model_eval_loads_the_eval_file_else_the_train_file(tmp_path: Any) -> None:
    weights = stopped_by_a_signal(
        make_model(metrics={"loss"}), tmp_path, epochs=1, step=1
    )
    seen: dict[str, Any] = {}

    class Look(Callback):
        def on_eval_epoch_begin(self, run_context: RunContext) -> None:
            net = run_context.original_args().eval_network
            seen.clear()
            seen.update({p.name: p.asnumpy().copy() for p in net.get_parameters()})

    fresh = make_model(metrics={"loss"})
    callback = OnRequestExit(directory=str(tmp_path), save_mindir=False)
    fresh.eval(dataset(), callbacks=[callback, Look()])
    assert seen and all(np.array_equal(v, weights[n]) for n, v in seen.items())
    assert not callback.exit_requested
    # An eval file, once there, wins over the train file.
    eval_file = tmp_path / "rank_0" / "Net_eval.ckpt"
    ms.save_checkpoint(
        [{"name": n, "data": ms.Tensor(np.zeros_like(v))} for n, v in seen.items()],
        str(eval_file),
    )
    fresh.eval(dataset(), callbacks=[callback, Look()])
    assert all(not v.any() for v in seen.values())
    # save_ckpt=False loads nothing, as MindSpore.
    third = make_model(metrics={"loss"})
    third.eval(
        dataset(),
        callbacks=[
            OnRequestExit(directory=str(tmp_path), save_ckpt=False, save_mindir=False),
            Look(),
        ],
    )
    assert any(v.any() for v in seen.values())


def test_outside_the_main_thread_it_warns_and_installs_nothing(tmp_path: Any) -> None:
    before = signal.getsignal(signal.SIGTERM)
    caught: list[BaseException] = []
    seen: list[Any] = []

    class Look(Callback):
        def on_train_step_end(self, run_context: RunContext) -> None:
            seen.append(signal.getsignal(signal.SIGTERM))

    def run() -> None:
        try:
            with pytest.warns(
                CheckpointWarning,
                match=r"cannot install a handler for SIGTERM: training runs outside the main thread",
            ):
                make_model().train(
                    1,
                    dataset(),
                    callbacks=[OnRequestExit(directory=str(tmp_path)), Look()],
                )
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert caught == []
    assert seen == [before] * 3


def test_request_exit_without_a_signal(tmp_path: Any) -> None:
    exit_cb = OnRequestExit(directory=str(tmp_path), save_mindir=False)
    recorder = HookRecorder(
        on={"on_train_step_begin": lambda rc: exit_cb.request_exit()}
    )
    make_model().train(2, dataset(), callbacks=[recorder, exit_cb])
    assert steps_run(recorder) == [(1, 1)]


# --- a signal from another process ------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from cadence import Callback
    from cadence.callbacks import OnRequestExit
    from cadence.testing import small_regression_dataset, small_regression_model

    directory, ready = sys.argv[1], sys.argv[2]
    model = small_regression_model()
    data = small_regression_dataset()

    class Slow(Callback):
        def on_train_step_end(self, run_context):
            cb = run_context.original_args()
            if cb.cur_step_num == 2:
                open(ready, "w").close()
            time.sleep(0.01)

    model.train(100000, data, callbacks=[OnRequestExit(directory=directory, save_mindir=False), Slow()])
    print("returned", flush=True)
    """
)


@pytest.mark.slow
def test_sigterm_from_another_process(tmp_path: Any) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    ready = tmp_path / "ready"
    child = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), str(ready)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the child never reached step 2"
            time.sleep(0.01)
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert out == "returned\n"
    assert (tmp_path / "rank_0" / "Net_train.ckpt").exists()
