"""save_checkpoint / load_checkpoint / load_param_into_net against MindSpore's behavior and real MindSpore files."""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

import cadence
from cadence import Parameter, Tensor
from cadence.checkpoint import _ckpt_format
from cadence.checkpoint._atomic import TEMP_SUFFIX
from cadence.checkpoint._serialization import (
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
CKPT_FILES = ["net.ckpt", "train_net.ckpt", "append_info-1_2.ckpt"]
BACKBONE = [
    ("1.weight", (16, 784)),
    ("1.bias", (16,)),
    ("3.weight", (10, 16)),
    ("3.bias", (10,)),
]
LOG = "cadence.serialization"


def _manifest() -> Any:
    return json.loads((FIXTURES / "manifest.json").read_text())


class DuckNet:
    """The smallest thing `load_param_into_net` accepts as a cell: named parameters."""

    def __init__(
        self,
        specs: list[tuple[str, tuple[int, ...]]] = BACKBONE,
        dtype: Any = np.float32,
    ) -> None:
        self.params = [
            Parameter(np.zeros(shape, dtype=dtype), name=name) for name, shape in specs
        ]

    def parameters_and_names(self) -> Iterator[tuple[str, Parameter]]:
        return ((str(p.name), p) for p in self.params)

    def arrays(self) -> dict[str, Any]:
        return {str(p.name): p.asnumpy() for p in self.params}


def _random_params(
    seed: int = 0, specs: list[tuple[str, tuple[int, ...]]] = BACKBONE
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {
        name: Parameter(rng.standard_normal(shape).astype(np.float32), name=name)
        for name, shape in specs
    }


def _mode(path: Any) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _np(loaded: Mapping[str, Any], name: str) -> Any:
    """The array of a loaded numeric entry."""
    value = loaded[name]
    assert isinstance(value, Parameter), name
    return value.asnumpy()


# --- reading real MindSpore files --------------------------------------------------------


@pytest.mark.parametrize("file_name", [*CKPT_FILES, "net.safetensors"])
def test_load_matches_manifest(file_name):
    want = _manifest()["files"][file_name]
    fmt = want["format"]
    loaded = load_checkpoint(str(FIXTURES / file_name), format=fmt)
    assert list(loaded) == want["load_checkpoint_key_order"]
    for entry in want["entries"]:
        value = loaded[entry["name"]]
        if entry["loaded_as"] == "str":
            assert value == entry["value"]
            continue
        assert isinstance(value, Parameter)
        assert value.name == entry["name"]
        data = value.asnumpy()
        assert data.dtype == np.dtype(entry["numpy_dtype"])
        assert list(data.shape) == entry["shape"]
        assert _ckpt_format.tensor_type_name(data.dtype) == entry["mindspore_dtype"]
        assert hashlib.sha256(data.tobytes()).hexdigest() == entry["sha256"]


def test_probe_logits_are_reproduced():
    probe = _manifest()["probe"]
    params = load_checkpoint(str(FIXTURES / "net.ckpt"))
    net = DuckNet()
    assert load_param_into_net(net, params) == ([], [])
    w = net.arrays()
    x = (
        np.random.default_rng(123)
        .random((2, 1, 28, 28), dtype=np.float32)
        .reshape(2, -1)
    )
    hidden = np.maximum(x @ w["1.weight"].T + w["1.bias"], 0)
    logits = hidden @ w["3.weight"].T + w["3.bias"]
    np.testing.assert_allclose(
        logits, np.array(probe["logits"], dtype=np.float32), rtol=1e-5, atol=1e-6
    )


def _real_backbone() -> Any:
    """MindSpore's fixture network built from cadence.nn, or None while cadence.nn lacks the cells."""
    nn: Any = importlib.import_module("cadence.nn")

    if not all(
        hasattr(nn, name) for name in ("SequentialCell", "Flatten", "Dense", "ReLU")
    ):
        return None
    return nn.SequentialCell(
        [nn.Flatten(), nn.Dense(784, 16), nn.ReLU(), nn.Dense(16, 10)]
    )


def test_real_network_loads_mindspore_weights_and_saves_them_back(tmp_path):
    net = _real_backbone()
    if net is None:
        pytest.skip("cadence.nn does not provide SequentialCell/Flatten/Dense/ReLU yet")
    assert load_param_into_net(net, load_checkpoint(str(FIXTURES / "net.ckpt"))) == (
        [],
        [],
    )
    x = np.random.default_rng(123).random((2, 1, 28, 28), dtype=np.float32)
    logits = net(Tensor(x)).asnumpy()
    np.testing.assert_allclose(
        logits,
        np.array(_manifest()["probe"]["logits"], np.float32),
        rtol=1e-5,
        atol=1e-6,
    )
    save_checkpoint(net, str(tmp_path / "net.ckpt"))
    assert (tmp_path / "net.ckpt").read_bytes() == (FIXTURES / "net.ckpt").read_bytes()


# --- writing them back byte for byte -----------------------------------------------------


@pytest.mark.parametrize("file_name", CKPT_FILES)
def test_saving_a_loaded_checkpoint_reproduces_mindspore_bytes(tmp_path, file_name):
    out = tmp_path / file_name
    save_checkpoint(load_checkpoint(str(FIXTURES / file_name)), str(out))
    assert out.read_bytes() == (FIXTURES / file_name).read_bytes()
    assert _mode(out) == 0o400


def test_saving_safetensors_reproduces_mindspore_bytes(tmp_path):
    out = tmp_path / "net.safetensors"
    save_checkpoint(
        load_checkpoint(str(FIXTURES / "net.safetensors"), format="safetensors"),
        str(out),
        format="safetensors",
    )
    assert out.read_bytes() == (FIXTURES / "net.safetensors").read_bytes()


def test_append_dict_reproduces_model_checkpoint_append_info(tmp_path):
    loaded = load_checkpoint(str(FIXTURES / "train_net.ckpt"))
    out = tmp_path / "append_info-1_2.ckpt"
    save_checkpoint(
        loaded,
        str(out),
        append_dict={"epoch_num": 1, "step_num": 2, "lr": 0.01, "tag": "x"},
    )
    assert out.read_bytes() == (FIXTURES / "append_info-1_2.ckpt").read_bytes()


@pytest.mark.parametrize("shape", ["cell", "parameter_list", "dict_list"])
def test_every_save_obj_shape_reproduces_net_ckpt(tmp_path, shape):
    loaded = load_checkpoint(str(FIXTURES / "net.ckpt"))
    net = DuckNet()
    load_param_into_net(net, loaded)
    save_obj = {
        "cell": net,
        "parameter_list": net.params,
        "dict_list": [
            {"name": p.name, "data": Tensor(p.asnumpy())} for p in net.params
        ],
    }[shape]
    save_checkpoint(save_obj, str(tmp_path / "net"))
    assert (tmp_path / "net.ckpt").read_bytes() == (FIXTURES / "net.ckpt").read_bytes()


# --- save_checkpoint semantics -----------------------------------------------------------


def test_round_trip_preserves_names_order_and_values(tmp_path):
    params = _random_params()
    save_checkpoint(params, str(tmp_path / "a.ckpt"))
    loaded = load_checkpoint(str(tmp_path / "a.ckpt"))
    assert list(loaded) == list(params)
    for name, param in params.items():
        np.testing.assert_array_equal(_np(loaded, name), param.asnumpy())


@pytest.mark.parametrize(
    ("name", "fmt", "written"),
    [
        ("noext", "ckpt", "noext.ckpt"),
        ("a.ckpt", "ckpt", "a.ckpt"),
        ("st2", "safetensors", "st2.safetensors"),
        ("b.safetensors", "safetensors", "b.safetensors"),
        ("c.ckpt", "safetensors", "c.ckpt.safetensors"),
    ],
)
def test_extension_is_appended_when_missing(tmp_path, name, fmt, written):
    save_checkpoint(_random_params(), str(tmp_path / name), format=fmt)
    assert os.listdir(tmp_path) == [written]
    assert _mode(tmp_path / written) == 0o400


def test_path_like_names_are_accepted(tmp_path):
    save_checkpoint(_random_params(), tmp_path / "p")
    assert list(load_checkpoint(tmp_path / "p.ckpt")) == [name for name, _ in BACKBONE]


def test_existing_read_only_file_is_overwritten(tmp_path):
    target = tmp_path / "a.ckpt"
    save_checkpoint(_random_params(seed=1), str(target))
    save_checkpoint(_random_params(seed=2), str(target))
    np.testing.assert_array_equal(
        _np(load_checkpoint(str(target)), "1.bias"),
        _random_params(seed=2)["1.bias"].asnumpy(),
    )


def test_choice_func_selects_parameters(tmp_path):
    save_checkpoint(
        DuckNet(),
        str(tmp_path / "a.ckpt"),
        choice_func=lambda name: name.endswith("bias"),
    )
    assert list(load_checkpoint(str(tmp_path / "a.ckpt"))) == ["1.bias", "3.bias"]


def test_append_dict_types(tmp_path):
    extra = {
        "epoch_num": 3,
        "lr": 0.5,
        "flag": True,
        "name": "run-1",
        "t": Tensor(np.ones(2, np.int32)),
    }
    save_checkpoint(_random_params(), str(tmp_path / "a.ckpt"), append_dict=extra)
    loaded = load_checkpoint(str(tmp_path / "a.ckpt"))
    assert list(loaded)[-5:] == list(extra)
    assert loaded["name"] == "run-1"
    dtypes = {
        key: (_np(loaded, key).dtype, _np(loaded, key).shape)
        for key in ("epoch_num", "lr", "flag", "t")
    }
    assert dtypes == {
        "epoch_num": (np.int64, ()),
        "lr": (np.float32, ()),
        "flag": (np.bool_, ()),
        "t": (np.int32, (2,)),
    }


def test_empty_list_writes_an_empty_file_that_does_not_load(tmp_path):
    save_checkpoint([], str(tmp_path / "e.ckpt"))
    assert (tmp_path / "e.ckpt").read_bytes() == b""
    with pytest.raises(ValueError, match=r"no entry of .* was loaded"):
        load_checkpoint(str(tmp_path / "e.ckpt"))


def test_async_save_writes_the_file_before_returning(tmp_path):
    for mode in (True, "thread", "process"):
        save_checkpoint(
            _random_params(), str(tmp_path / f"{mode}.ckpt"), async_save=mode
        )
        assert (tmp_path / f"{mode}.ckpt").is_file()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"save_obj": 1},
            TypeError,
            r"argument 'save_obj' must be nn.Cell, list or dict, but got 1 \(int\)",
        ),
        (
            {"ckpt_file_name": 1},
            TypeError,
            r"argument 'ckpt_file_name' must be str or os.PathLike, but got 1",
        ),
        (
            {"format": "h5"},
            ValueError,
            r"argument 'format' must be 'ckpt' or 'safetensors', but got 'h5'",
        ),
        (
            {"integrated_save": 1},
            TypeError,
            r"argument 'integrated_save' must be bool, but got 1",
        ),
        (
            {"async_save": 1},
            TypeError,
            r"For 'save_checkpoint', the argument 'async_save' must be of type 'bool' or 'str', "
            r"but got 1 of type 'int'\.",
        ),
        (
            {"async_save": "x"},
            ValueError,
            r"For 'save_checkpoint', the argument 'async_save' must be one of False, True, 'thread', "
            r"'process', but got 'x'\.",
        ),
        (
            {"append_dict": []},
            TypeError,
            r"argument 'append_dict' must be dict, but got \[\]",
        ),
        (
            {"append_dict": {"a": [1]}},
            TypeError,
            r"'append_dict' must map str keys .* key 'a' .* type 'list'",
        ),
        (
            {"append_dict": {1: 1}},
            TypeError,
            r"'append_dict' must map str keys .* key 1",
        ),
        (
            {"choice_func": 3},
            TypeError,
            r"argument 'choice_func' must be None or callable, but got 3",
        ),
        ({"crc_check": 1}, TypeError, r"argument 'crc_check' must be bool"),
        (
            {"enc_key": "k"},
            ValueError,
            r"argument 'enc_key' must be None or bytes, but got str",
        ),
        ({"enc_key": b"1" * 16}, NotImplementedError, r"encrypted checkpoints"),
        (
            {"enc_key": b"1" * 16, "format": "safetensors"},
            ValueError,
            r"when format is 'safetensors'",
        ),
        ({"bogus": 1}, TypeError, r"unexpected keyword arguments \['bogus'\]"),
        ({"save_obj": [1]}, TypeError, r"save_obj\[0\] is 1"),
        (
            {"save_obj": [{"name": "a", "data": 1}]},
            TypeError,
            r"save_obj\[0\]\['data'\] must be .* got 'int'",
        ),
        (
            {"save_obj": {"a": [1.0]}},
            TypeError,
            r"dict 'save_obj' must map str names .* key 'a' .* 'list'",
        ),
        (
            {"save_obj": {"c": np.zeros(2, np.complex64)}},
            TypeError,
            r"entry 'c' cannot be saved: dtype complex64",
        ),
    ],
)
def test_save_argument_errors(tmp_path, kwargs, error, match):
    arguments = {
        "save_obj": _random_params(),
        "ckpt_file_name": str(tmp_path / "a.ckpt"),
        **kwargs,
    }
    with pytest.raises(error, match=match):
        save_checkpoint(**arguments)
    assert os.listdir(tmp_path) == []


def test_directory_name_is_rejected(tmp_path):
    with pytest.raises(
        IsADirectoryError,
        match=r"argument 'ckpt_file_name' must be a file name, but '.*' is a directory",
    ):
        save_checkpoint(_random_params(), str(tmp_path))


def test_missing_directory_is_named(tmp_path):
    with pytest.raises(
        FileNotFoundError, match=r"its directory '.*missing' does not exist"
    ):
        save_checkpoint(_random_params(), str(tmp_path / "missing" / "a.ckpt"))


def test_write_failing_midway_leaves_no_file_and_keeps_the_old_one(
    tmp_path, monkeypatch
):
    target = tmp_path / "a.ckpt"
    save_checkpoint(_random_params(seed=1), str(target))
    before = target.read_bytes()

    def failing_encode(entries):
        for index, record in enumerate(
            _ckpt_format.encode_entry(*pair) for pair in entries
        ):
            if index == 2:
                raise OSError(28, "No space left on device")
            yield from record

    monkeypatch.setattr(_ckpt_format, "encode", failing_encode)
    with pytest.raises(OSError, match="No space left"):
        save_checkpoint(_random_params(seed=2), str(target))
    with pytest.raises(OSError, match="No space left"):
        save_checkpoint(_random_params(seed=2), str(tmp_path / "b.ckpt"))
    assert target.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["a.ckpt"]


_KILLED_CHILD = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from cadence import Parameter
    from cadence.checkpoint import _ckpt_format
    from cadence.checkpoint._serialization import save_checkpoint

    original = _ckpt_format.encode

    def slow_encode(entries):
        for index, record in enumerate(original(entries)):
            yield record
            if index == 5:  # three tensors (header, content) passed: one 8 MiB block is on disk
                print("half written", flush=True)
                time.sleep(600)  # killed here, in the middle of the file

    _ckpt_format.encode = slow_encode
    big = {f"w{i}": Parameter(np.full((1024, 1024), i, np.float32), name=f"w{i}") for i in range(4)}
    save_checkpoint(big, sys.argv[1])
    """
)


def test_process_killed_during_save_leaves_no_partial_checkpoint(tmp_path):
    target = tmp_path / "big.ckpt"
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED_CHILD, str(target)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "half written\n"
        (temp,) = (name for name in os.listdir(tmp_path) if name.endswith(TEMP_SUFFIX))
        assert (
            os.path.getsize(tmp_path / temp) >= 8 * 2**20
        )  # a staged block is on disk
    finally:
        child.kill()
        child.wait()
        child.stdout.close()  # type: ignore[union-attr]
    assert not target.exists()
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(str(target))


# --- safetensors -------------------------------------------------------------------------


def test_safetensors_round_trip_with_strings_in_metadata(tmp_path):
    extra = {"epoch_num": 2, "tag": "x", "note": "é✓"}
    save_checkpoint(
        _random_params(), str(tmp_path / "a"), format="safetensors", append_dict=extra
    )
    loaded = load_checkpoint(str(tmp_path / "a.safetensors"), format="safetensors")
    assert list(loaded) == sorted([*dict(BACKBONE), *extra])
    assert (loaded["tag"], loaded["note"]) == ("x", "é✓")
    assert _np(loaded, "epoch_num").dtype == np.int64

    from safetensors import safe_open

    with safe_open(str(tmp_path / "a.safetensors"), framework="numpy") as file:
        assert file.metadata() == {"format": "ms", "tag": "x", "note": "é✓"}


def test_safetensors_string_named_format_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="the key 'format' is reserved"):
        save_checkpoint({"format": "x"}, str(tmp_path / "a"), format="safetensors")


def test_corrupt_safetensors_names_the_file(tmp_path):
    save_checkpoint(_random_params(), str(tmp_path / "a"), format="safetensors")
    data = (tmp_path / "a.safetensors").read_bytes()
    (tmp_path / "cut.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(
        ValueError, match=r"Failed to read the checkpoint file '.*cut\.safetensors'"
    ):
        load_checkpoint(str(tmp_path / "cut.safetensors"), format="safetensors")


# --- load_checkpoint semantics -----------------------------------------------------------


@pytest.fixture
def ckpt(tmp_path: Path) -> str:
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(_random_params(), path, append_dict={"epoch_num": 1, "tag": "x"})
    return path


def test_filters_select_names(ckpt, caplog):
    assert list(load_checkpoint(ckpt, filter_prefix="1.")) == [
        "3.weight",
        "3.bias",
        "epoch_num",
        "tag",
    ]
    assert list(load_checkpoint(ckpt, specify_prefix=["1.", "tag"])) == [
        "1.weight",
        "1.bias",
        "tag",
    ]
    assert list(load_checkpoint(ckpt, specify_prefix="1.", filter_prefix=("1.b",))) == [
        "1.weight"
    ]
    assert list(load_checkpoint(ckpt, choice_func=lambda n: n.endswith("weight"))) == [
        "1.weight",
        "3.weight",
    ]
    assert "deprecated" in caplog.text


def test_prefixes_override_choice_func(ckpt):
    assert list(
        load_checkpoint(ckpt, specify_prefix="3.", choice_func=lambda n: False)
    ) == ["3.weight", "3.bias"]


def test_everything_filtered_out_is_an_error(ckpt):
    with pytest.raises(ValueError, match="every name was removed"):
        load_checkpoint(ckpt, filter_prefix=["1", "3", "epoch", "tag"])


def test_loading_with_net_loads_it(ckpt):
    net = DuckNet()
    load_checkpoint(ckpt, net=net)
    np.testing.assert_array_equal(
        net.arrays()["3.weight"], _random_params()["3.weight"].asnumpy()
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (
            {"ckpt_file_name": 1},
            TypeError,
            r"argument 'ckpt_file_name' must be str or os.PathLike, but got 1",
        ),
        (
            {"ckpt_file_name": "a.txt"},
            ValueError,
            r"must end with '\.ckpt' to match the argument 'format', but got 'a\.txt'",
        ),
        ({"format": "safetensors"}, ValueError, r"must end with '\.safetensors'"),
        (
            {"format": "h5"},
            ValueError,
            r"argument 'format' must be 'ckpt' or 'safetensors', but got 'h5'",
        ),
        (
            {"filter_prefix": 1},
            TypeError,
            r"argument 'filter_prefix' must be str, list\[str\] or tuple\[str\], but got 1",
        ),
        (
            {"specify_prefix": ""},
            ValueError,
            r"every element of the argument 'specify_prefix' must be a non-empty str",
        ),
        ({"filter_prefix": ["a", 2]}, TypeError, r"element 1 is 2"),
        (
            {"filter_prefix": []},
            ValueError,
            r"argument 'filter_prefix' must not be an empty list",
        ),
        ({"strict_load": 1}, TypeError, r"argument 'strict_load' must be bool"),
        (
            {"choice_func": "x"},
            TypeError,
            r"argument 'choice_func' must be None or callable",
        ),
        ({"net": 1}, TypeError, r"argument 'net' must be None or a Cell, but got 1"),
        ({"dec_key": b"k" * 16}, NotImplementedError, "encrypted checkpoints"),
    ],
)
def test_load_argument_errors(ckpt, kwargs, error, match):
    with pytest.raises(error, match=match):
        load_checkpoint(**{"ckpt_file_name": ckpt, **kwargs})


def test_missing_file_is_named(tmp_path):
    with pytest.raises(
        ValueError,
        match=r"the checkpoint file '.*nope\.ckpt' does not exist; check the argument 'ckpt_file_name'",
    ):
        load_checkpoint(str(tmp_path / "nope.ckpt"))


@pytest.mark.parametrize("keep", [0.5, 0.999, 0.1])
def test_truncated_file_is_a_value_error_naming_it(ckpt, tmp_path, keep):
    data = Path(ckpt).read_bytes()
    cut = tmp_path / "cut.ckpt"
    cut.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(
        ValueError,
        match=r"Failed to read the checkpoint file '.*cut\.ckpt': the file may be corrupted or truncated",
    ):
        load_checkpoint(str(cut))


def test_garbage_file_is_a_value_error_naming_it(tmp_path):
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(b"\x00\xff" * 100)
    with pytest.raises(
        ValueError, match=r"Failed to read the checkpoint file '.*bad\.ckpt'"
    ):
        load_checkpoint(str(bad))


# --- load_param_into_net -----------------------------------------------------------------


def test_full_load_returns_two_empty_lists():
    net = DuckNet()
    params = _random_params()
    assert load_param_into_net(net, params) == ([], [])
    for name, param in params.items():
        np.testing.assert_array_equal(net.arrays()[name], param.asnumpy())


def test_loaded_values_are_copies():
    net = DuckNet()
    params = _random_params()
    load_param_into_net(net, params)
    net.arrays()["1.bias"][...] = 42
    assert not np.any(params["1.bias"].asnumpy() == 42)


def test_missing_parameters_are_listed_and_logged(caplog):
    biases = {k: v for k, v in _random_params().items() if k.endswith("bias")}
    with caplog.at_level(logging.WARNING, logger=LOG):
        assert load_param_into_net(DuckNet(), biases) == (["1.weight", "3.weight"], [])
    assert "2 parameters of the argument 'net' are not loaded" in caplog.text
    assert "['1.weight', '3.weight']" in caplog.text


def test_empty_dict_loads_nothing():
    assert load_param_into_net(DuckNet(), {}) == ([name for name, _ in BACKBONE], [])


def test_extra_entries_are_listed_in_ckpt_not_load():
    params = {
        **_random_params(),
        "epoch_num": Parameter(np.array(1), name="epoch_num"),
        "tag": "x",
    }
    assert load_param_into_net(DuckNet(), params) == ([], ["epoch_num", "tag"])


def test_prefixed_names_are_recovered_without_strict_load(caplog):
    prefixed = {f"network.{k}": v for k, v in _random_params().items()}
    net = DuckNet()
    with caplog.at_level(logging.WARNING, logger=LOG):
        assert load_param_into_net(net, prefixed) == ([], list(prefixed))
    assert "removing the parameter name prefix 'network.'" in caplog.text
    np.testing.assert_array_equal(
        net.arrays()["1.weight"], _random_params()["1.weight"].asnumpy()
    )


def test_prefixed_names_do_not_load_with_strict_load():
    prefixed = {f"network.{k}": v for k, v in _random_params().items()}
    assert load_param_into_net(DuckNet(), prefixed, strict_load=True) == (
        [n for n, _ in BACKBONE],
        list(prefixed),
    )


def test_accu_grads_parameters_are_not_reported():
    net = DuckNet([*BACKBONE, ("accu_grads.1.weight", (2,))])
    assert load_param_into_net(net, _random_params()) == ([], [])


def test_string_value_for_a_parameter_name_does_not_load():
    params = {**_random_params(), "1.bias": "text"}
    assert load_param_into_net(DuckNet(), params) == (["1.bias"], ["1.bias"])


def test_shape_mismatch_is_a_runtime_error():
    params = {
        **_random_params(),
        "1.weight": Parameter(np.zeros((3, 3), np.float32), name="1.weight"),
    }
    with pytest.raises(
        RuntimeError,
        match=r"shape of '1.weight' .* must equal its shape in the argument 'net' \(16, 784\), but got \(3, 3\)",
    ):
        load_param_into_net(DuckNet(), params)


def test_trailing_singleton_dims_are_squeezed():
    value = np.arange(10, dtype=np.float32).reshape(10, 1, 1)
    params = {**_random_params(), "3.bias": Parameter(value, name="3.bias")}
    net = DuckNet()
    assert load_param_into_net(net, params) == ([], [])
    np.testing.assert_array_equal(net.arrays()["3.bias"], value.reshape(10))


def test_float_dtype_converts_with_a_warning_unless_strict(caplog):
    params = {
        k: Parameter(v.asnumpy().astype(np.float64), name=k)
        for k, v in _random_params().items()
    }
    net = DuckNet()
    with caplog.at_level(logging.WARNING, logger=LOG):
        assert load_param_into_net(net, params) == ([], [])
    assert (
        "'1.weight' is Float64 in 'parameter_dict' and Float32 in 'net'; converting to Float32"
        in caplog.text
    )
    assert net.arrays()["1.weight"].dtype == np.float32
    with pytest.raises(
        RuntimeError,
        match=r"dtype of '1.weight' .* \(Float32\), but got Float64; strict_load=True",
    ):
        load_param_into_net(DuckNet(), params, strict_load=True)


def test_int_dtype_converts_unless_strict():
    net = DuckNet([("step", (1,))], dtype=np.int32)
    assert load_param_into_net(
        net, {"step": Parameter(np.array([7], np.int64), name="step")}
    ) == ([], [])
    assert net.arrays()["step"].dtype == np.int32
    assert net.arrays()["step"][0] == 7


def test_float_int_mismatch_is_a_runtime_error():
    params = {
        **_random_params(),
        "1.bias": Parameter(np.zeros(16, np.int32), name="1.bias"),
    }
    with pytest.raises(
        RuntimeError,
        match=r"dtype of '1.bias' .* \(Float32\), but got Int32; only float<->float",
    ):
        load_param_into_net(DuckNet(), params)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((1, {}), TypeError, r"argument 'net' must be a Cell, but got 1 \(int\)"),
        (
            (DuckNet(), []),
            TypeError,
            r"argument 'parameter_dict' must be dict, but got list",
        ),
        (
            (DuckNet(), {"a": np.zeros(2)}),
            TypeError,
            r"must map str names to Parameter or str values, but got key 'a' .* 'numpy.ndarray'",
        ),
        (
            (DuckNet(), {"a": Tensor(np.zeros(2))}),
            TypeError,
            r"key 'a' with a value of type 'cadence.Tensor'",
        ),
        (
            (DuckNet(), {}, 1),
            TypeError,
            r"argument 'strict_load' must be bool, but got 1",
        ),
    ],
)
def test_load_param_into_net_argument_errors(args, error, match):
    with pytest.raises(error, match=match):
        load_param_into_net(*args)


def test_functions_are_exported():
    for name in ("save_checkpoint", "load_checkpoint", "load_param_into_net"):
        assert getattr(cadence, name) is globals()[name]
        assert name in cadence.__all__


# --- documentation -----------------------------------------------------------------------

# docs/checkpoints.md's examples run in tests/docs/test_examples.py, with every other page's.


# --- crc_check: MindSpore's CRC-32, byte for byte -------------------------------------------


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_crc_check_writes_what_mindspore_writes(tmp_path, fmt):
    # net-crc.* were written by MindSpore 2.10 with crc_check=True from net.* (see the fixtures' README).
    params = load_checkpoint(str(FIXTURES / f"net.{fmt}"), format=fmt)
    out = tmp_path / f"net.{fmt}"
    save_checkpoint(params, str(out), crc_check=True, format=fmt)
    assert _comparable(out) == _comparable(FIXTURES / f"net-crc.{fmt}")


def _comparable(path: Path) -> Any:
    """A file's bytes; for safetensors, the parsed header and the data after it.

    The safetensors library writes the metadata map in a random order (MindSpore's
    files too), so two equal files may differ in the order of two header keys.
    cadence adds its header checksum `cadence_crc32`, which MindSpore ignores.
    """
    data = path.read_bytes()
    if path.suffix != ".safetensors":
        return data
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    header["__metadata__"].pop("cadence_crc32", None)
    return header, data[8 + size :]


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_mindspore_crc_files_load_verified(fmt, caplog):
    with caplog.at_level(logging.WARNING, logger=LOG):
        loaded = load_checkpoint(
            str(FIXTURES / f"net-crc.{fmt}"), crc_check=True, format=fmt
        )
    assert caplog.records == []  # the file carries a CRC: nothing to warn about
    plain = load_checkpoint(str(FIXTURES / f"net.{fmt}"), format=fmt)
    assert list(loaded) == list(plain)  # the trailer / metadata entry is not an entry
    for name, value in plain.items():
        assert isinstance(value, Parameter)
        np.testing.assert_array_equal(np.asarray(loaded[name]), value.asnumpy())


def _flip_bit(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x10
    path.chmod(0o600)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
@pytest.mark.parametrize("crc_check", [True, False])
def test_a_flipped_bit_in_a_file_with_a_crc_is_refused(tmp_path, fmt, crc_check):
    path = tmp_path / f"net.{fmt}"
    path.write_bytes((FIXTURES / f"net-crc.{fmt}").read_bytes())
    _flip_bit(path, 30_000)  # inside 1.weight's data in both files
    # A CRC the file carries is checked whatever crc_check says.
    with pytest.raises(ValueError, match=r"CRC-32 .* differs .* the file is damaged"):
        load_checkpoint(str(path), crc_check=crc_check, format=fmt)


@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_crc_check_on_a_file_without_a_crc_warns_as_mindspore(fmt, caplog):
    with caplog.at_level(logging.WARNING, logger=LOG):
        loaded = load_checkpoint(
            str(FIXTURES / f"net.{fmt}"), crc_check=True, format=fmt
        )
    assert sorted(loaded) == ["1.bias", "1.weight", "3.bias", "3.weight"]
    assert [r.getMessage() for r in caplog.records] == [
        f"For 'load_checkpoint', the file {str(FIXTURES / f'net.{fmt}')!r} carries no CRC (it was saved "
        "without crc_check=True), so its integrity cannot be checked."
    ]


def test_crc_check_covers_append_entries_and_strings(tmp_path):
    path = tmp_path / "a.ckpt"
    save_checkpoint(
        Dense_like(),
        str(path),
        append_dict={"tag": "abc", "epoch_num": 3},
        crc_check=True,
    )
    data = path.read_bytes()
    assert data[-17:-10] == b"crc_num"
    loaded = load_checkpoint(str(path))
    assert loaded["tag"] == "abc"
    tag_at = data.index("abc".encode("utf-32-le"))
    _flip_bit(path, tag_at)
    with pytest.raises(ValueError, match="the file is damaged"):
        load_checkpoint(str(path))


def Dense_like() -> dict[str, Any]:  # noqa: N802 - reads as the network it stands for
    return {"w": Parameter(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")}


def test_reserved_safetensors_metadata_key_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"the key 'crc_num' is reserved"):
        save_checkpoint(
            {"w": np.zeros(2, np.float32), "crc_num": "x"},
            str(tmp_path / "a.safetensors"),
            format="safetensors",
        )
