"""CheckpointSnapshot: a checkpoint captured in memory at one moment, written later from any thread."""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import numpy as np
import pytest

from cadence import (
    CheckpointSnapshot,
    Parameter,
    load_checkpoint,
    nn,
    save_checkpoint,
)
from cadence.checkpoint import _atomic

SPECS = [("1.weight", (16, 784)), ("1.bias", (16,)), ("3.weight", (10, 16))]


def _array(loaded: dict[str, Any], name: str) -> Any:
    value = loaded[name]
    assert isinstance(value, Parameter)
    return value.asnumpy()


def _params(seed: int = 0) -> list[Parameter]:
    rng = np.random.default_rng(seed)
    return [
        Parameter(rng.standard_normal(shape).astype(np.float32), name=name)
        for name, shape in SPECS
    ]


@pytest.mark.parametrize("crc_check", [False, True])
@pytest.mark.parametrize("fmt", ["ckpt", "safetensors"])
def test_written_bytes_are_those_save_checkpoint_writes(tmp_path, fmt, crc_check):
    params = _params()
    append = {"epoch_num": 3, "lr": 0.5, "tag": "run-1"} if fmt == "ckpt" else None
    save_checkpoint(
        params,
        str(tmp_path / "direct"),
        append_dict=append,
        format=fmt,
        crc_check=crc_check,
    )
    snapshot = CheckpointSnapshot()
    snapshot.capture(params, append, format=fmt, crc_check=crc_check)
    assert snapshot.format == fmt
    size = snapshot.write(tmp_path / "later")
    written = (tmp_path / f"later.{fmt}").read_bytes()
    assert _parsed(written) == _parsed((tmp_path / f"direct.{fmt}").read_bytes())
    assert size == snapshot.size == len(written)


def _parsed(data: bytes) -> Any:
    """A .ckpt file's bytes; a safetensors file's header (parsed) and data.

    The safetensors library writes its metadata map in a random order, which
    shows once there are two keys (crc_check adds them).
    """
    if data[-17:-10] == b"crc_num" or data[8:10] != b'{"':
        return data
    size = int.from_bytes(data[:8], "little")
    return json.loads(data[8 : 8 + size]), data[8 + size :]


def test_capture_is_a_copy_of_that_moment(tmp_path):
    params = _params()
    before = {str(p.name): p.asnumpy().copy() for p in params}
    snapshot = CheckpointSnapshot()
    snapshot.capture(params)
    for p in params:  # training goes on and changes the parameters in place
        p.asnumpy()[...] += 1.0
    snapshot.write(tmp_path / "a.ckpt")
    loaded = load_checkpoint(str(tmp_path / "a.ckpt"))
    for name, values in before.items():
        np.testing.assert_array_equal(_array(loaded, name), values)


def test_a_snapshot_is_reused_and_can_be_written_twice(tmp_path):
    net = nn.Dense(4, 3)
    snapshot = CheckpointSnapshot()
    snapshot.capture(net)
    capacity = snapshot._image.capacity
    snapshot.write(tmp_path / "one.ckpt")
    snapshot.write(tmp_path / "two.ckpt")
    assert (tmp_path / "one.ckpt").read_bytes() == (tmp_path / "two.ckpt").read_bytes()
    snapshot.capture(net, {"step_num": 2})  # smaller than the buffer: no new memory
    assert snapshot._image.capacity == capacity
    snapshot.write(tmp_path / "three.ckpt")
    assert sorted(load_checkpoint(str(tmp_path / "three.ckpt"))) == [
        "bias",
        "step_num",
        "weight",
    ]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda s: s.capture(42),
            TypeError,
            r"For 'CheckpointSnapshot.capture', the argument 'save_obj' must be nn.Cell, list or dict, but got 42",
        ),
        (
            lambda s: s.capture([], append_dict=[1]),
            TypeError,
            r"For 'CheckpointSnapshot.capture', the argument 'append_dict' must be dict, but got \[1\]",
        ),
        (
            lambda s: s.capture([], format="pt"),
            ValueError,
            r"For 'CheckpointSnapshot.capture', the argument 'format' must be",
        ),
        (
            lambda s: s.capture([], choice_func=3),
            TypeError,
            r"For 'CheckpointSnapshot.capture', the argument 'choice_func'",
        ),
        (
            lambda s: s.capture({"x": np.zeros(2, complex)}),
            TypeError,
            r"For 'CheckpointSnapshot.capture', entry 'x' cannot be saved",
        ),
        (
            lambda s: s.write(3),
            TypeError,
            r"For 'CheckpointSnapshot.write', the argument 'ckpt_file_name' must be",
        ),
    ],
)
def test_argument_errors_name_the_method_and_argument(call, error, match):
    with pytest.raises(error, match=match):
        call(CheckpointSnapshot())


def test_write_before_any_capture_is_an_error(tmp_path):
    with pytest.raises(RuntimeError, match="nothing to write: call 'capture' first"):
        CheckpointSnapshot().write(tmp_path / "a.ckpt")
    assert os.listdir(tmp_path) == []


def test_a_failed_capture_leaves_nothing_to_write(tmp_path):
    snapshot = CheckpointSnapshot()
    snapshot.capture(_params())
    with pytest.raises(TypeError, match="entry 'x' cannot be saved"):
        snapshot.capture({"ok": np.ones(2, np.float32), "x": np.zeros(2, complex)})
    with pytest.raises(RuntimeError, match="call 'capture' first"):
        snapshot.write(tmp_path / "a.ckpt")


def test_capturing_while_another_thread_writes_is_refused(tmp_path, monkeypatch):
    snapshot = CheckpointSnapshot()
    snapshot.capture(_params())
    writing, release = threading.Event(), threading.Event()
    real_write = _atomic.FileImage.write

    def slow_write(self: Any, path: Any, **kwargs: Any) -> int:
        writing.set()
        release.wait(10)
        return real_write(self, path, **kwargs)

    monkeypatch.setattr(_atomic.FileImage, "write", slow_write)
    writer = threading.Thread(target=snapshot.write, args=(tmp_path / "a.ckpt",))
    writer.start()
    try:
        assert writing.wait(10)
        with pytest.raises(RuntimeError, match="in use by another thread"):
            snapshot.capture(_params(1))
    finally:
        release.set()
        writer.join(10)
    loaded = load_checkpoint(str(tmp_path / "a.ckpt"))  # the first capture, intact
    np.testing.assert_array_equal(_array(loaded, "1.bias"), _params()[1].asnumpy())


def test_a_crc_snapshot_written_twice_gives_the_same_verified_file(tmp_path):
    # The .ckpt trailer is filled in by the first write (in the writing thread).
    params = _params()
    snapshot = CheckpointSnapshot()
    snapshot.capture(params, format="ckpt", crc_check=True)
    snapshot.write(tmp_path / "a")
    snapshot.write(tmp_path / "b")
    first = (tmp_path / "a.ckpt").read_bytes()
    assert first == (tmp_path / "b.ckpt").read_bytes()
    assert first[-17:-10] == b"crc_num"
    assert sorted(load_checkpoint(str(tmp_path / "a.ckpt"), crc_check=True))
    snapshot.capture(
        params, format="ckpt"
    )  # a capture without crc_check has no trailer
    snapshot.write(tmp_path / "c")
    assert (tmp_path / "c.ckpt").read_bytes() == first[:-17]
