"""MindSpore's `.ckpt` container: encode and decode, byte-compatible with MindSpore 2.x.

A `.ckpt` file is a plain concatenation of serialized protobuf `Checkpoint`
messages (schema `checkpoint.proto`, proto2, no package), one `Value` per
record, with no header or trailer. Because a repeated field's records
concatenate, the whole file parses as one `Checkpoint` whose `value` list holds
the entries in file order. Per entry:

- `tag` is the parameter name;
- `tensor.dims` holds the shape, unpacked (none at all for a scalar);
- `tensor.tensor_type` is MindSpore's dtype name (`"Float32"`, `"Int64"`,
  `"Bool"`, ...) or `"str"` for a string entry (dims `[0]`, content UTF-32-LE);
- `tensor.tensor_content` is the raw little-endian C-order data. A tensor over
  512 MiB is split into several consecutive records with the same tag and the
  full dims, each carrying one slice of the bytes.

A file saved with `crc_check=True` ends with a 17-byte trailer after the last
record: the 7 ASCII bytes `crc_num`, then the CRC-32 (zlib's) of every byte
before the trailer as a 10-byte big-endian number. MindSpore writes and reads
exactly this, so such files load in both directions.

The message classes are built at runtime from a descriptor in a private
descriptor pool rather than from committed `protoc` output: the schema is four
small messages, a private pool cannot clash with MindSpore's own
`checkpoint.proto` when both are imported in one process, and nothing generated
has to be kept in step with the installed protobuf runtime.
"""

from __future__ import annotations

import functools
import math
import zlib
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    message_factory,
    unknown_fields,
)
from google.protobuf.message import DecodeError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    import numpy.typing as npt
    from google.protobuf.message import Message

__all__ = [
    "CRC_TRAILER_BYTES",
    "SLICE_BYTES",
    "ChecksumError",
    "crc_trailer",
    "decode",
    "encode",
    "encode_entry",
    "split_crc_trailer",
    "tensor_type_name",
    "verify_crc",
    "with_crc_trailer",
]

SLICE_BYTES = 512 * 1024 * 1024
"""Largest `tensor_content` of one record; bigger tensors span several records."""

_STR_TYPE = "str"
_CRC_MARKER = b"crc_num"
_CRC_DIGITS = 10  # bytes of the big-endian CRC after the marker
CRC_TRAILER_BYTES = len(_CRC_MARKER) + _CRC_DIGITS
"""Size of the `crc_num` trailer that `crc_check=True` appends to a `.ckpt` file."""


class ChecksumError(ValueError):
    """The bytes of a checkpoint do not match the checksum stored with them: the file is damaged."""


# MindSpore tensor_type name -> little-endian numpy dtype.
_NUMPY_OF_TYPE: dict[str, np.dtype[Any]] = {
    "Bool": np.dtype(np.bool_),
    "Int8": np.dtype("<i1"),
    "UInt8": np.dtype("<u1"),
    "Int16": np.dtype("<i2"),
    "UInt16": np.dtype("<u2"),
    "Int32": np.dtype("<i4"),
    "UInt32": np.dtype("<u4"),
    "Int64": np.dtype("<i8"),
    "UInt64": np.dtype("<u8"),
    "Float16": np.dtype("<f2"),
    "Float32": np.dtype("<f4"),
    "Float64": np.dtype("<f8"),
}
_TYPE_OF_NUMPY: dict[np.dtype[Any], str] = {
    dtype: name for name, dtype in _NUMPY_OF_TYPE.items()
}


def _build_checkpoint_class() -> type[Message]:
    """Build the `Checkpoint` message class from MindSpore's schema, in a private pool."""
    fdp = descriptor_pb2.FileDescriptorProto(name="checkpoint.proto", syntax="proto2")
    fd = descriptor_pb2.FieldDescriptorProto
    tensor = fdp.message_type.add(name="TensorProto")
    tensor.field.add(name="dims", number=1, type=fd.TYPE_INT64, label=fd.LABEL_REPEATED)
    tensor.field.add(
        name="tensor_type", number=2, type=fd.TYPE_STRING, label=fd.LABEL_REQUIRED
    )
    tensor.field.add(
        name="tensor_content", number=3, type=fd.TYPE_BYTES, label=fd.LABEL_REQUIRED
    )

    def add_repeated_messages(message: Any, name: str, type_name: str) -> None:
        # The first field of both container messages: a repeated submessage.
        message.field.add(
            name=name,
            number=1,
            type=fd.TYPE_MESSAGE,
            label=fd.LABEL_REPEATED,
            type_name=type_name,
        )

    map_tensor = fdp.message_type.add(name="MapTensorProto")
    add_repeated_messages(map_tensor, "tensor", ".TensorProto")
    checkpoint = fdp.message_type.add(name="Checkpoint")
    value = checkpoint.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    value.field.add(name="tag", number=1, type=fd.TYPE_STRING, label=fd.LABEL_REQUIRED)
    for number, (name, type_name) in enumerate(
        [("tensor", ".TensorProto"), ("maptensor", ".MapTensorProto")], start=2
    ):
        value.field.add(
            name=name,
            number=number,
            type=fd.TYPE_MESSAGE,
            label=fd.LABEL_OPTIONAL,
            type_name=type_name,
            oneof_index=0,
        )
    add_repeated_messages(checkpoint, "value", ".Checkpoint.Value")
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(fdp.SerializeToString())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("Checkpoint"))


_Checkpoint = _build_checkpoint_class()


def tensor_type_name(dtype: np.dtype[Any]) -> str:
    """Return MindSpore's name for a numpy dtype (`float32` -> `"Float32"`).

    Raises:
        TypeError: If the dtype has no MindSpore checkpoint type (complex, object, ...).
    """
    name = _TYPE_OF_NUMPY.get(dtype.newbyteorder("<"))
    if name is None:
        supported = ", ".join(str(d) for d in _TYPE_OF_NUMPY)
        raise TypeError(
            f"dtype {dtype!s} cannot be stored in a checkpoint; supported: {supported}"
        )
    return name


# --- encoding --------------------------------------------------------------------


def encode(
    entries: Iterable[tuple[str, npt.NDArray[Any] | str]],
) -> Iterator[bytes | memoryview]:
    """Yield the bytes of a `.ckpt` file holding `entries`, in order, as chunks to write.

    A tensor's data is yielded as a view of the array itself (after a copy only
    when it is not little-endian C-ordered already), so writing a checkpoint
    copies each tensor once, into the file, and holds no second image of it.
    """
    for name, value in entries:
        yield from encode_entry(name, value)


def encode_entry(
    name: str, value: npt.NDArray[Any] | str
) -> Iterator[bytes | memoryview]:
    """Yield the serialized record(s) of one entry, as MindSpore writes them.

    Each record is a small protobuf header (tag, dims, type, content length)
    followed by the content; the chunks concatenate to exactly what protobuf's
    own serializer produces for the same message.

    Args:
        name: The entry's tag.
        value: A numpy array (any supported dtype, any byte order or layout) or a str.
    """
    if isinstance(value, str):
        content = _encode_str(value)
        yield _record_header(name, (0,), _STR_TYPE, len(content))
        yield content
        return
    type_name = tensor_type_name(value.dtype)
    data = np.asarray(value, dtype=value.dtype.newbyteorder("<"), order="C")
    content_view = data.reshape(-1).view(np.uint8).data
    dims = tuple(data.shape)
    for start in range(0, max(len(content_view), 1), SLICE_BYTES):
        piece = content_view[start : start + SLICE_BYTES]
        yield _record_header(name, dims, type_name, len(piece))
        if len(piece):
            yield piece


def _encode_str(value: str) -> bytes:
    # numpy's unicode storage, as MindSpore writes it: UTF-32-LE, at least one (NUL) character.
    return np.array(value, dtype=f"<U{max(len(value), 1)}").tobytes()


# Wire-format keys (field number << 3 | wire type) of the fields a record sets.
_KEY_VALUE = b"\x0a"  # Checkpoint.value = 1, length-delimited
_KEY_TAG = b"\x0a"  # Value.tag = 1, length-delimited
_KEY_TENSOR = b"\x12"  # Value.tensor = 2, length-delimited
_KEY_DIM = b"\x08"  # TensorProto.dims = 1, varint (unpacked: one key per dim)
_KEY_TYPE = b"\x12"  # TensorProto.tensor_type = 2, length-delimited
_KEY_CONTENT = b"\x1a"  # TensorProto.tensor_content = 3, length-delimited


def _varint(number: int) -> bytes:
    """Encode a protobuf varint; negative int64 values take ten bytes, as protobuf writes them."""
    number &= (1 << 64) - 1
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _delimited(key: bytes, payload: bytes) -> bytes:
    return key + _varint(len(payload)) + payload


@functools.lru_cache(maxsize=4096)  # a run saves the same parameters again and again
def _record_header(
    name: str, dims: tuple[int, ...], type_name: str, size: int
) -> bytes:
    """Return a record's bytes up to its `size`-byte content (fields in number order)."""
    tensor = b"".join(_KEY_DIM + _varint(d) for d in dims)
    tensor += _delimited(_KEY_TYPE, type_name.encode()) + _KEY_CONTENT + _varint(size)
    value = _delimited(_KEY_TAG, name.encode())
    value += _KEY_TENSOR + _varint(len(tensor) + size) + tensor
    return _KEY_VALUE + _varint(len(value) + size) + value


# --- the CRC trailer ----------------------------------------------------------------


def crc_trailer(crc: int) -> bytes:
    """Return the trailer that records `crc` (the CRC-32 of everything before it)."""
    return _CRC_MARKER + crc.to_bytes(_CRC_DIGITS, "big")


def with_crc_trailer(
    chunks: Iterable[bytes | memoryview],
) -> Iterator[bytes | memoryview]:
    """Yield `chunks` unchanged, then the CRC trailer of their concatenation.

    The CRC is computed as the chunks pass (each is read once, while it is hot in
    the cache), so no second pass over the file is needed.
    """
    crc = 0
    for chunk in chunks:
        crc = zlib.crc32(chunk, crc)
        yield chunk
    yield crc_trailer(crc)


def split_crc_trailer(data: bytes) -> tuple[bytes, int | None]:
    """Split a `.ckpt` file's bytes into the records and the stored CRC (None without a trailer).

    A trailer is recognised as MindSpore does: by the marker 17 bytes before the end.
    """
    if len(data) >= CRC_TRAILER_BYTES and data[-CRC_TRAILER_BYTES:].startswith(
        _CRC_MARKER
    ):
        stored = int.from_bytes(data[-_CRC_DIGITS:], "big")
        return data[:-CRC_TRAILER_BYTES], stored
    return data, None


def verify_crc(records: bytes, stored: int) -> None:
    """Raise `ChecksumError` unless `records` have the CRC-32 `stored`."""
    actual = zlib.crc32(records)
    if actual != stored:
        raise ChecksumError(
            f"the CRC-32 of the data ({actual}) differs from the one stored in the file's crc_num "
            f"trailer ({stored}): the file is damaged"
        )


# --- decoding --------------------------------------------------------------------


def decode(data: bytes) -> list[tuple[str, npt.NDArray[Any] | str]]:
    """Decode the bytes of a `.ckpt` file into `(name, value)` pairs in file order.

    Consecutive records with the same tag are joined into one entry (how
    MindSpore stores tensors over 512 MiB). A CRC trailer, if present, is
    always verified: a file that carries a checksum is never loaded damaged.

    Raises:
        ChecksumError: The file has a CRC trailer and its data does not match it.
        ValueError: If the bytes are not a valid checkpoint; the message says what is wrong.
    """
    records, stored = split_crc_trailer(data)
    if stored is not None:
        verify_crc(records, stored)
    message = _parse(records)
    entries: list[tuple[str, npt.NDArray[Any] | str]] = []
    values = list(message.value)
    start = 0
    while start < len(values):
        stop = start + 1
        while stop < len(values) and values[stop].tag == values[start].tag:
            stop += 1
        entries.append(_decode_entry(values[start:stop]))
        start = stop
    return entries


def _parse(data: bytes) -> Any:
    message: Any = _Checkpoint()
    try:
        message.ParseFromString(data)
    except DecodeError as error:
        raise ValueError(f"invalid protobuf data: {error}") from error
    if _has_unknown_fields(message):
        raise ValueError("the data holds fields outside the checkpoint schema")
    return message


def _has_unknown_fields(message: Any) -> bool:
    # Checked per level rather than with ByteSize(), which re-measures every tensor (slow on big files).
    if len(unknown_fields.UnknownFieldSet(message)):
        return True
    for value in message.value:
        if len(unknown_fields.UnknownFieldSet(value)) or len(
            unknown_fields.UnknownFieldSet(value.tensor)
        ):
            return True
    return False


def _decode_entry(records: list[Any]) -> tuple[str, npt.NDArray[Any] | str]:
    first = records[0]
    name: str = _text(first.tag, "an entry name")
    if first.WhichOneof("value") != "tensor":
        kind = first.WhichOneof("value") or "no value"
        raise ValueError(
            f"entry {name!r} holds {kind}, which cadence cannot load (only tensors)"
        )
    type_name: str = _text(first.tensor.tensor_type, f"the tensor_type of {name!r}")
    dims = [int(d) for d in first.tensor.dims]
    content = b"".join(record.tensor.tensor_content for record in records)
    if type_name == _STR_TYPE:
        return name, _decode_str(name, dims, content)
    return name, _decode_tensor(name, type_name, dims, content)


def _text(value: str | bytes, what: str) -> str:
    # proto2 strings are not validated: invalid UTF-8 comes back as bytes.
    if not isinstance(value, str):
        raise ValueError(f"{what} is not valid UTF-8: {bytes(value)[:40]!r}")
    return value


def _decode_str(name: str, dims: list[int], content: bytes) -> str:
    if dims != [0] or len(content) % 4:
        raise ValueError(
            f"string entry {name!r} is malformed: expected dims [0] and a multiple of 4 bytes, "
            f"got dims {dims} and {len(content)} bytes"
        )
    if not content:
        return ""
    return str(np.frombuffer(content, dtype=f"<U{len(content) // 4}")[0])


def _decode_tensor(
    name: str, type_name: str, dims: list[int], content: bytes
) -> npt.NDArray[Any]:
    if type_name == "BFloat16":
        # numpy has no bfloat16; widen exactly to float32 (bfloat16 is float32's upper half).
        wide = _decode_tensor(name, "UInt16", dims, content).astype("<u4") << 16
        return wide.view("<f4")
    dtype = _NUMPY_OF_TYPE.get(type_name)
    if dtype is None:
        known = ", ".join([*_NUMPY_OF_TYPE, "BFloat16", _STR_TYPE])
        raise ValueError(
            f"entry {name!r} has tensor_type {type_name!r}, which cadence cannot load; known: {known}"
        )
    if dims == [0] and len(content) == dtype.itemsize:
        dims = []  # MindSpore's writer marks some scalars with dims [0]
    expected = math.prod(dims) * dtype.itemsize
    if len(content) != expected:
        raise ValueError(
            f"entry {name!r} is truncated or malformed: dims {dims} of {type_name} need {expected} bytes, "
            f"the file holds {len(content)}"
        )
    return np.frombuffer(content, dtype=dtype).reshape(dims).copy()
