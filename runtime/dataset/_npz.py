"""`NpzDataset`: any `.npz` file holding equally long arrays (by default `x` and `y`)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._checks import check_column_list, check_optional_bool
from ._npy_claims import check_member, file_kind
from ._shard import Reading
from ._sources import InMemoryDataset

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["NpzDataset"]


class NpzDataset(InMemoryDataset):
    """The arrays of a `.npz` file (as written by `numpy.savez`) as columns.

    Each requested key becomes a column of the same name; the arrays keep their
    dtypes and must have the same length along the first axis. Data is loaded
    when the dataset is created.

    Args:
        path: The `.npz` file.
        columns: The keys to read, in column order; default `("x", "y")`.
        num_samples: Rows to read per pass (None: all).
        shuffle: Read rows in a new random order each pass; None means True.
        num_shards: Split the rows into this many shards (data-parallel
            training), read the one `shard_id` names.
        shard_id: The shard to read, in [0, num_shards - 1].

    Raises:
        FileNotFoundError: If `path` does not exist.
        ValueError: If the file is not a readable `.npz`, a key is missing (the
            message lists the keys present), an array is 0-d or holds objects,
            or the arrays differ in length.

    Example:
        >>> import numpy as np, tempfile, os
        >>> import cadence.dataset as ds
        >>> path = os.path.join(tempfile.mkdtemp(), "data.npz")
        >>> np.savez(path, x=np.zeros((10, 4), np.float32), y=np.arange(10, dtype=np.int32))
        >>> ds.NpzDataset(path).batch(4).get_dataset_size()
        3
    """

    def __init__(
        self,
        path: str | Path,
        columns: str | Sequence[str] = ("x", "y"),
        num_samples: int | None = None,
        shuffle: bool | None = None,
        num_shards: int | None = None,
        shard_id: int | None = None,
    ) -> None:
        owner = "NpzDataset"
        if not isinstance(path, str | Path):
            raise TypeError(
                f"For '{owner}', the argument 'path' must be a str or Path, but got {type(path).__name__!r}."
            )
        keys = check_column_list(columns, "columns", owner)
        shuffled = check_optional_bool(shuffle, "shuffle", owner)
        arrays = _load(Path(path), keys)
        lengths = {k: len(a) for k, a in zip(keys, arrays, strict=True)}
        if len(set(lengths.values())) != 1:
            raise ValueError(
                f"The arrays in {str(path)!r} must have the same length along the first axis, but they have {lengths}."
            )
        reading = Reading(num_samples, shuffled, num_shards, shard_id)
        super().__init__(arrays, keys, owner, reading)


def _load(path: Path, keys: list[str]) -> list[np.ndarray[Any, Any]]:
    if not path.is_file():
        raise FileNotFoundError(f"NpzDataset: the file {str(path)!r} does not exist.")
    kind = file_kind(path)
    if kind == "npy":
        raise ValueError(
            f"{str(path)!r} holds a single array, not an .npz archive of named arrays (numpy.savez)."
        )
    if kind != "npz":
        raise ValueError(
            f"Cannot read {str(path)!r} as an .npz file (written by numpy.savez): it is not a zip "
            "archive (an .npz file is one)."
        )
    try:
        archive = np.load(path, allow_pickle=False)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise ValueError(
            f"Cannot read {str(path)!r} as an .npz file (written by numpy.savez): {exc}"
        ) from exc
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(
            f"{str(path)!r} holds a single array, not an .npz archive of named arrays (numpy.savez)."
        )
    with archive:
        present = list(archive.files)
        missing = [k for k in keys if k not in present]
        if missing:
            raise ValueError(
                f"The file {str(path)!r} has no array named {missing[0]!r}; it holds {present!r}."
            )
        return [_array(archive, key, path) for key in keys]


def _array(archive: Any, key: str, path: Path) -> np.ndarray[Any, Any]:
    # Before numpy allocates what the header claims.
    check_member(archive.zip, key, str(path))
    try:
        array: np.ndarray[Any, Any] = archive[key]
    except ValueError as exc:
        raise ValueError(
            f"The array {key!r} in {str(path)!r} holds Python objects; only numeric arrays can be loaded."
        ) from exc
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ValueError(
            f"The array {key!r} in {str(path)!r} cannot be read: {exc}"
        ) from exc
    if array.ndim == 0:
        raise ValueError(
            f"The array {key!r} in {str(path)!r} is 0-d; a column needs one entry per row."
        )
    return array
