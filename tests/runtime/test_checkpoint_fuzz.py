"""Damaged and hostile checkpoint files: a documented error or the saved data, nothing else.

Hypothesis mutates valid files (bit flips, truncations, spliced-in bytes, bytes cut out)
and `load_checkpoint` must either raise `ValueError` (its documented error for a corrupt
file), or return exactly what was saved. A file saved with `crc_check=True` that a
mutation stripped of its checksum (a cut through the trailer) may load what is left, but
then `crc_check=True` says so in a warning. Hostile headers that claim more data than
the file holds must fail before anything of that size is allocated: that runs in a
child process whose address space is capped far below what the claims would need.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import textwrap
import tracemalloc
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cadence import Parameter, load_checkpoint, save_checkpoint
from cadence.checkpoint._ckpt_format import (
    _varint,  # the writer's encoder builds the claims
)
from tests.helpers.processes import run_python

if TYPE_CHECKING:
    from pathlib import Path

FORMATS = ["ckpt", "safetensors"]
LOG = "cadence.serialization"


def _saved(directory: Path, fmt: str, crc_check: bool) -> tuple[bytes, dict[str, Any]]:
    """A small train-network-like checkpoint's bytes, and what loading it returns."""
    rng = np.random.default_rng(0)
    params = {
        "fc.weight": rng.standard_normal((8, 5)).astype(np.float32),
        "fc.bias": rng.standard_normal(8).astype(np.float32),
        "global_step": np.array([7], np.int32),
        "moments.fc.weight": rng.standard_normal((8, 5)).astype(np.float64),
    }
    path = directory / f"original-{crc_check}.{fmt}"
    save_checkpoint(
        params,
        str(path),
        append_dict={"epoch_num": 3, "tag": "run-\u00e9"},
        crc_check=crc_check,
        format=fmt,
    )
    return path.read_bytes(), _values(load_checkpoint(str(path), format=fmt))


def _values(loaded: dict[str, Parameter | str]) -> dict[str, Any]:
    return {
        name: value if isinstance(value, str) else value.asnumpy()
        for name, value in loaded.items()
    }


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if list(a) != list(b):
        return False
    for name, value in a.items():
        other = b[name]
        if isinstance(value, str) or isinstance(other, str):
            if value != other:
                return False
        elif (
            value.dtype,
            value.shape,
            value.tobytes(),
        ) != (  # bitwise: NaN payloads count
            other.dtype,
            other.shape,
            other.tobytes(),
        ):
            return False
    return True


@st.composite
def mutations(draw: Any, size: int) -> tuple[str, int, int, bytes]:
    kind = draw(st.sampled_from(["flip", "truncate", "splice", "cut"]))
    where = draw(st.integers(0, size - 1))
    if kind == "flip":
        return kind, where, draw(st.integers(0, 7)), b""
    if kind == "truncate":
        return kind, where, 0, b""
    if kind == "splice":
        return kind, where, 0, draw(st.binary(min_size=1, max_size=24))
    return kind, where, draw(st.integers(1, 64)), b""


def _mutate(data: bytes, mutation: tuple[str, int, int, bytes]) -> bytes:
    kind, where, amount, extra = mutation
    if kind == "flip":
        out = bytearray(data)
        out[where] ^= 1 << amount
        return bytes(out)
    if kind == "truncate":
        return data[:where]
    if kind == "splice":
        return data[:where] + extra + data[where:]
    return data[:where] + data[where + amount :]


def _load(path: Path, fmt: str, caplog: pytest.LogCaptureFixture) -> Any:
    """What loading gives: ('error', message), or ('loaded', values, warned)."""
    caplog.clear()
    tracemalloc.start()
    try:
        with caplog.at_level(logging.WARNING, logger=LOG):
            loaded = load_checkpoint(str(path), crc_check=True, format=fmt)
    except (
        ValueError
    ) as error:  # the documented error; any other exception fails the test
        return ("error", str(error))
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        # numpy's allocations are traced: nothing beyond a few copies of the file itself.
        assert peak < 8 * path.stat().st_size + (1 << 20), peak
    warned = any("carries no CRC" in r.getMessage() for r in caplog.records)
    return ("loaded", _values(loaded), warned)


_FUZZ = settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=150
)


@pytest.mark.parametrize("crc_check", [True, False], ids=["crc", "no-crc"])
@pytest.mark.parametrize("fmt", FORMATS)
@_FUZZ
@given(data=st.data())
def test_a_damaged_file_raises_value_error_or_loads(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    fmt: str,
    crc_check: bool,
    data: Any,
) -> None:
    # Any damage: a documented error or a load, never another exception (`_load`).
    original, expected = _saved(tmp_path, fmt, crc_check=crc_check)
    mutation = data.draw(mutations(len(original)))
    damaged = tmp_path / f"damaged.{fmt}"
    damaged.write_bytes(_mutate(original, mutation))
    outcome = _load(damaged, fmt, caplog)
    # Without a checksum a flipped bit in tensor data cannot be seen (as in MindSpore).
    if crc_check and outcome[0] == "loaded":
        _, values, warned = outcome
        # Unchanged, or the checksum itself was cut away and the user was told.
        assert _same(values, expected) or warned, mutation


@pytest.mark.parametrize("fmt", FORMATS)
def test_single_bit_flips_in_a_file_with_a_crc_are_all_detected(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, fmt: str
) -> None:
    """Every bit of the file, flipped in turn (the campaign's 28 of 30 flips now all fail)."""
    original, expected = _saved(tmp_path, fmt, crc_check=True)
    damaged = tmp_path / f"damaged.{fmt}"
    silent = []
    for offset in range(0, len(original), max(1, len(original) // 200)):
        for bit in (0, 5):
            damaged.write_bytes(_mutate(original, ("flip", offset, bit, b"")))
            outcome = _load(damaged, fmt, caplog)
            if outcome[0] == "loaded" and not _same(outcome[1], expected):
                silent.append((offset, bit))
    assert silent == []


# --- hostile headers: claims the file's size cannot back ----------------------------------


def _ckpt_record(name: str, dims: list[int], type_name: str, content: bytes) -> bytes:
    tensor = b"".join(b"\x08" + _varint(d) for d in dims)
    tensor += b"\x12" + _varint(len(type_name)) + type_name.encode()
    tensor += b"\x1a" + _varint(len(content)) + content
    value = b"\x0a" + _varint(len(name)) + name.encode()
    value += b"\x12" + _varint(len(tensor)) + tensor
    return b"\x0a" + _varint(len(value)) + value


def _safetensors(
    header: dict[str, Any], data: bytes, claimed: int | None = None
) -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw) if claimed is None else claimed) + raw + data


HOSTILE: dict[str, tuple[str, bytes]] = {
    "ckpt-rows": ("ckpt", _ckpt_record("w", [10**12, 4], "Float32", b"\x00" * 16)),
    "ckpt-dims-overflow": ("ckpt", _ckpt_record("w", [2**62, 2**62], "Float64", b"")),
    "ckpt-negative-dim": ("ckpt", _ckpt_record("w", [-1, 4], "Float32", b"\x00" * 16)),
    "ckpt-content-length": (
        "ckpt",
        b"\x0a" + _varint(2**40) + b"\x0a\x01w\x12" + _varint(2**40 - 8),
    ),
    "ckpt-string-huge": ("ckpt", _ckpt_record("s", [10**12], "str", b"x\x00\x00\x00")),
    "safetensors-rows": (
        "safetensors",
        _safetensors(
            {"w": {"dtype": "F32", "shape": [10**12, 4], "data_offsets": [0, 16]}},
            b"\x00" * 16,
        ),
    ),
    "safetensors-offsets": (
        "safetensors",
        _safetensors(
            {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 10**12]}},
            b"\x00" * 16,
        ),
    ),
    "safetensors-header-length": (
        "safetensors",
        _safetensors(
            {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}, b"", 2**60
        ),
    ),
    "safetensors-metadata-huge": (
        "safetensors",
        _safetensors({"__metadata__": {"a": "b"}}, b"", 10**12),
    ),
}

_CHILD = textwrap.dedent(
    """
    import resource, sys
    from cadence import load_checkpoint

    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    for path in sys.argv[2:]:
        fmt = "safetensors" if path.endswith(".safetensors") else "ckpt"
        try:
            load_checkpoint(path, format=fmt)
        except ValueError as error:
            print("ValueError", path, str(error).replace("\\n", " ")[:160])
        else:
            print("loaded", path)
    """
)


def test_hostile_headers_fail_before_allocating(tmp_path: Path) -> None:
    paths = []
    for name, (fmt, content) in HOSTILE.items():
        path = tmp_path / f"{name}.{fmt}"
        path.write_bytes(content)
        paths.append(str(path))
    # The child may map what importing cadence needs, plus 512 MiB: every claim above
    # needs at least 16 GB, so an allocation of it raises MemoryError (a test failure).
    import resource

    baseline = _address_space_of_import()
    limit = baseline + (512 << 20)
    assert limit < resource.RLIM_INFINITY or resource.RLIM_INFINITY < 0
    result = run_python(
        _CHILD, str(limit), *paths, env={**os.environ, "OMP_NUM_THREADS": "1"}
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert len(lines) == len(HOSTILE), result.stdout
    assert all(line.startswith("ValueError ") for line in lines), result.stdout


def _address_space_of_import() -> int:
    probe = (
        "import cadence, cadence.checkpoint._serialization, safetensors.numpy;"
        "print(open('/proc/self/statm').read().split()[0])"
    )
    pages = run_python(probe, check=True).stdout
    return int(pages) * os.sysconf("SC_PAGE_SIZE")
