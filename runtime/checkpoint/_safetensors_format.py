"""Checkpoints in the safetensors format, as MindSpore writes them, with checksums.

The tensors go through the `safetensors` library; the header's metadata holds
`{"format": "ms"}` as MindSpore writes it, and cadence's string entries (which
MindSpore cannot save in this format) as further keys.

With `crc_check=True` two checksums go into the metadata:

- `crc_num`, MindSpore's: the CRC-32 chained over every tensor's name (UTF-8)
  and raw bytes, in sorted name order, as a decimal string. MindSpore verifies
  it with `load_checkpoint(..., crc_check=True)`, so the files stay
  interchangeable.
- `cadence_crc32`, cadence's: `crc32:<8 hex digits>`, the CRC-32 of what
  `crc_num` leaves out: every other metadata key and value (string entries
  included) and every tensor's dtype and shape. A flipped bit anywhere in the
  header then either breaks its JSON, which the library refuses, or changes
  something one of the two checksums covers. MindSpore ignores the key.

Reading verifies every checksum the file carries, whatever the caller asked.
"""

from __future__ import annotations

import re
import zlib
from typing import TYPE_CHECKING, Any

import numpy as np
import safetensors
import safetensors.numpy

from ._ckpt_format import ChecksumError

if TYPE_CHECKING:
    from collections.abc import Mapping

    import numpy.typing as npt

__all__ = ["RESERVED_KEYS", "encode", "read"]

_FORMAT_KEY = "format"
_METADATA = {_FORMAT_KEY: "ms"}  # what MindSpore writes
_CRC_KEY = "crc_num"
_HEADER_CRC_KEY = "cadence_crc32"
_HEADER_CRC = re.compile(r"crc32:[0-9a-f]{8}")
RESERVED_KEYS = (_FORMAT_KEY, _CRC_KEY, _HEADER_CRC_KEY)
"""Metadata keys that string entries cannot use."""


def encode(
    tensors: Mapping[str, npt.NDArray[Any]], strings: Mapping[str, str], crc_check: bool
) -> bytes:
    """Return the bytes of a safetensors file of `tensors` and string entries (keys not reserved)."""
    little = {
        name: np.asarray(value, dtype=value.dtype.newbyteorder("<"), order="C")
        for name, value in tensors.items()
    }
    metadata = {**_METADATA, **strings}
    if crc_check:
        metadata[_CRC_KEY] = str(_tensor_crc(little))
        metadata[_HEADER_CRC_KEY] = _header_crc(metadata, little)
    return safetensors.numpy.save(little, metadata=metadata)


def read(path: str) -> tuple[list[tuple[str, Any]], bool]:
    """Return the file's entries by name (tensors and string entries), and whether a checksum was verified.

    Raises:
        ChecksumError: A checksum the file carries does not match its contents.
        ValueError: The file is not a readable safetensors file.
    """
    try:
        with safetensors.safe_open(path, framework="numpy") as file:
            metadata = dict(file.metadata() or {})
            tensors = {
                name: file.get_tensor(name)
                for name in file.keys()  # noqa: SIM118 - a safetensors handle, not a dict
            }
    except Exception as error:
        raise ValueError(
            f"Failed to read the checkpoint file {path!r}: the file may be corrupted or truncated ({error})."
        ) from error
    checked = _verify(path, metadata, tensors)
    for key in RESERVED_KEYS:
        metadata.pop(key, None)
    entries = [*tensors.items(), *metadata.items()]
    return sorted(entries, key=lambda entry: entry[0]), checked


def _verify(
    path: str, metadata: dict[str, str], tensors: Mapping[str, npt.NDArray[Any]]
) -> bool:
    header = metadata.get(_HEADER_CRC_KEY)
    if header is None and any(_HEADER_CRC.fullmatch(v) for v in metadata.values()):
        # The key's own name was damaged: the value is still recognisable.
        _damaged(path, f"its {_HEADER_CRC_KEY!r} metadata key is altered")
    if header is not None:
        rest = {k: v for k, v in metadata.items() if k != _HEADER_CRC_KEY}
        if header != _header_crc(rest, tensors):
            _damaged(
                path,
                "its header (metadata, dtypes, shapes) does not match its cadence_crc32",
            )
    stored = metadata.get(_CRC_KEY)
    if stored is not None and stored != str(_tensor_crc(tensors)):
        _damaged(
            path, f"the CRC-32 of its tensors differs from its crc_num ({stored!r})"
        )
    return stored is not None


def _damaged(path: str, what: str) -> None:
    raise ChecksumError(
        f"Failed to read the checkpoint file {path!r}: {what}: the file is damaged."
    )


def _tensor_crc(tensors: Mapping[str, npt.NDArray[Any]]) -> int:
    """MindSpore's `crc_num`: each tensor's name (UTF-8), then its bytes, by sorted name."""
    crc = 0
    for name in sorted(tensors):
        crc = zlib.crc32(name.encode(), crc)
        crc = zlib.crc32(np.ascontiguousarray(tensors[name]).data, crc)
    return crc


def _header_crc(
    metadata: Mapping[str, str], tensors: Mapping[str, npt.NDArray[Any]]
) -> str:
    crc = 0
    for key in sorted(metadata):
        crc = zlib.crc32(f"{key}\0{metadata[key]}\0".encode(), crc)
    for name in sorted(tensors):
        value = tensors[name]
        crc = zlib.crc32(f"{name}\0{value.dtype.str}\0{value.shape}\0".encode(), crc)
    return f"crc32:{crc:08x}"
