"""CheckpointConfig: validation (MindSpore's exception classes), normalisation and properties (reference §7.3.1)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import cadence as ms
from cadence import nn
from cadence.callbacks import CheckpointConfig, CheckpointWarning


def test_defaults_policy() -> None:
    config = CheckpointConfig()
    assert config.get_checkpoint_policy() == {
        "save_checkpoint_steps": 1,
        "save_checkpoint_seconds": None,
        "keep_checkpoint_max": 5,
        "keep_checkpoint_per_n_minutes": None,
        "saved_network": None,
    }
    assert (config.integrated_save, config.async_save, config.exception_save) == (
        True,
        False,
        False,
    )
    assert (config.enc_key, config.enc_mode, config.crc_check, config.format) == (
        None,
        "AES-GCM",
        False,
        "ckpt",
    )
    assert config.append_dict is None
    assert config.remove_redundancy is False
    assert config.map_param_inc is False
    assert (config.monitor, config.save_top_k) == (None, 1)


def test_keep_max_none_falls_back_to_one() -> None:
    config = CheckpointConfig(keep_checkpoint_max=None)
    assert config.keep_checkpoint_max == 1
    assert config.keep_checkpoint_per_n_minutes == 0


def test_mutual_exclusion_is_silent() -> None:
    config = CheckpointConfig(
        save_checkpoint_steps=2,
        save_checkpoint_seconds=5,
        keep_checkpoint_per_n_minutes=3,
    )
    assert config.save_checkpoint_seconds is None
    assert config.keep_checkpoint_per_n_minutes is None
    seconds = CheckpointConfig(
        save_checkpoint_steps=0,
        save_checkpoint_seconds=5,
        keep_checkpoint_max=0,
        keep_checkpoint_per_n_minutes=3,
    )
    assert (
        seconds.save_checkpoint_seconds,
        seconds.keep_checkpoint_max,
        seconds.keep_checkpoint_per_n_minutes,
    ) == (5, 0, 3)


def test_steps_and_seconds_zero_is_accepted() -> None:
    config = CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)
    assert config.save_checkpoint_steps == 0


@pytest.mark.parametrize(
    "name",
    [
        "save_checkpoint_steps",
        "save_checkpoint_seconds",
        "keep_checkpoint_max",
        "keep_checkpoint_per_n_minutes",
    ],
)
def test_counts_validation(name: str) -> None:
    negative: dict[str, Any] = {name: -1}
    fraction: dict[str, Any] = {name: 1.5}
    flag: dict[str, Any] = {name: True}
    with pytest.raises(
        ValueError,
        match=rf"For 'CheckpointConfig', the argument '{name}' must be an int >= 0, but got -1\.",
    ):
        CheckpointConfig(**negative)
    with pytest.raises(
        TypeError,
        match=rf"argument '{name}' must be an int >= 0, but got 1\.5 of type 'float'",
    ):
        CheckpointConfig(**fraction)
    with pytest.raises(
        TypeError,
        match=rf"argument '{name}' must be an int >= 0, but got True of type 'bool'",
    ):
        CheckpointConfig(**flag)


def test_all_off_is_an_error() -> None:
    with pytest.raises(
        ValueError, match=r"can't be all None or 0, but got 0, None, 0 and 0\."
    ):
        CheckpointConfig(
            save_checkpoint_steps=0, save_checkpoint_seconds=None, keep_checkpoint_max=0
        )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"integrated_save": 1}, TypeError, r"argument 'integrated_save' must be a bool, but got 1 of type 'int'"),
        ({"exception_save": 1}, TypeError, r"argument 'exception_save' must be a bool, but got 1 of type 'int'"),
        ({"rank_zero_only": "yes"}, TypeError, r"argument 'rank_zero_only' must be a bool, but got 'yes' of type 'str'"),
        ({"async_save": 1}, TypeError, r"argument 'async_save' must be of type 'bool' or 'str', but got 1 of type 'int'"),
        ({"async_save": "x"}, ValueError, r"argument 'async_save' must be one of False, True, 'thread', 'process', but got 'x'"),
        ({"saved_network": 1}, TypeError, r"argument 'saved_network' must be None or a Cell, but got 1 of type 'int'"),
        ({"monitor": 1}, TypeError, r"argument 'monitor' must be None or a str, but got 1 of type 'int'"),
        ({"monitor": ""}, ValueError, r"argument 'monitor' must be None or a non-empty str, but got ''"),
        ({"monitor": "loss", "mode": "up"}, ValueError, r"argument 'mode' must be one of 'auto', 'min', 'max', but got 'up'"),
        ({"monitor": "loss", "save_top_k": 0}, ValueError, r"argument 'save_top_k' must be an int >= 1 or -1, but got 0"),
        ({"monitor": "loss", "save_top_k": 1.0}, TypeError, r"argument 'save_top_k' must be an int >= 1 or -1, but got 1\.0 of type 'float'"),
    ],
)  # fmt: skip
def test_invalid_arguments_are_refused(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        CheckpointConfig(**kwargs)


def test_async_save_and_saved_network_values() -> None:
    assert CheckpointConfig(async_save="thread").async_save == "thread"
    net = nn.Dense(2, 2)
    assert CheckpointConfig(saved_network=net).saved_network is net


def test_append_info_values() -> None:
    config = CheckpointConfig(
        append_info=["epoch_num", "step_num", {"lr": 0.01, "name": "x", "flag": True}]
    )
    assert config.append_dict == {
        "epoch_num": 0,
        "step_num": 0,
        "lr": 0.01,
        "name": "x",
        "flag": True,
    }
    assert CheckpointConfig(append_info=[]).append_dict is None
    tensor = ms.Tensor(np.ones(2, np.float32))
    assert CheckpointConfig(append_info=[{"t": tensor}]).append_dict == {"t": tensor}


def test_append_info_errors() -> None:
    with pytest.raises(
        TypeError,
        match=r"argument 'append_info' must be None or a list, but got 'epoch_num' of type 'str'",
    ):
        CheckpointConfig(append_info="epoch_num")  # type: ignore[arg-type]
    with pytest.raises(
        TypeError,
        match=r"each element of the argument 'append_info' must be a str or a dict, but got 1 of type 'int'",
    ):
        CheckpointConfig(append_info=[1])
    with pytest.raises(
        ValueError, match=r"must be 'epoch_num' or 'step_num', but got 'bad'"
    ):
        CheckpointConfig(append_info=["bad"])
    with pytest.raises(TypeError, match=r"may hold at most one dict, but got 2 dicts"):
        CheckpointConfig(append_info=[{"a": 1}, {"b": 2}])
    with pytest.raises(
        TypeError,
        match=r"must map str keys to .* but got key 'a' with a value of type 'list'",
    ):
        CheckpointConfig(append_info=[{"a": [1]}])
    with pytest.raises(TypeError, match=r"but got key 1 with a value of type 'int'"):
        CheckpointConfig(append_info=[{1: 1}])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"enc_key": "k"},
            r"argument 'enc_key' must be None or bytes, but got 'k' of type 'str'",
        ),
        (
            {"enc_mode": 1},
            r"argument 'enc_mode' must be a str, but got 1 of type 'int'",
        ),
        (
            {"crc_check": 1},
            r"argument 'crc_check' must be a bool, but got 1 of type 'int'",
        ),
        (
            {"remove_redundancy": 1},
            r"argument 'remove_redundancy' must be a bool, but got 1",
        ),
        ({"format": 1}, r"argument 'format' must be a str, but got 1 of type 'int'"),
    ],
)
def test_isinstance_checks_raise_value_error(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        CheckpointConfig(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"enc_key": b"0123456789abcdef"},
        {"enc_mode": "AES-CBC"},
        {"crc_check": True},
        {"exception_save": True},
        {"incremental": True},
    ],
)
def test_safetensors_requires_defaults(kwargs: dict[str, object]) -> None:
    with pytest.raises(
        ValueError,
        match=r"when 'format' is 'safetensors', .* must keep their defaults, but got non-default \[",
    ):
        CheckpointConfig(format="safetensors", **kwargs)  # type: ignore[arg-type]


def test_bogus_format_is_accepted_by_the_config() -> None:
    assert CheckpointConfig(format="bogus").format == "bogus"


def test_unknown_kwargs_are_ignored_with_a_warning_suggesting_the_argument_meant() -> (
    None
):
    with pytest.warns(
        CheckpointWarning,
        match=r"^CheckpointConfig ignores the keyword arguments 'save_checkpoint_step' \(did you mean "
        r"'save_checkpoint_steps'\?\), 'whatever', as MindSpore does\.$",
    ) as record:
        config = CheckpointConfig(whatever=1, incremental=True, save_checkpoint_step=5)
    assert record[0].filename == __file__  # attributed to the caller
    assert config.map_param_inc is True
    assert config.save_checkpoint_steps == 1  # the typo changed nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CheckpointConfig(incremental=False, enable_redundance=True)  # read: no warning


def test_top_k_options() -> None:
    assert CheckpointConfig(monitor="loss").mode == "min"
    assert CheckpointConfig(monitor="eval_loss").mode == "min"
    assert CheckpointConfig(monitor="accuracy").mode == "max"
    assert CheckpointConfig(monitor="accuracy", mode="min").mode == "min"
    assert CheckpointConfig(monitor="loss", save_top_k=-1).save_top_k == -1


def test_repr() -> None:
    assert repr(CheckpointConfig(save_checkpoint_steps=3)) == (
        "CheckpointConfig(save_checkpoint_steps=3, save_checkpoint_seconds=None, keep_checkpoint_max=5, "
        "keep_checkpoint_per_n_minutes=None, format='ckpt')"
    )
