"""ModelCheckpoint: construction, triggers, naming, retention, and every listing of reference §7.3.4.

Also append_info, breakpoint files, and cadence's additions (atomic writes, the
`latest_checkpoint`, CheckpointSaved, deletion gates, top-k, background writing).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import Callback, CheckpointSaved, Model, RunContext, nn
from cadence.callbacks import (
    CheckpointConfig,
    CheckpointWarning,
    ModelCheckpoint,
    latest_checkpoint,
)
from cadence.dataset import NumpySlicesDataset
from cadence.testing import (
    small_regression_dataset as dataset,
    small_regression_model as make_model,
)
from tests.helpers.failures import CrashAt


def array(loaded: dict[str, Any], key: str) -> Any:
    """The numpy value of a numeric checkpoint entry."""
    value = loaded[key]
    assert not isinstance(value, str)
    return value.asnumpy()


def listing(directory: Any) -> list[str]:
    """Every entry of a directory, sorted: a checkpoint directory holds only checkpoints, as MindSpore's."""
    return sorted(os.listdir(directory))


def train(
    directory: Any, epochs: int = 2, steps: int = 3, prefix: Any = "CKP", **config: Any
) -> ModelCheckpoint:
    ckpt = ModelCheckpoint(
        prefix=prefix,
        directory=directory
        if isinstance(directory, str) or callable(directory)
        else str(directory),
        config=CheckpointConfig(**config),
    )
    make_model().train(epochs, dataset(steps), callbacks=[ckpt])
    return ckpt


# --- §7.3.4 directory listings ---------------------------------------------------------------

# The default config over 2 epochs of 3 steps: a file every step, the newest 5 kept.
TWO_EPOCHS_DEFAULT = [
    "CKP-1_2.ckpt",
    "CKP-1_3.ckpt",
    "CKP-2_1.ckpt",
    "CKP-2_2.ckpt",
    "CKP-2_3.ckpt",
]


def test_default_config_two_epochs(tmp_path: Any) -> None:
    ckpt = train(tmp_path)
    assert listing(tmp_path) == TWO_EPOCHS_DEFAULT
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "CKP-2_3.ckpt")


def test_second_instance_in_same_directory(tmp_path: Any) -> None:
    train(tmp_path)
    second = train(tmp_path)
    assert second.prefix == "CKP_1"
    assert listing(tmp_path) == [
        "CKP-1_2.ckpt", "CKP-1_3.ckpt", "CKP-2_1.ckpt", "CKP-2_2.ckpt", "CKP-2_3.ckpt",
        "CKP_1-1_2.ckpt", "CKP_1-1_3.ckpt", "CKP_1-2_1.ckpt", "CKP_1-2_2.ckpt", "CKP_1-2_3.ckpt",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("steps_per_save", "epochs", "steps", "expected"),
    [
        (2, 2, 3, ["CKP-1_2.ckpt", "CKP-2_1.ckpt", "CKP-2_3.ckpt"]),
        (2, 1, 5, ["CKP-1_2.ckpt", "CKP-1_4.ckpt", "CKP-1_5.ckpt"]),
        (4, 2, 3, ["CKP-2_1.ckpt", "CKP-2_3.ckpt"]),
    ],
)
def test_save_every_n_steps(
    tmp_path: Any, steps_per_save: int, epochs: int, steps: int, expected: list[str]
) -> None:
    train(tmp_path, epochs, steps, save_checkpoint_steps=steps_per_save)
    assert listing(tmp_path) == expected


def test_keep_max_two(tmp_path: Any) -> None:
    train(tmp_path, keep_checkpoint_max=2)
    assert listing(tmp_path) == ["CKP-2_2.ckpt", "CKP-2_3.ckpt"]


def test_pre_existing_files_untouched(tmp_path: Any) -> None:
    for name in ("other-1_1.ckpt", "CKP-9_9.ckpt", "CKPfoo-1_1.ckpt", "CKP-a_1.ckpt"):
        (tmp_path / name).write_bytes(b"x")
    ckpt = train(tmp_path, epochs=1, keep_checkpoint_max=2)
    assert ckpt.prefix == "CKP_1"
    assert listing(tmp_path) == [
        "CKP-9_9.ckpt", "CKP-a_1.ckpt", "CKP_1-1_2.ckpt", "CKP_1-1_3.ckpt", "CKPfoo-1_1.ckpt", "other-1_1.ckpt",
    ]  # fmt: skip


class FakeClock:
    """A clock a callback advances by `step_s` at every step end, before ModelCheckpoint looks at it."""

    def __init__(self, step_s: float) -> None:
        self.now = 0.0
        self.step_s = step_s

    def __call__(self) -> float:
        return self.now


class Tick(Callback):
    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def on_train_step_end(self, run_context: RunContext) -> None:
        self.clock.now += self.clock.step_s


def test_save_every_n_seconds(tmp_path: Any) -> None:
    clock = FakeClock(0.4)
    ckpt = ModelCheckpoint(
        directory=str(tmp_path),
        config=CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=1),
    )
    ckpt._clock = (
        clock  # seconds are measured on this clock (time.monotonic by default)
    )
    make_model().train(2, dataset(), callbacks=[Tick(clock), ckpt])
    assert listing(tmp_path) == ["CKP-1_3.ckpt", "CKP-2_3.ckpt"]


def test_steps_and_seconds_zero_never_save(tmp_path: Any) -> None:
    train(tmp_path, save_checkpoint_steps=0, save_checkpoint_seconds=0)
    assert os.listdir(tmp_path) == []


def test_keep_one_per_minute(tmp_path: Any) -> None:
    train(tmp_path, keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=1)
    assert listing(tmp_path) == ["CKP-1_1.ckpt", "CKP-2_3.ckpt"]


def test_keep_per_minutes_measures_from_the_previous_save(tmp_path: Any) -> None:
    # MindSpore's rule: at each save, if the previous save is less than n minutes ago,
    # delete the files younger than n minutes except the oldest of them; every save
    # restarts the interval. A save every 10 s of a fake wall clock, n = 1 minute.
    start = time.time()
    clock = FakeClock(10.0)
    clock.now = start
    ckpt = ModelCheckpoint(
        directory=str(tmp_path),
        config=CheckpointConfig(keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=1),
    )
    ckpt._wall = lambda: clock.now
    ckpt._last_time_for_keep = start

    class Stamp(
        Callback
    ):  # after the checkpoint: commit it and date it by the fake clock
        def on_train_step_end(self, run_context: RunContext) -> None:
            path = ckpt.latest_ckpt_file_name
            os.utime(path, (clock.now, clock.now))

    class Advance(Callback):  # first: each step happens 10 s after the previous one
        def on_train_step_begin(self, run_context: RunContext) -> None:
            clock.now += clock.step_s

    make_model().train(1, dataset(7), callbacks=[Advance(), ckpt, Stamp()])
    # Saves at 10..70 s: 1_1 is kept as the oldest young file until it is 60 s old;
    # the save at 70 s keeps 1_6, the oldest file then younger than a minute.
    assert listing(tmp_path) == ["CKP-1_1.ckpt", "CKP-1_6.ckpt", "CKP-1_7.ckpt"]


def test_keep_per_minutes_keeps_files_older_than_the_interval(tmp_path: Any) -> None:
    # Files older than n minutes are never thinned.
    ckpt = ModelCheckpoint(
        directory=str(tmp_path),
        config=CheckpointConfig(keep_checkpoint_max=0, keep_checkpoint_per_n_minutes=1),
    )
    ckpt._wall = lambda: 1e12
    make_model().train(1, dataset(), callbacks=[ckpt])
    assert listing(tmp_path) == ["CKP-1_1.ckpt", "CKP-1_2.ckpt", "CKP-1_3.ckpt"]


def test_safetensors(tmp_path: Any) -> None:
    train(tmp_path, save_checkpoint_steps=3, format="safetensors")
    assert listing(tmp_path) == ["CKP-1_3.safetensors", "CKP-2_3.safetensors"]
    loaded = ms.load_checkpoint(
        str(tmp_path / "CKP-2_3.safetensors"), format="safetensors"
    )
    assert "0.weight" in loaded


def test_callable_prefix_and_directory(tmp_path: Any) -> None:
    def prefix(cb: Any) -> str:
        return f"net_e{cb.cur_epoch_num}_s{cb.cur_step_num}"

    def directory(cb: Any) -> str:
        return str(tmp_path / f"epoch{cb.cur_epoch_num}")

    ckpt = ModelCheckpoint(
        prefix=prefix,
        directory=directory,
        config=CheckpointConfig(save_checkpoint_steps=2),
    )
    make_model().train(2, dataset(), callbacks=[ckpt])
    assert listing(tmp_path / "epoch1") == ["net_e1_s2.ckpt"]
    assert listing(tmp_path / "epoch2") == ["net_e2_s4.ckpt", "net_e2_s6.ckpt"]
    assert latest_checkpoint(str(tmp_path / "epoch2")) == str(
        tmp_path / "epoch2" / "net_e2_s6.ckpt"
    )


def test_callable_prefix_must_return_a_plain_name(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(prefix=lambda cb: "bad/name", directory=str(tmp_path))
    with pytest.raises(
        ValueError,
        match=r"callable argument 'prefix' must return a str that does not contain '/', but it returned 'bad/name'",
    ):
        make_model().train(1, dataset(), callbacks=[ckpt])


def test_graph_mode_writes_no_graph_file(tmp_path: Any) -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        train(tmp_path, epochs=1, steps=2)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert listing(tmp_path) == [
        "CKP-1_1.ckpt",
        "CKP-1_2.ckpt",
    ]  # MindSpore adds CKP-graph.meta here


def test_initial_epoch_and_append_info(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(
        directory=str(tmp_path),
        config=CheckpointConfig(
            save_checkpoint_steps=3, append_info=["epoch_num", "step_num"]
        ),
    )
    make_model().train(3, dataset(), callbacks=[ckpt], initial_epoch=1)
    assert listing(tmp_path) == ["CKP-2_3.ckpt", "CKP-3_3.ckpt"]
    first = ms.load_checkpoint(str(tmp_path / "CKP-2_3.ckpt"))
    second = ms.load_checkpoint(str(tmp_path / "CKP-3_3.ckpt"))
    assert (int(array(first, "epoch_num")), int(array(first, "step_num"))) == (
        2,
        3,
    )
    assert (int(array(second, "epoch_num")), int(array(second, "step_num"))) == (
        3,
        6,
    )


# --- contents -----------------------------------------------------------------------------


def test_append_info_values(tmp_path: Any) -> None:
    config = CheckpointConfig(
        save_checkpoint_steps=3,
        append_info=["epoch_num", "step_num", {"lr": 0.01, "tag": "x", "flag": True}],
    )
    make_model().train(
        1,
        dataset(),
        callbacks=[ModelCheckpoint(directory=str(tmp_path), config=config)],
    )
    loaded = ms.load_checkpoint(str(tmp_path / "CKP-1_3.ckpt"))
    assert list(loaded)[-5:] == ["epoch_num", "step_num", "lr", "tag", "flag"]
    assert (
        array(loaded, "epoch_num").dtype == np.int64
        and array(loaded, "epoch_num").shape == ()
    )
    assert int(array(loaded, "step_num")) == 3
    assert array(loaded, "lr") == np.float32(0.01)
    assert loaded["tag"] == "x"
    assert bool(array(loaded, "flag")) is True


def test_train_network_and_saved_network_keys(tmp_path: Any) -> None:
    model = make_model()
    # The same run twice: the whole train network, then the backbone alone.
    for prefix, saved_network in [("all", None), ("net", model.predict_network)]:
        config = CheckpointConfig(save_checkpoint_steps=3, saved_network=saved_network)
        checkpoint = ModelCheckpoint(
            prefix=prefix, directory=str(tmp_path), config=config
        )
        model.train(1, dataset(), callbacks=[checkpoint])
    everything = ms.load_checkpoint(str(tmp_path / "all-1_3.ckpt"))
    assert "moments.0.weight" in everything and "global_step" in everything
    assert sorted(ms.load_checkpoint(str(tmp_path / "net-1_3.ckpt"))) == [
        "0.bias",
        "0.weight",
        "2.bias",
        "2.weight",
    ]


def test_keys_of_a_sgd_train_network_as_mindspore(tmp_path: Any) -> None:
    # Reference 7.3.4: Model(net, CrossEntropyLoss, SGD) saves the weights, SGD's
    # `accum` and `stat` copies, and its scalar state with these types and shapes.
    net = nn.SequentialCell([nn.Flatten(), nn.Dense(4, 3)])
    model = Model(
        net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), learning_rate=0.1)
    )
    rng = np.random.default_rng(0)
    data = NumpySlicesDataset(
        {
            "x": rng.standard_normal((4, 4)).astype(np.float32),
            "y": np.array([0, 1, 2, 1], np.int32),
        },
        shuffle=False,
    ).batch(2)
    model.train(
        1,
        data,
        callbacks=ModelCheckpoint(
            prefix="sgd",
            directory=str(tmp_path),
            config=CheckpointConfig(save_checkpoint_steps=2),
        ),
    )
    loaded = ms.load_checkpoint(str(tmp_path / "sgd-1_2.ckpt"))
    assert sorted(loaded) == [
        "1.bias",
        "1.weight",
        "accum.1.bias",
        "accum.1.weight",
        "global_step",
        "learning_rate",
        "momentum",
        "stat.1.bias",
        "stat.1.weight",
    ]
    kinds = {
        name: (array(loaded, name).dtype, array(loaded, name).shape)
        for name in ("global_step", "learning_rate", "momentum")
    }
    assert kinds == {
        "global_step": (np.dtype(np.int32), (1,)),
        "learning_rate": (np.dtype(np.float32), ()),
        "momentum": (np.dtype(np.float32), ()),
    }
    assert stat.S_IMODE(os.stat(tmp_path / "sgd-1_2.ckpt").st_mode) == 0o400


def test_files_are_read_only_and_hold_the_step_values(tmp_path: Any) -> None:
    model = make_model()
    ckpt = ModelCheckpoint(
        directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=3)
    )
    model.train(1, dataset(), callbacks=[ckpt])
    path = ckpt.latest_ckpt_file_name
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o400
    loaded = ms.load_checkpoint(path)
    weight = next(
        p
        for n, p in model.predict_network.parameters_and_names()  # type: ignore[attr-defined]
        if n.endswith("0.weight")
    )
    np.testing.assert_array_equal(array(loaded, "0.weight"), weight.asnumpy())


def test_async_save_writes_the_same_files(tmp_path: Any) -> None:
    sync_dir, async_dir = tmp_path / "sync", tmp_path / "async"
    train(str(sync_dir))
    ckpt = train(str(async_dir), async_save=True)
    assert listing(sync_dir) == listing(async_dir)
    for name in listing(sync_dir):
        a, b = (
            ms.load_checkpoint(str(sync_dir / name)),
            ms.load_checkpoint(str(async_dir / name)),
        )
        assert list(a) == list(b)
        for key in a:
            np.testing.assert_array_equal(array(a, key), array(b, key))
    assert ckpt.latest_ckpt_file_name == str(async_dir / "CKP-2_3.ckpt")


def test_snapshot_is_taken_at_the_save_point(tmp_path: Any) -> None:
    # With background writing, the file must hold the values of the step that saved it,
    # even though later steps change the parameters before the writer runs.
    seen: dict[int, np.ndarray] = {}

    class Record(Callback):
        def on_train_step_end(self, run_context: RunContext) -> None:
            cb = run_context.original_args()
            weight = next(
                p
                for n, p in cb.network.parameters_and_names()
                if n.endswith("0.weight")
            )
            seen[cb.cur_step_num] = weight.asnumpy().copy()

    ckpt = ModelCheckpoint(
        directory=str(tmp_path),
        config=CheckpointConfig(
            save_checkpoint_steps=2, keep_checkpoint_max=10, async_save=True
        ),
    )
    make_model().train(2, dataset(), callbacks=[Record(), ckpt])
    for name, step in (("CKP-1_2.ckpt", 2), ("CKP-2_1.ckpt", 4), ("CKP-2_3.ckpt", 6)):
        np.testing.assert_array_equal(
            array(ms.load_checkpoint(str(tmp_path / name)), "0.weight"), seen[step]
        )


# --- construction -------------------------------------------------------------------------


def test_prefix_validation(tmp_path: Any) -> None:
    for bad in ("a/b", 1):
        with pytest.raises(
            ValueError,
            match=r"For 'ModelCheckpoint', the argument 'prefix' for checkpoint file name is invalid: it must be callable or a str that does not contain '/', but got",
        ):
            ModelCheckpoint(prefix=bad, directory=str(tmp_path))  # type: ignore[arg-type]
    assert ModelCheckpoint(prefix="", directory=str(tmp_path)).prefix == ""


def test_directory_validation(tmp_path: Any) -> None:
    with pytest.raises(
        TypeError,
        match=r"argument 'directory' must be a str path, but got 1 of type 'int'",
    ):
        ModelCheckpoint(directory=1)
    with pytest.raises(
        ValueError, match=r"argument 'directory' must be a non-blank path, but got ' '"
    ):
        ModelCheckpoint(directory=" ")
    file = tmp_path / "f"
    file.write_text("x")
    with pytest.raises(
        NotADirectoryError,
        match=r"argument 'directory' must be a directory, but .* is a file",
    ):
        ModelCheckpoint(directory=str(file))
    with pytest.raises(
        NotADirectoryError,
        match=r"For 'ModelCheckpoint', the argument 'directory' must name a directory that exists or can be "
        r"created, but '.*/f/sub' cannot be: Not a directory",
    ):
        ModelCheckpoint(directory=str(file / "sub"))


def test_directory_is_created_with_mode_700(tmp_path: Any) -> None:
    target = tmp_path / "new" / "dir"
    ModelCheckpoint(directory=str(target))
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o700


def test_directory_default_is_the_import_time_cwd() -> None:
    from cadence.callbacks import _model_checkpoint

    assert ModelCheckpoint().directory == _model_checkpoint._DEFAULT_DIRECTORY


def test_config_validation(tmp_path: Any) -> None:
    with pytest.raises(
        TypeError,
        match=r"argument 'config' must be a CheckpointConfig, but got \{\} of type 'dict'",
    ):
        ModelCheckpoint(directory=str(tmp_path), config={})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        ("CKP-1_1.ckpt", "CKP_1"),
        ("CKP_1-1_1.ckpt", "CKP_2"),
        ("CKP_5-1_1.ckpt", "CKP_6"),
        ("CKP-1_1.safetensors", "CKP_1"),
        ("CKPX-1_1.ckpt", "CKP"),
        ("CKP.ckpt", "CKP"),
        ("CKP-graph.meta", "CKP"),
        ("CKP-1_1_breakpoint.ckpt", "CKP"),
        ("CKP_abc-1_1.ckpt", "CKP"),
        ("CKP_1_2-1_1.ckpt", "CKP"),
        ("CKP-1_1.txt", "CKP"),
    ],
)
def test_prefix_deduplication(tmp_path: Any, existing: str, expected: str) -> None:
    (tmp_path / existing).write_bytes(b"x")
    assert ModelCheckpoint(directory=str(tmp_path)).prefix == expected


def test_two_instances_before_training_share_the_prefix(tmp_path: Any) -> None:
    (tmp_path / "CKP-1_1.ckpt").write_bytes(b"x")
    assert (
        ModelCheckpoint(directory=str(tmp_path)).prefix
        == ModelCheckpoint(directory=str(tmp_path)).prefix
        == "CKP_1"
    )


def test_latest_name_is_empty_before_saving(tmp_path: Any) -> None:
    assert ModelCheckpoint(directory=str(tmp_path)).latest_ckpt_file_name == ""


def test_bogus_format_fails_at_the_first_save(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(
        directory=str(tmp_path), config=CheckpointConfig(format="bogus")
    )
    with pytest.raises(
        ValueError,
        match=r"checkpoint format must be 'ckpt' or 'safetensors', but got 'bogus'",
    ):
        make_model().train(1, dataset(), callbacks=[ckpt])


def test_encryption_is_refused_at_the_first_save(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(
        directory=str(tmp_path), config=CheckpointConfig(enc_key=b"0123456789abcdef")
    )
    with pytest.raises(NotImplementedError, match=r"encrypted checkpoints"):
        make_model().train(1, dataset(), callbacks=[ckpt])


# --- eval and fit -----------------------------------------------------------------------------


def test_model_eval_does_nothing(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(directory=str(tmp_path))
    make_model(metrics={"loss"}).eval(dataset(), callbacks=[ckpt])
    assert os.listdir(tmp_path) == []


def test_fit_eval_passes_save_nothing(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(directory=str(tmp_path))
    make_model(metrics={"loss"}).fit(2, dataset(), dataset(2), callbacks=[ckpt])
    assert listing(tmp_path) == TWO_EPOCHS_DEFAULT


# --- exception_save -------------------------------------------------------------------------


@pytest.mark.parametrize("async_save", [False, True])
def test_breakpoint_file(tmp_path: Any, async_save: bool) -> None:
    config = CheckpointConfig(
        save_checkpoint_steps=2, exception_save=True, async_save=async_save
    )

    def train_failing_at(step: int) -> None:
        checkpoint = ModelCheckpoint(directory=str(tmp_path), config=config)
        with pytest.raises(RuntimeError, match="boom"):
            make_model().train(2, dataset(), callbacks=[checkpoint, CrashAt(step=step)])

    train_failing_at(5)
    assert listing(tmp_path) == [
        "CKP-1_2.ckpt",
        "CKP-2_1.ckpt",
        "CKP-2_2_breakpoint.ckpt",
    ]
    train_failing_at(2)
    assert listing(tmp_path) == [
        "CKP-1_2.ckpt", "CKP-2_1.ckpt", "CKP-2_2_breakpoint.ckpt", "CKP_1-1_2.ckpt", "CKP_1-1_2_breakpoint.ckpt",
    ]  # fmt: skip


def test_breakpoint_file_holds_the_train_network_even_with_saved_network(
    tmp_path: Any,
) -> None:
    # MindSpore writes the breakpoint with `save_checkpoint(train_network, ...)`:
    # optimizer state included, whatever `saved_network` says for the regular files.
    model = make_model()
    net: Any = model.predict_network  # the backbone given to Model
    config = CheckpointConfig(
        save_checkpoint_steps=1, exception_save=True, saved_network=net
    )
    with pytest.raises(RuntimeError, match="boom"):
        model.train(
            1,
            dataset(),
            callbacks=[
                ModelCheckpoint(directory=str(tmp_path), config=config),
                CrashAt(step=2),
            ],
        )
    regular = ms.load_checkpoint(str(tmp_path / "CKP-1_1.ckpt"))
    breakpoint_file = ms.load_checkpoint(str(tmp_path / "CKP-1_2_breakpoint.ckpt"))
    assert not any(k.startswith("moments.") for k in regular)
    assert any(k.startswith("moments.") for k in breakpoint_file)
    assert "global_step" in breakpoint_file and "learning_rate" in breakpoint_file


def test_no_breakpoint_without_exception_save(tmp_path: Any) -> None:
    with pytest.raises(RuntimeError, match="boom"):
        make_model().train(
            2,
            dataset(),
            callbacks=[
                ModelCheckpoint(
                    directory=str(tmp_path),
                    config=CheckpointConfig(save_checkpoint_steps=2),
                ),
                CrashAt(step=5),
            ],
        )
    assert listing(tmp_path) == ["CKP-1_2.ckpt", "CKP-2_1.ckpt"]


def test_breakpoint_also_with_a_tuple_of_callbacks(tmp_path: Any) -> None:
    config = CheckpointConfig(save_checkpoint_steps=2, exception_save=True)
    with pytest.raises(RuntimeError, match="boom"):
        make_model().train(
            2,
            dataset(),
            callbacks=(
                ModelCheckpoint(directory=str(tmp_path), config=config),
                CrashAt(step=5),
            ),
        )
    assert "CKP-2_2_breakpoint.ckpt" in listing(
        tmp_path
    )  # MindSpore writes none for a tuple


# --- latest pointer and CheckpointSaved -------------------------------------------------------------


def test_checkpoint_saved_events_and_latest_checkpoint(tmp_path: Any) -> None:
    model = make_model()
    events: list[CheckpointSaved] = []
    threads: set[int] = set()

    def record(event: CheckpointSaved) -> None:
        events.append(event)
        threads.add(threading.get_ident())

    model.bus.subscribe(CheckpointSaved, record)
    ckpt = ModelCheckpoint(
        directory=str(tmp_path),
        config=CheckpointConfig(save_checkpoint_steps=2, async_save=True),
    )
    ckpt.request_sha256()
    model.train(2, dataset(), callbacks=[ckpt])
    assert [(e.epoch, e.step, os.path.basename(e.path)) for e in events] == [
        (1, 2, "CKP-1_2.ckpt"), (2, 4, "CKP-2_1.ckpt"), (2, 6, "CKP-2_3.ckpt"),
    ]  # fmt: skip
    assert threads == {threading.get_ident()}  # published from the training thread
    import hashlib

    for event in events:
        data = (tmp_path / os.path.basename(event.path)).read_bytes()
        assert (event.size_bytes, event.sha256, event.format) == (
            len(data),
            hashlib.sha256(data).hexdigest(),
            "ckpt",
        )
    assert latest_checkpoint(str(tmp_path)) == ckpt.latest_ckpt_file_name
    assert latest_checkpoint(str(tmp_path), "CKP") == events[-1].path


def test_files_are_not_hashed_unless_asked(tmp_path: Any) -> None:
    model = make_model()
    events: list[CheckpointSaved] = []
    model.bus.subscribe(CheckpointSaved, events.append)
    ckpt = ModelCheckpoint(
        directory=str(tmp_path), config=CheckpointConfig(save_checkpoint_steps=2)
    )
    model.train(1, dataset(), callbacks=[ckpt])
    assert events and all(event.sha256 is None for event in events)
    assert all(event.size_bytes > 0 for event in events)


def test_cb_params_latest_fields_stay_none(tmp_path: Any) -> None:
    seen = []

    class Look(Callback):
        def on_train_end(self, run_context: RunContext) -> None:
            cb = run_context.original_args()
            seen.append((cb.latest_ckpt_file, cb.last_save_ckpt_step))

    make_model().train(
        1, dataset(), callbacks=[ModelCheckpoint(directory=str(tmp_path)), Look()]
    )
    assert seen == [(None, None)]


# --- retention safety ------------------------------------------------------------------------


def test_deletion_gate_holds_files_until_allowed(tmp_path: Any) -> None:
    allowed: set[str] = set()
    ckpt = ModelCheckpoint(
        directory=str(tmp_path), config=CheckpointConfig(keep_checkpoint_max=2)
    )
    ckpt.add_deletion_gate(lambda path: path in allowed)
    make_model().train(1, dataset(), callbacks=[ckpt])
    held = str(tmp_path / "CKP-1_1.ckpt")
    assert ckpt.pending_deletions == [held]
    assert listing(tmp_path) == ["CKP-1_1.ckpt", "CKP-1_2.ckpt", "CKP-1_3.ckpt"]
    allowed.add(held)
    assert ckpt.retry_deletions() == []
    assert listing(tmp_path) == ["CKP-1_2.ckpt", "CKP-1_3.ckpt"]
    with pytest.raises(TypeError, match=r"argument 'gate' must be callable, but got 1"):
        ckpt.add_deletion_gate(1)  # type: ignore[arg-type]


def test_retention_ignores_temporary_and_in_flight_files(tmp_path: Any) -> None:
    from cadence.callbacks.checkpoint._files import InFlight

    temp = tmp_path / ".CKP-0_1.ckpt.abc.tmp"
    temp.write_bytes(b"partial")
    other = str(tmp_path / "CKP-0_2.ckpt")
    (tmp_path / "CKP-0_2.ckpt").write_bytes(b"being written by someone else")
    os.utime(other, (0, 0))  # the oldest: keep-max would pick it first
    InFlight.add(other)
    try:
        train(tmp_path, epochs=1, keep_checkpoint_max=1)
    finally:
        InFlight.discard(other)
    assert temp.exists() and os.path.exists(other)


def test_writer_errors_surface_in_the_training_thread(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(
        directory=str(tmp_path),
        config=CheckpointConfig(keep_checkpoint_max=1, async_save=True),
    )

    def gate(path: str) -> bool:
        raise OSError("storage unavailable")

    ckpt.add_deletion_gate(gate)
    with pytest.raises(OSError, match="storage unavailable"):
        make_model().train(1, dataset(), callbacks=[ckpt])


def test_keep_max_deletes_the_oldest_only_after_its_successor_is_committed(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With keep_checkpoint_max=1 MindSpore deletes the only checkpoint before writing
    # the next; here a failed write (or a crash during it) leaves the last one.
    writes: list[str] = []
    real_write = ms.CheckpointSnapshot.write

    def write_once(self: ms.CheckpointSnapshot, path: Any) -> int:
        writes.append(str(path))
        if len(writes) > 1:
            assert listing(tmp_path) == ["CKP-1_1.ckpt"]  # still there while writing
            raise OSError("disk full")
        return real_write(self, path)

    monkeypatch.setattr(ms.CheckpointSnapshot, "write", write_once)
    with pytest.raises(OSError, match="disk full"):
        train(tmp_path, epochs=1, keep_checkpoint_max=1)
    assert listing(tmp_path) == ["CKP-1_1.ckpt"]
    assert latest_checkpoint(str(tmp_path)) == str(tmp_path / "CKP-1_1.ckpt")


# --- top-k by a monitored value ----------------------------------------------------------------


class ScriptedLoss(nn.Cell):
    """A train network whose loss per step comes from a script (its parameter counts the steps)."""

    def __init__(self, losses: list[float]) -> None:
        super().__init__()
        self.losses = losses
        self.count = ms.Parameter(ms.Tensor(np.zeros((), np.float32)), name="count")

    def construct(self, *inputs: Any) -> Any:
        index = int(self.count.asnumpy())
        self.count.set_data(ms.Tensor(np.float32(index + 1)))
        return ms.Tensor(np.float32(self.losses[index]))


def test_top_k_by_loss(tmp_path: Any) -> None:
    # Epoch-end losses (last step of each epoch): 5, 3, 4, 1, 2 -> the best two are epochs 4 and 5.
    losses = [9, 9, 5, 9, 9, 3, 9, 9, 4, 9, 9, 1, 9, 9, 2]
    config = CheckpointConfig(
        save_checkpoint_steps=0, save_checkpoint_seconds=0, monitor="loss", save_top_k=2
    )
    ckpt = ModelCheckpoint(directory=str(tmp_path), config=config)
    Model(ScriptedLoss([float(v) for v in losses])).train(
        5, dataset(), callbacks=[ckpt]
    )
    assert listing(tmp_path) == ["CKP-best-4_3.ckpt", "CKP-best-5_3.ckpt"]
    assert ckpt.best_k_models == {
        str(tmp_path / "CKP-best-4_3.ckpt"): 1.0,
        str(tmp_path / "CKP-best-5_3.ckpt"): 2.0,
    }
    assert (ckpt.best_model_path, ckpt.best_model_score) == (
        str(tmp_path / "CKP-best-4_3.ckpt"),
        1.0,
    )
    assert int(array(ms.load_checkpoint(ckpt.best_model_path), "count")) == 12


@pytest.mark.parametrize("top_k", [1, 2])
def test_top_k_with_a_callable_prefix_keeps_distinct_files(
    tmp_path: Any, top_k: int
) -> None:
    # A constant callable prefix: the best files still get one name each.
    losses = [
        9,
        9,
        5,
        9,
        9,
        3,
        9,
        9,
        1,
    ]  # epoch-end losses 5, 3, 1: each epoch is the best so far
    config = CheckpointConfig(
        save_checkpoint_steps=0,
        save_checkpoint_seconds=0,
        monitor="loss",
        save_top_k=top_k,
    )
    ckpt = ModelCheckpoint(
        prefix=lambda cb: "cp", directory=str(tmp_path), config=config
    )
    Model(ScriptedLoss([float(v) for v in losses])).train(
        3, dataset(), callbacks=[ckpt]
    )
    kept = (
        ["cp-best-3_3.ckpt"] if top_k == 1 else ["cp-best-2_3.ckpt", "cp-best-3_3.ckpt"]
    )
    assert listing(tmp_path) == kept
    assert sorted(ckpt.best_k_models) == [str(tmp_path / name) for name in kept]
    assert ckpt.best_model_path == str(tmp_path / "cp-best-3_3.ckpt")
    assert int(array(ms.load_checkpoint(ckpt.best_model_path), "count")) == 9


def test_top_k_lives_beside_periodic_files(tmp_path: Any) -> None:
    losses = [float(v) for v in (9, 9, 5, 9, 9, 3)]
    config = CheckpointConfig(
        save_checkpoint_steps=3, keep_checkpoint_max=1, monitor="loss", save_top_k=1
    )
    Model(ScriptedLoss(losses)).train(
        2,
        dataset(),
        callbacks=[ModelCheckpoint(directory=str(tmp_path), config=config)],
    )
    assert listing(tmp_path) == ["CKP-2_3.ckpt", "CKP-best-2_3.ckpt"]


class ScriptedMetric:
    def __init__(self, values: list[float]) -> None:
        self.values = values
        self.calls = 0

    def clear(self) -> None:
        pass

    def update(self, *outputs: Any) -> None:
        pass

    def eval(self) -> float:
        self.calls += 1
        return self.values[self.calls - 1]


def test_top_k_by_an_eval_metric_in_fit(tmp_path: Any) -> None:
    metric = ScriptedMetric([0.2, 0.9, 0.5])
    config = CheckpointConfig(
        save_checkpoint_steps=0, save_checkpoint_seconds=0, monitor="acc", save_top_k=1
    )
    ckpt = ModelCheckpoint(directory=str(tmp_path), config=config)
    losses = [1.0] * 9
    net = ScriptedLoss(losses)
    model = Model(
        net,
        eval_network=lambda *inputs: ms.Tensor(np.float32(0.0)),
        metrics={"acc": metric},
    )
    model.fit(3, dataset(), dataset(1), callbacks=[ckpt])
    assert listing(tmp_path) == ["CKP-best-2_3.ckpt"]
    assert ckpt.best_model_score == 0.9


def test_top_k_warns_once_about_a_missing_metric(tmp_path: Any) -> None:
    config = CheckpointConfig(
        save_checkpoint_steps=0, save_checkpoint_seconds=0, monitor="accuracy"
    )
    model = Model(
        ScriptedLoss([1.0] * 6),
        eval_network=lambda *inputs: ms.Tensor(np.float32(0.0)),
        metrics={"acc": ScriptedMetric([0.1, 0.2])},
    )
    with pytest.warns(
        CheckpointWarning,
        match=r"by 'accuracy', which is not in cb_params.eval_results.*Available: \['loss', 'acc', 'eval_loss'\]",
    ):
        model.fit(
            2,
            dataset(),
            dataset(1),
            callbacks=[ModelCheckpoint(directory=str(tmp_path), config=config)],
        )
    assert listing(tmp_path) == []


def test_top_k_by_an_eval_metric_warns_when_the_run_never_evaluates(
    tmp_path: Any,
) -> None:
    config = CheckpointConfig(
        save_checkpoint_steps=0, save_checkpoint_seconds=0, monitor="acc"
    )
    with pytest.warns(
        CheckpointWarning,
        match=r"^ModelCheckpoint keeps the best checkpoints by 'acc', an evaluation result, but no epoch "
        r"of this run had an evaluation pass, so no top-k checkpoint was saved: use Model\.fit",
    ):
        make_model().train(
            2,
            dataset(),
            callbacks=ModelCheckpoint(directory=str(tmp_path), config=config),
        )
    assert listing(tmp_path) == []


def test_top_k_after_a_weight_restoring_early_stopping_warns(tmp_path: Any) -> None:
    from cadence.callbacks import EarlyStopping

    def callbacks(order: str) -> list[Any]:
        config = CheckpointConfig(
            save_checkpoint_steps=0, save_checkpoint_seconds=0, monitor="loss"
        )
        stop = EarlyStopping(monitor="loss", patience=1, restore_best_weights=True)
        save = ModelCheckpoint(directory=str(tmp_path / order), config=config)
        return [stop, save] if order == "after" else [save, stop]

    losses = [
        float(v) for v in (9, 9, 1, 9, 9, 5)
    ]  # epoch 2 is worse: stop, restore epoch 1
    with pytest.warns(
        CheckpointWarning,
        match=r"^ModelCheckpoint keeps the best checkpoints by 'loss' but comes after "
        r"EarlyStopping\(restore_best_weights=True\).*List ModelCheckpoint before EarlyStopping\.$",
    ):
        Model(ScriptedLoss(losses)).train(2, dataset(), callbacks=callbacks("after"))
    # Listed first, it saves each epoch's own weights, and no warning.
    Model(ScriptedLoss(losses)).train(2, dataset(), callbacks=callbacks("before"))
    assert listing(tmp_path / "before") == ["CKP-best-1_3.ckpt"]


def test_state_dict_round_trip(tmp_path: Any) -> None:
    ckpt = ModelCheckpoint(directory=str(tmp_path))
    ckpt.load_state_dict(
        {"latest_ckpt_file_name": "/x/CKP-1_1.ckpt", "best_k_models": {"/x/a.ckpt": 1}}
    )
    assert ckpt.state_dict() == {
        "latest_ckpt_file_name": "/x/CKP-1_1.ckpt",
        "best_k_models": {"/x/a.ckpt": 1.0},
        "prefix": "CKP",
    }
    # A prefix is taken over only from a state whose latest file is in this directory
    # and whose prefix is this one, possibly de-duplicated (see the BackupAndRestore tests).
    for latest, prefix in [
        ("/x/CKP_3-1_1.ckpt", "CKP_3"),  # another directory
        (str(tmp_path / "other-1_1.ckpt"), "other"),  # another prefix
        (str(tmp_path / "CKPX-1_1.ckpt"), "CKPX"),
    ]:
        ckpt.load_state_dict({"latest_ckpt_file_name": latest, "prefix": prefix})
        assert ckpt.prefix == "CKP"
    ckpt.load_state_dict(
        {"latest_ckpt_file_name": str(tmp_path / "CKP_3-1_1.ckpt"), "prefix": "CKP_3"}
    )
    assert ckpt.prefix == "CKP_3"
    assert ModelCheckpoint.state_key == "ModelCheckpoint"


# --- snapshots: one copy per save, into memory reused from one save to the next -----------


@pytest.mark.parametrize(("async_save", "most"), [(False, 1), (True, 3)])
def test_saves_reuse_their_snapshots_and_each_file_holds_its_steps_values(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, async_save: bool, most: int
) -> None:
    import cadence.callbacks.checkpoint._writer as writer_module

    made: list[Any] = []

    class Counted(ms.CheckpointSnapshot):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(writer_module, "CheckpointSnapshot", Counted)
    model = make_model()
    seen: dict[int, Any] = {}

    class Keep(Callback):
        def on_train_step_end(self, run_context: RunContext) -> None:
            cb = run_context.original_args()
            weight = next(iter(cb.train_network.parameters_and_names()))[1]
            seen[cb.cur_step_num] = np.array(weight.asnumpy(), copy=True)

    config = CheckpointConfig(
        save_checkpoint_steps=1, keep_checkpoint_max=10, async_save=async_save
    )
    model.train(
        2,
        dataset(3),
        callbacks=[Keep(), ModelCheckpoint(directory=str(tmp_path), config=config)],
    )
    assert 1 <= len(made) <= most
    assert len(listing(tmp_path)) == 6
    for epoch in (1, 2):
        for step_in_epoch in (1, 2, 3):
            loaded = ms.load_checkpoint(
                str(tmp_path / f"CKP-{epoch}_{step_in_epoch}.ckpt")
            )
            first = next(iter(loaded))
            np.testing.assert_array_equal(
                array(loaded, first), seen[(epoch - 1) * 3 + step_in_epoch]
            )


# --- integrity: CRC, non-finite losses -----------------------------------------------------------


def test_crc_check_files_carry_mindspores_trailer(tmp_path: Any) -> None:
    train(tmp_path, epochs=1, crc_check=True)
    for name in listing(tmp_path):
        data = (tmp_path / name).read_bytes()
        assert data[-17:-10] == b"crc_num", name
        assert sorted(ms.load_checkpoint(str(tmp_path / name), crc_check=True))


class _Diverge(Callback):
    """Set every weight to NaN at the end of step `at` (what a diverging run ends up with)."""

    def __init__(self, at: int) -> None:
        self.at = at

    def on_train_step_end(self, run_context: RunContext) -> None:
        cb = run_context.original_args()
        if cb["cur_step_num"] == self.at:
            for param in cb["train_network"].trainable_params():
                param.set_data(ms.Tensor(np.full(param.shape, np.nan, np.float32)))


def test_a_non_finite_loss_skips_saves_and_keeps_the_last_finite_files(
    tmp_path: Any,
) -> None:
    ckpt = ModelCheckpoint(
        directory=str(tmp_path), config=CheckpointConfig(keep_checkpoint_max=2)
    )
    with pytest.warns(CheckpointWarning) as caught:
        # Step 4's loss is finite (computed before the weights break), its weights are not.
        make_model().train(3, dataset(3), callbacks=[_Diverge(at=4), ckpt])
    assert listing(tmp_path) == ["CKP-1_2.ckpt", "CKP-1_3.ckpt"]
    for name in listing(tmp_path):
        loaded = ms.load_checkpoint(str(tmp_path / name))
        assert all(
            np.isfinite(array(loaded, key)).all()
            for key, value in loaded.items()
            if not isinstance(value, str)
        )
    messages = [str(w.message) for w in caught if w.category is CheckpointWarning]
    assert messages == [
        "ModelCheckpoint skipped the save at step 4: the loss or a weight is NaN or infinite (training "
        f"has diverged). The checkpoints saved before are kept (the latest: {tmp_path / 'CKP-1_3.ckpt'}); "
        "later saves are skipped too while that lasts (this warning is not repeated)."
    ]
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "CKP-1_3.ckpt")
