"""A row's blob: its bytes and array fields packed together, integer arrays compressed.

Layout (MindSpore's): with one blob field the blob is that field's bytes; with
several, each field is an 8-byte big-endian length followed by its bytes, in
sorted field order. In format 3.0 every int32/int64 array field is stored
compressed: a 4-byte big-endian element count, a bitmap of 2 bits per element
(most significant bits first) naming the width each element is stored in (1, 2,
4 or 8 bytes), then the elements, little-endian, each in its width.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ._schema import Field, Schema

__all__ = ["BlobError", "pack_blob", "unpack_blob"]

_NO_BLOB = (
    b"\x00\x00\x00\x00"  # MindSpore stores 4 zero bytes for a row without blob fields
)
_BYTE_COLUMNS = np.arange(8)
_SHIFTS = np.array(
    [6, 4, 2, 0], np.uint8
)  # the 2-bit codes of a bitmap byte, first element highest


class BlobError(ValueError):
    """A blob that does not parse (the caller names the file and row)."""


def pack_blob(schema: Schema, values: list[Any], compress: bool) -> bytes:
    """Return the blob of one row from its blob values (schema order)."""
    parts = [
        _field_bytes(schema.by_name[n], v, compress)
        for n, v in zip(schema.blob_fields, values, strict=True)
    ]
    if not parts:
        return _NO_BLOB
    if len(parts) == 1:
        return parts[0]
    return b"".join(len(p).to_bytes(8, "big") + p for p in parts)


def _field_bytes(field: Field, value: Any, compress: bool) -> bytes:
    if field.shape is None:
        return bytes(value)
    if compress and field.type in ("int32", "int64"):
        return _compress(value.reshape(-1).astype(np.int64))
    return bytes(np.ascontiguousarray(value, dtype=field.type).data)


def _widths(
    values: np.ndarray[Any, np.dtype[np.int64]],
) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """Return each value's width code: 0, 1, 2, 3 for 1, 2, 4, 8 bytes (the fewest that hold it)."""
    magnitude = values ^ (
        values >> 63
    )  # -v - 1 for negatives: the same cut-offs both ways
    codes = (magnitude > 127).astype(np.uint8)
    codes += magnitude > 32767
    codes += magnitude > 2**31 - 1
    return codes


def _compress(values: np.ndarray[Any, np.dtype[np.int64]]) -> bytes:
    n = values.size
    codes = _widths(values)
    padded = np.zeros(-(-n // 4) * 4, np.uint8)
    padded[:n] = codes
    quads = padded.reshape(-1, 4)
    bitmap = (quads[:, 0] << 6) | (quads[:, 1] << 4) | (quads[:, 2] << 2) | quads[:, 3]
    head = n.to_bytes(4, "big") + bitmap.astype(np.uint8).tobytes()
    if n and codes.min() == codes.max():  # one width for all: a plain cast
        return head + values.astype(f"<i{1 << int(codes[0])}").tobytes()
    little = values.astype("<i8").view(np.uint8).reshape(n, 8)
    keep = (1 << codes.astype(np.int64))[:, None] > _BYTE_COLUMNS
    return head + little[keep].tobytes()


def _decompress(data: bytes, dtype: str) -> np.ndarray[Any, Any]:
    if len(data) < 4:
        raise BlobError(
            f"a compressed integer array needs at least 4 bytes, but has {len(data)}"
        )
    n = int.from_bytes(data[:4], "big")
    map_end = 4 + -(-n // 4)
    if map_end > len(data):
        raise BlobError(
            f"a compressed array of {n} integers is cut short ({len(data)} bytes)"
        )
    bitmap = np.frombuffer(data, np.uint8, map_end - 4, 4)
    codes = ((bitmap[:, None] >> _SHIFTS) & 3).reshape(-1)[:n]
    widths = 1 << codes.astype(np.int64)
    size = map_end + int(widths.sum())
    if size != len(data):
        raise BlobError(
            f"a compressed array of {n} integers should take {size} bytes, but takes {len(data)}"
        )
    if n and codes.min() == codes.max():  # one width for all: a plain cast
        return np.frombuffer(data, f"<i{widths[0]}", n, map_end).astype(dtype)
    little = np.zeros((n, 8), np.uint8)
    little[widths[:, None] > _BYTE_COLUMNS] = np.frombuffer(
        data, np.uint8, offset=map_end
    )
    shift = 64 - 8 * widths
    values: np.ndarray[Any, np.dtype[np.int64]] = little.view("<i8").reshape(n)
    return ((values << shift) >> shift).astype(dtype)  # sign-extend the narrow ones


def unpack_blob(
    schema: Schema, blob: bytes, names: list[str], compressed: bool
) -> dict[str, Any]:
    """Return the values of the blob fields `names` from one row's blob.

    Raises:
        BlobError: If the blob's lengths do not add up or an array has the wrong size.
    """
    fields = schema.blob_fields
    if len(fields) == 1:
        pieces = {fields[0]: blob}
    else:
        pieces, pos = {}, 0
        for name in fields:
            if pos + 8 > len(blob):
                raise BlobError(
                    f"the blob ends before field {name!r} ({len(blob)} bytes)"
                )
            size = int.from_bytes(blob[pos : pos + 8], "big")
            if pos + 8 + size > len(blob):
                raise BlobError(
                    f"field {name!r} claims {size} bytes, past the end of the {len(blob)}-byte blob"
                )
            pieces[name] = blob[pos + 8 : pos + 8 + size]
            pos += 8 + size
    return {n: _field_value(schema.by_name[n], pieces[n], compressed) for n in names}


def _field_value(field: Field, data: bytes, compressed: bool) -> Any:
    if field.shape is None:
        return data
    if compressed and field.type in ("int32", "int64"):
        flat = _decompress(data, field.type)
    else:
        itemsize = np.dtype(field.type).itemsize
        if len(data) % itemsize:
            raise BlobError(
                f"field {field.name!r} has {len(data)} bytes, not a whole number of {field.type}"
            )
        flat = np.frombuffer(data, field.type).copy()
    try:
        return flat.reshape(field.shape)
    except ValueError:
        raise BlobError(
            f"field {field.name!r} holds {flat.size} values, which do not fit its shape {list(field.shape)}"
        ) from None
