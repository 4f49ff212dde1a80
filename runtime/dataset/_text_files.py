r"""Sources over lines of text files: `TextFileDataset` (one line per row) and `CSVDataset` (one record per row).

Both read every file when created (rows are then fetched by index, so `batch`,
`shuffle` and `split` stay cheap) and follow MindSpore 2.10's reading rules:

- `dataset_files` is a path, a glob pattern or a list of them; the matched files
  are read in sorted order, as MindSpore sorts them.
- Empty lines are skipped; a line keeps everything but its `\n` (a `\r` stays).
- Shard `i` of `N` reads `ceil(rows / N)` consecutive rows starting at row
  `i * ceil(rows / N)`, wrapping around to the first rows (MindSpore shards these
  non-mappable sources by blocks, not by stride as it does the other sources).
- `shuffle` is a bool or a `Shuffle` level: `GLOBAL` (True, and the default)
  shuffles the file order and then the rows; `FILES` the file order only;
  `INFILE` the rows inside each file only.

Unlike MindSpore, whose parallel readers interleave the files' rows in an order
that depends on the worker count, an unshuffled cadence source reads the files
one after the other (MindSpore's order with `num_parallel_workers=1`).
"""

from __future__ import annotations

import csv
import enum
import glob
import itertools
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._access import Access, ReadAccess
from ._checks import check_int, check_unsupported
from ._dataset import Dataset
from ._random import PEEK_PASS, get_dataset_seed
from ._shard import check_shard

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._access import IndexArray
    from ._block import Row
    from ._random import Pass
    from ._shard import Shard

__all__ = ["CSVDataset", "Shuffle", "TextFileDataset"]

_DEFAULT_SEED: Final = 5489  # MindSpore's default dataset seed: equal in every process


class Shuffle(enum.Enum):
    """How a file source shuffles, with MindSpore's names (`shuffle=` of `TextFileDataset`, `CSVDataset`)."""

    FALSE = "false"  # no shuffle
    ADAPTIVE = "adaptive"  # as GLOBAL (MindSpore picks by dataset size)
    GLOBAL = "global"  # the file order, then the rows
    PARTIAL = "partial"  # as GLOBAL
    FILES = "files"  # the file order only
    INFILE = "infile"  # the rows inside each file only


def check_shuffle_level(value: Any, owner: str) -> Shuffle:
    """Return `shuffle` (a bool, a `Shuffle` or None, which means `GLOBAL`) as a level."""
    if value is None or value is True:
        return Shuffle.GLOBAL
    if value is False:
        return Shuffle.FALSE
    if not isinstance(value, Shuffle):
        raise TypeError(
            f"For '{owner}', the argument 'shuffle' must be a bool or a cadence.dataset.Shuffle "
            f"(GLOBAL, FILES, INFILE, ...), but got {value!r} of type {type(value).__name__!r}."
        )
    return value


def find_files(dataset_files: Any, owner: str) -> list[Path]:
    """Return the files `dataset_files` names (paths or glob patterns), sorted as MindSpore sorts them."""
    patterns = (
        [dataset_files] if isinstance(dataset_files, str | Path) else dataset_files
    )
    if not isinstance(patterns, list) or not all(
        isinstance(p, str | Path) for p in patterns
    ):
        raise TypeError(
            f"For '{owner}', the argument 'dataset_files' must be a str or a list of str, "
            f"but got {dataset_files!r} of type {type(dataset_files).__name__!r}."
        )
    if not patterns:
        raise ValueError(
            f"For '{owner}', the argument 'dataset_files' must name at least one file, but got []."
        )
    found: set[str] = set()
    missing = []
    for pattern in map(str, patterns):
        matches = [m for m in glob.glob(pattern) if Path(m).is_file()]
        if not matches:
            missing.append(pattern)
        found.update(matches)
    if missing:
        raise ValueError(
            f"For '{owner}', these entries of 'dataset_files' match no file: {missing!r}."
        )
    return [Path(f) for f in sorted(found)]


def read_lines(path: Path) -> list[str]:
    r"""Return the non-empty lines of a UTF-8 file, without their `\n`."""
    # Decoded from bytes: reading as text would turn `\r\n` into `\n`, and MindSpore keeps the `\r`.
    return [line for line in path.read_bytes().decode("utf-8").split("\n") if line]


class LinesOrder:
    """Which rows of files read whole each pass reads: MindSpore's block shards and `Shuffle` levels.

    Args:
        file_rows: The number of rows of each file, in file order.
        num_samples: At most this many rows per pass (per shard); None for all.
        level: The shuffle level.
        shard: The shard to read, or None.
    """

    def __init__(
        self,
        file_rows: Sequence[int],
        num_samples: int | None,
        level: Shuffle,
        shard: Shard | None,
    ) -> None:
        self.total = sum(file_rows)
        self._starts = np.cumsum([0, *file_rows])
        self.level = level
        self.shard = shard
        self._block = (
            self.total if shard is None else math.ceil(self.total / shard.num_shards)
        )
        self.count = (
            self._block if num_samples is None else min(self._block, num_samples)
        )
        self._passes = itertools.count()

    def positions(self, p: Pass) -> IndexArray:
        """Return the row (over all files, in file order) of each position of pass `p`."""
        rows = self._file_order(self._shared_rng(p))
        if self.shard is not None and self.total:
            first = self.shard.shard_id * self._block
            rows = rows[(first + np.arange(self._block)) % self.total]
        rows = rows[: self.count]
        if self.level in (Shuffle.GLOBAL, Shuffle.ADAPTIVE, Shuffle.PARTIAL):
            rows = p.rng().permutation(rows)
        return rows.astype(np.intp)

    def _file_order(self, rng: np.random.Generator) -> IndexArray:
        starts = self._starts
        files = range(len(starts) - 1)
        if self.level not in (Shuffle.FALSE, Shuffle.INFILE):
            files = rng.permutation(len(starts) - 1).tolist()
        pieces = [np.arange(starts[f], starts[f + 1]) for f in files]
        if self.level is Shuffle.INFILE:
            pieces = [rng.permutation(piece) for piece in pieces]
        return np.concatenate(pieces).astype(np.intp)

    def _shared_rng(self, p: Pass) -> np.random.Generator:
        """The generator of the file order: the same in every process when sharded (see `_shard`)."""
        if self.shard is None:
            return p.rng()
        # Peeking at shapes must not advance the epoch count every process shares.
        epoch = 0 if p is PEEK_PASS else next(self._passes)
        seed = get_dataset_seed()
        return np.random.default_rng((_DEFAULT_SEED if seed is None else seed, epoch))


class _LinesDataset(Dataset):
    """A source whose rows come from the lines of text files read when created; a subclass parses them."""

    _random_accessible = True

    _prefers_rows = True

    def __init__(
        self,
        dataset_files: str | Sequence[str],
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | Shuffle | None = Shuffle.GLOBAL,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache: Any = None,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        check_unsupported(owner, cache=cache)
        if num_parallel_workers is not None:  # checked, then unused: rows are read here
            check_int(num_parallel_workers, "num_parallel_workers", owner, minimum=1)
        samples = (
            None
            if num_samples is None
            else check_int(num_samples, "num_samples", owner, minimum=0)
        )
        level = check_shuffle_level(shuffle, owner)
        shard = check_shard(num_shards, shard_id, owner)
        self.dataset_files = find_files(dataset_files, owner)
        per_file = [self._file_rows(path) for path in self.dataset_files]
        self._lines: list[Any] = [line for lines in per_file for line in lines]
        # MindSpore's num_samples=0 reads every row.
        self._order = LinesOrder(
            [len(x) for x in per_file], samples or None, level, shard
        )

    def _file_rows(self, path: Path) -> list[Any]:
        """Return the rows of one file, as `_read` takes them."""
        return read_lines(path)

    def _row_count(self) -> int:
        return self._order.count

    def _access(self, p: Pass) -> Access:
        return ReadAccess(self._read, self._order.positions(p))

    def _read(self, index: int) -> Row:
        raise NotImplementedError


class TextFileDataset(_LinesDataset):
    r"""The lines of text files, one row each, as `mindspore.dataset.TextFileDataset`.

    One column, `text`: each row a 0-d numpy string (`<U` of the line's length).
    Empty lines are skipped.

    Args:
        dataset_files: A file path, a glob pattern, or a list of them; the files
            are read in sorted order.
        num_samples: Rows to read per pass (per shard); None or 0 for all.
        num_parallel_workers: Accepted for compatibility.
        shuffle: A bool or a `Shuffle` level; None means `Shuffle.GLOBAL`.
        num_shards: Split the rows into this many shards (data-parallel
            training), read the one `shard_id` names.
        shard_id: The shard to read, in [0, num_shards - 1].
        cache: Not supported (must be None).

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If no file matches an entry of `dataset_files`, or a value is out of range.

    Example:
        >>> import cadence.dataset as ds
        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp(), "lines.txt")
        >>> _ = path.write_text("first line\n\nsecond\n")
        >>> data = ds.TextFileDataset(str(path), shuffle=False)
        >>> [str(row[0]) for row in data.create_tuple_iterator(output_numpy=True)]
        ['first line', 'second']
    """

    def _names(self) -> list[str]:
        return ["text"]

    def _read(self, index: int) -> Row:
        return (np.array(self._lines[index]),)


def _check_defaults(value: Any, owner: str) -> list[type]:
    """The column types `column_defaults` gives (int, float or str per value; bools count as ints)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(
            f"For '{owner}', the argument 'column_defaults' must be a list of int, float or str, "
            f"but got {value!r} of type {type(value).__name__!r}."
        )
    types: list[type] = []
    for item in value:
        if not isinstance(item, int | float | str):
            raise TypeError(
                f"For '{owner}', every value of 'column_defaults' must be an int, float or str "
                f"(it gives the column's type), but got {item!r} of type {type(item).__name__!r}."
            )
        types.append(int if isinstance(item, int) else type(item))
    return types


_PARSED: Final = {int: np.int32, float: np.float32}
_TYPE_WORDS: Final = {int: "an int", float: "a float"}


class CSVDataset(_LinesDataset):
    r"""The records of CSV files, one row each with one column per field, as `mindspore.dataset.CSVDataset`.

    Fields are strings unless `column_defaults` gives the column a type: an int
    default makes the column int32, a float default float32 (the value itself
    is not used: an empty field in a numeric column is an error, as in
    MindSpore). Quoting follows RFC 4180 (`"a,b"`, `""` for a quote); empty lines are skipped.

    Args:
        dataset_files: As in `TextFileDataset`.
        field_delim: The field separator, one character (not `"`, `\r` or `\n`).
        column_defaults: One int, float or str per leading column, giving its
            type; the columns after them are strings. None: all strings.
        column_names: The column names. None: the first line of every file is
            its header, which names the columns (the files must agree) and is
            not a row. Given: every line is a row.
        num_samples: As in `TextFileDataset`.
        num_parallel_workers: As in `TextFileDataset`.
        shuffle: As in `TextFileDataset`.
        num_shards: As in `TextFileDataset`.
        shard_id: As in `TextFileDataset`.
        cache: As in `TextFileDataset`.

    Raises:
        TypeError: If an argument has the wrong type.
        ValueError: If an argument has a wrong value or no file matches.
        RuntimeError: If the files' headers differ, a record has a field count
            other than the column count, or a field does not parse as its column's type.

    Example:
        >>> import cadence.dataset as ds
        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp(), "points.csv")
        >>> _ = path.write_text("x,y,name\n1,2.5,a\n3,4.0,b\n")
        >>> data = ds.CSVDataset(str(path), column_defaults=[0, 0.0], shuffle=False)
        >>> data.get_col_names()
        ['x', 'y', 'name']
        >>> [(int(x), float(y), str(n)) for x, y, n in data.create_tuple_iterator(output_numpy=True)]
        [(1, 2.5, 'a'), (3, 4.0, 'b')]
    """

    def __init__(
        self,
        dataset_files: str | Sequence[str],
        field_delim: str = ",",
        column_defaults: list[int | float | str] | None = None,
        column_names: list[str] | None = None,
        num_samples: int | None = None,
        num_parallel_workers: int | None = None,
        shuffle: bool | Shuffle | None = Shuffle.GLOBAL,
        num_shards: int | None = None,
        shard_id: int | None = None,
        cache: Any = None,
    ) -> None:
        owner = "CSVDataset"
        if not isinstance(field_delim, str):
            raise TypeError(
                f"For '{owner}', the argument 'field_delim' must be a str, but got {field_delim!r} of type {type(field_delim).__name__!r}."
            )
        if len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(
                f"For '{owner}', the argument 'field_delim' must be one character other than '\"', '\\r' and '\\n', but got {field_delim!r}."
            )
        self._types = _check_defaults(column_defaults, owner)
        self._header: list[str] | None = None
        names: Any = column_names  # checked as any value, whatever the annotation says
        if names is not None:
            if not isinstance(names, list) or not all(
                isinstance(n, str) for n in names
            ):
                raise TypeError(
                    f"For '{owner}', the argument 'column_names' must be a list of str, but got {column_names!r}."
                )
            if len(set(names)) != len(names):
                raise RuntimeError(
                    f"For '{owner}', 'column_names' repeats a name, but duplicate column names are not allowed: {column_names!r}."
                )
        self._delim = field_delim
        self._given_names = column_names
        super().__init__(
            dataset_files,
            num_samples,
            num_parallel_workers,
            shuffle,
            num_shards,
            shard_id,
            cache,
        )
        self._column_names = self._known_names()
        if len(self._types) > len(self._column_names):
            raise ValueError(
                f"For '{owner}', 'column_defaults' gives {len(self._types)} types, but the files have "
                f"{len(self._column_names)} columns {self._column_names!r}."
            )
        self._types += [str] * (len(self._column_names) - len(self._types))

    def _file_rows(self, path: Path) -> list[Any]:
        # newline="": the csv module itself splits records (a quoted field may hold a line break).
        with path.open(newline="", encoding="utf-8") as file:
            records = [r for r in csv.reader(file, delimiter=self._delim) if r]
        if self._given_names is None:
            header = records.pop(0) if records else []
            if self._header is None:
                self._header = header
            elif header != self._header:
                raise RuntimeError(
                    f"For 'CSVDataset', every file's header must name the same columns, but {str(path)!r} "
                    f"has {header!r} and an earlier file {self._header!r}."
                )
        width = len(self._known_names())
        for line, record in enumerate(records, 1):
            if len(record) != width:
                raise RuntimeError(
                    f"For 'CSVDataset', record {line} of {str(path)!r} has {len(record)} fields, "
                    f"but there are {width} columns: {record!r}."
                )
        return [(path, r) for r in records]

    def _known_names(self) -> list[str]:
        """The column names given, else those of the headers read so far."""
        if self._given_names is not None:
            return self._given_names
        return self._header or []

    def _names(self) -> list[str]:
        return list(self._column_names)

    def _read(self, index: int) -> Row:
        path, record = self._lines[index]
        return tuple(
            _parse(field, kind, name, path)
            for field, kind, name in zip(
                record, self._types, self._column_names, strict=True
            )
        )


def _parse(field: str, kind: type, name: str, path: Path) -> Any:
    if kind is str:
        return np.array(field)
    try:
        return _PARSED[kind](kind(field))
    except (ValueError, OverflowError):
        raise RuntimeError(
            f"CSVDataset: the field {field!r} of column {name!r} in {str(path)!r} is not {_TYPE_WORDS[kind]}, "
            "the type its 'column_defaults' value gives (an empty field is not a number either)."
        ) from None
