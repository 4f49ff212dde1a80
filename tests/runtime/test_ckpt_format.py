"""MindSpore's `.ckpt` container: decoding real MindSpore files and encoding them back byte for byte."""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.protobuf import descriptor_pool

from cadence.checkpoint import _ckpt_format as fmt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mindspore"
CKPT_FILES = ["net.ckpt", "train_net.ckpt", "append_info-1_2.ckpt"]


def _manifest() -> Any:
    return json.loads((FIXTURES / "manifest.json").read_text())


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _joined(name: str, value: Any) -> bytes:
    """The bytes `encode_entry` yields for one entry, joined."""
    return b"".join(fmt.encode_entry(name, value))


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _record(
    tag: str, type_name: str, content: bytes, dims: list[int], packed: bool = False
) -> bytes:
    """A checkpoint record built by hand from the wire format (the oracle for the encoder)."""
    if packed and dims:
        dims_bytes = _field(1, b"".join(_varint(d) for d in dims))
    else:
        dims_bytes = b"".join(b"\x08" + _varint(d) for d in dims)
    tensor = dims_bytes + _field(2, type_name.encode()) + _field(3, content)
    return _field(1, _field(1, tag.encode()) + _field(2, tensor))


# --- real MindSpore files ----------------------------------------------------------


@pytest.mark.parametrize("file_name", CKPT_FILES)
def test_decode_matches_manifest(file_name):
    expected = _manifest()["files"][file_name]["entries"]
    entries = fmt.decode((FIXTURES / file_name).read_bytes())
    assert [name for name, _ in entries] == [e["name"] for e in expected]
    for (name, value), want in zip(entries, expected, strict=True):
        if want["tensor_type"] == "str":
            assert value == want["value"], name
            continue
        assert isinstance(value, np.ndarray), name
        assert fmt.tensor_type_name(value.dtype) == want["tensor_type"], name
        assert value.dtype == np.dtype(want["numpy_dtype"]), name
        assert list(value.shape) == want["shape"], name
        assert value.nbytes == want["content_bytes"], name
        assert hashlib.sha256(value.tobytes()).hexdigest() == want["sha256"], name
        if "value" in want:
            assert value.reshape(-1)[0].item() == want["value"], name


@pytest.mark.parametrize("file_name", CKPT_FILES)
def test_encode_reproduces_mindspore_bytes(file_name):
    original = (FIXTURES / file_name).read_bytes()
    assert b"".join(fmt.encode(fmt.decode(original))) == original


def test_each_record_is_one_checkpoint_message_in_the_file():
    original = (FIXTURES / "append_info-1_2.ckpt").read_bytes()
    records = [_joined(name, value) for name, value in fmt.decode(original)]
    assert b"".join(records) == original
    assert all(record.startswith(b"\x0a") for record in records)


# --- encoding details --------------------------------------------------------------


def test_tensor_record_has_unpacked_dims_and_raw_little_endian_content():
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    record = _joined("w", value)
    assert record == _record("w", "Float32", value.tobytes(), [2, 3])


def test_scalar_has_no_dims():
    record = _joined("lr", np.array(0.01, dtype=np.float32))
    assert record == _record("lr", "Float32", np.float32(0.01).tobytes(), [])


def test_bool_scalar_is_one_byte():
    record = _joined("flag", np.array(True))
    assert record == _record("flag", "Bool", b"\x01", [])


@pytest.mark.parametrize(
    ("text", "content"),
    [("x", b"x\0\0\0"), ("", b"\0\0\0\0"), ("é✓", bytes.fromhex("e9000000 13270000"))],
)
def test_string_is_utf32_with_dims_zero(text, content):
    record = _joined("tag", text)
    assert record == _record("tag", "str", content, [0])
    assert fmt.decode(record) == [("tag", text)]


@pytest.mark.parametrize(
    ("dtype", "type_name"),
    [
        (np.bool_, "Bool"),
        (np.int8, "Int8"),
        (np.uint8, "UInt8"),
        (np.int16, "Int16"),
        (np.uint16, "UInt16"),
        (np.int32, "Int32"),
        (np.uint32, "UInt32"),
        (np.int64, "Int64"),
        (np.uint64, "UInt64"),
        (np.float16, "Float16"),
        (np.float32, "Float32"),
        (np.float64, "Float64"),
    ],
)
def test_every_dtype_round_trips_with_mindspore_type_name(dtype, type_name):
    value = np.arange(5).astype(dtype)
    assert fmt.tensor_type_name(value.dtype) == type_name
    record = _joined("v", value)
    ((name, decoded),) = fmt.decode(record)
    assert name == "v"
    assert isinstance(decoded, np.ndarray)
    assert decoded.dtype == value.dtype
    np.testing.assert_array_equal(decoded, value)
    assert decoded.flags.writeable


def test_big_endian_and_non_contiguous_arrays_are_stored_little_endian_c_order():
    value = np.arange(12, dtype=">f4").reshape(3, 4).T
    record = _joined("w", value)
    assert record == _record(
        "w", "Float32", np.ascontiguousarray(value, dtype="<f4").tobytes(), [4, 3]
    )


@pytest.mark.parametrize(
    ("tag", "value"),
    [
        ("w", np.arange(6, dtype=np.float32).reshape(2, 3)),
        ("empty", np.zeros((0, 4), np.float32)),
        ("scalar", np.array(3, np.int64)),
        (
            "wide",
            np.zeros((300, 200), np.uint8),
        ),  # multi-byte varints for lengths and dims
        ("naïve/名前", np.ones(3, np.float16)),
        ("text", "x" * 40),
    ],
)
def test_records_equal_protobufs_own_serialization(tag, value):
    message: Any = fmt._Checkpoint()
    entry = message.value.add()
    entry.tag = tag
    if isinstance(value, str):
        entry.tensor.dims.append(0)
        entry.tensor.tensor_type = "str"
        entry.tensor.tensor_content = fmt._encode_str(value)
    else:
        entry.tensor.dims.extend(value.shape)
        entry.tensor.tensor_type = fmt.tensor_type_name(value.dtype)
        entry.tensor.tensor_content = value.tobytes()
    assert _joined(tag, value) == message.SerializeToString()


def test_tensor_content_is_yielded_as_a_view_not_a_copy():
    value = np.arange(1024, dtype=np.float32)
    chunks = list(fmt.encode_entry("w", value))
    content = chunks[-1]
    assert isinstance(content, memoryview)
    assert np.shares_memory(np.asarray(content), value)


def test_unsupported_dtype_is_a_type_error():
    with pytest.raises(TypeError, match=r"dtype complex64 cannot be stored"):
        list(fmt.encode_entry("c", np.zeros(2, dtype=np.complex64)))


def test_large_tensor_spans_records_with_the_same_tag_and_full_dims(monkeypatch):
    monkeypatch.setattr(fmt, "SLICE_BYTES", 16)
    value = np.arange(10, dtype=np.float32).reshape(2, 5)  # 40 bytes -> 16 + 16 + 8
    raw = value.tobytes()
    records = b"".join(
        _record("big", "Float32", raw[i : i + 16], [2, 5]) for i in (0, 16, 32)
    )
    assert _joined("big", value) == records
    decoded = fmt.decode(records + _joined("next", np.zeros(1, np.int32)))
    assert [name for name, _ in decoded] == ["big", "next"]
    np.testing.assert_array_equal(decoded[0][1], value)


# --- decoding details --------------------------------------------------------------


def test_packed_dims_are_accepted():
    content = np.arange(6, dtype=np.int32).tobytes()
    ((_, value),) = fmt.decode(_record("p", "Int32", content, [2, 3], packed=True))
    assert isinstance(value, np.ndarray)
    assert value.shape == (2, 3)


def test_numeric_scalar_marked_with_dims_zero_loads_as_scalar():
    ((_, value),) = fmt.decode(_record("s", "Int64", np.int64(7).tobytes(), [0]))
    assert isinstance(value, np.ndarray)
    assert value.shape == ()
    assert value == 7


def test_bfloat16_widens_exactly_to_float32():
    expected = np.array([1.0, -2.5, 0.15625], dtype=np.float32)
    halves = (expected.view(np.uint32) >> 16).astype("<u2")
    ((_, value),) = fmt.decode(_record("b", "BFloat16", halves.tobytes(), [3]))
    assert isinstance(value, np.ndarray)
    assert value.dtype == np.float32
    np.testing.assert_array_equal(value, expected)


def test_a_crc_trailer_is_verified_and_stripped():
    record = _record("w", "Int8", b"\x01\x02", [2])
    trailer = b"crc_num" + zlib.crc32(record).to_bytes(10, "big")
    assert fmt.crc_trailer(zlib.crc32(record)) == trailer
    assert b"".join(fmt.with_crc_trailer([record[:3], record[3:]])) == record + trailer
    ((name, value),) = fmt.decode(record + trailer)
    assert name == "w"
    np.testing.assert_array_equal(value, [1, 2])
    with pytest.raises(fmt.ChecksumError, match=r"differs from the one stored"):
        fmt.decode(record + b"crc_num" + (zlib.crc32(record) ^ 1).to_bytes(10, "big"))


def test_empty_data_has_no_entries():
    assert fmt.decode(b"") == []


@pytest.mark.parametrize("cut", [1, 5, 30, -1])
def test_truncated_record_is_a_value_error(cut):
    record = _record("w", "Float32", np.zeros(8, np.float32).tobytes(), [8])
    with pytest.raises(ValueError, match="invalid protobuf data"):
        fmt.decode(record[:cut])


def test_text_file_is_a_value_error():
    with pytest.raises(ValueError, match="invalid protobuf data"):
        fmt.decode(b"this is not a checkpoint\n")


def test_bytes_outside_the_schema_are_a_value_error():
    record = _record("w", "Int8", b"\x01", [1])
    with pytest.raises(ValueError, match="fields outside the checkpoint schema"):
        fmt.decode(record + _field(7, b"junk"))


def test_unknown_field_inside_an_entry_is_a_value_error():
    tensor = b"\x08\x01" + _field(2, b"Int8") + _field(3, b"\x01") + _field(9, b"junk")
    record = _field(1, _field(1, b"w") + _field(2, tensor))
    with pytest.raises(ValueError, match="fields outside the checkpoint schema"):
        fmt.decode(record)


def test_content_not_matching_dims_is_a_value_error():
    with pytest.raises(
        ValueError,
        match=r"entry 'w' is truncated or malformed: dims \[4\] of Float32 need 16 bytes",
    ):
        fmt.decode(_record("w", "Float32", b"\0" * 12, [4]))


def test_unknown_tensor_type_is_a_value_error():
    with pytest.raises(ValueError, match=r"entry 'q' has tensor_type 'Int4'"):
        fmt.decode(_record("q", "Int4", b"\0", [2]))


def test_malformed_string_is_a_value_error():
    with pytest.raises(ValueError, match=r"string entry 's' is malformed"):
        fmt.decode(_record("s", "str", b"abc", [0]))


def test_map_tensor_is_a_value_error():
    map_tensor = _field(1, b"\x08\x01" + _field(2, b"Int64") + _field(3, b"\0" * 8))
    record = _field(1, _field(1, b"m") + _field(3, map_tensor))
    with pytest.raises(ValueError, match=r"entry 'm' holds maptensor"):
        fmt.decode(record)


def test_schema_lives_in_a_private_descriptor_pool():
    # MindSpore registers its own checkpoint.proto in the default pool; ours must not clash.
    with pytest.raises(KeyError):
        descriptor_pool.Default().FindFileByName("checkpoint.proto")
