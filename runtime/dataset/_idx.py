"""Reading IDX files, the format MNIST ships in.

An IDX file is a 4-byte magic number (two zero bytes, an element-type code, the
number of dimensions), one big-endian uint32 per dimension, then the elements
in row-major order, big-endian. Files ending in `.gz` are decompressed.
"""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["read_idx"]

_TYPES: Final[dict[int, str]] = {
    0x08: "u1",
    0x09: "i1",
    0x0B: ">i2",
    0x0C: ">i4",
    0x0D: ">f4",
    0x0E: ">f8",
}


def read_idx(path: Path, ndim: int) -> npt.NDArray[Any]:
    """Return the array stored in the IDX file at `path`, checking it has `ndim` dimensions.

    Raises:
        RuntimeError: If the file cannot be read, its header is malformed, it
            has the wrong number of dimensions, or it is truncated or too long.
    """
    data = _read_bytes(path)
    if len(data) < 4:
        raise RuntimeError(
            f"The IDX file {str(path)!r} is truncated: it has {len(data)} bytes, fewer than the 4-byte magic number."
        )
    zero1, zero2, code, dims = data[0], data[1], data[2], data[3]
    if zero1 or zero2 or code not in _TYPES:
        raise RuntimeError(
            f"The file {str(path)!r} is not an IDX file: its magic number is 0x{data[:4].hex()}, "
            f"expected 0x0000 followed by a type code (0x08 for unsigned bytes) and the number of dimensions."
        )
    if dims != ndim:
        raise RuntimeError(
            f"The IDX file {str(path)!r} has {dims} dimensions, but {ndim} were expected here."
        )
    header = 4 + 4 * dims
    if len(data) < header:
        raise RuntimeError(
            f"The IDX file {str(path)!r} is truncated: its header needs {header} bytes for {dims} dimensions, but the file has {len(data)}."
        )
    shape = tuple(
        int(d) for d in np.frombuffer(data, dtype=">u4", count=dims, offset=4)
    )
    dtype = np.dtype(_TYPES[code])
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    body = len(data) - header
    if body != expected:
        problem = "truncated" if body < expected else "longer than its header says"
        raise RuntimeError(
            f"The IDX file {str(path)!r} is {problem}: the header declares shape {shape} ({expected} bytes of data), "
            f"but {body} bytes follow the header."
        )
    array = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return (
        array.astype(dtype.newbyteorder("="), copy=False)
        if dtype.byteorder == ">"
        else array
    )


def _read_bytes(path: Path) -> bytes:
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except (OSError, EOFError) as exc:
        raise RuntimeError(f"Cannot read the IDX file {str(path)!r}: {exc}") from exc
