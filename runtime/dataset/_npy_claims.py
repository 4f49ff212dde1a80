"""Checks on `.npy` / `.npz` files before numpy reads them: what they claim must fit in what they hold.

numpy allocates an array of the shape a `.npy` header claims before reading
its data, so a damaged or hostile header claiming 10^12 rows makes it try to
allocate terabytes. These checks read only the header and compare the claim
with the bytes the file (or the archive member) really holds. They also tell a
file that is neither a zip archive nor a `.npy` file from both, instead of
numpy's message about pickles.
"""

from __future__ import annotations

import math
import os
from typing import IO, TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import zipfile

__all__ = ["NPY_MAGIC", "ZIP_MAGIC", "check_member", "check_npy_file", "file_kind"]

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = (
    b"PK\x03\x04",
    b"PK\x05\x06",
)  # a local file header; an empty archive's end record


def file_kind(path: str | os.PathLike[str]) -> str:
    """Return `"npz"` (a zip archive), `"npy"`, or `"other"`, from the file's first bytes."""
    with open(path, "rb") as file:
        start = file.read(len(NPY_MAGIC))
    if start.startswith(ZIP_MAGIC):
        return "npz"
    return "npy" if start == NPY_MAGIC else "other"


def check_npy_file(path: str | os.PathLike[str]) -> None:
    """Raise `ValueError` unless the `.npy` file holds all the data its header claims."""
    with open(path, "rb") as file:
        _check(file, os.path.getsize(path), repr(os.fspath(path)))


def check_member(archive: zipfile.ZipFile, key: str, path: str) -> None:
    """Raise `ValueError` unless the array `key` of an `.npz` archive holds the data its header claims."""
    name = f"{key}.npy" if f"{key}.npy" in archive.namelist() else key
    size = archive.getinfo(name).file_size  # uncompressed
    with archive.open(name) as member:
        _check(member, size, f"the array {key!r} in {path!r}")


def _check(file: IO[bytes], size: int, what: str) -> None:
    try:
        version = np.lib.format.read_magic(file)
        shape, _, dtype = _read_header(file, version)
    except ValueError as error:
        raise ValueError(f"{what} has a damaged .npy header: {error}") from None
    if dtype.hasobject:
        return  # refused later, as holding Python objects
    claimed = math.prod(shape) * dtype.itemsize
    held = size - file.tell()
    if claimed > held:
        raise ValueError(
            f"{what} claims shape {tuple(shape)} of {dtype} ({claimed} bytes) but holds {held} bytes "
            "of data: the file is damaged or truncated."
        )


def _read_header(file: IO[bytes], version: tuple[int, int]) -> Any:
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(file)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(file)
    raise ValueError(f"unknown .npy format version {version}")
