"""`FileReader`: the rows of MindRecord files as dicts, as `mindspore.mindrecord.FileReader`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..validation import check_int
from ._files import MindRecordFiles, find_files
from ._schema import check_name_list

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

__all__ = ["FileReader"]

_MAX_CONSUMERS = 128


class FileReader:
    """Read the rows of a MindRecord dataset (written by MindSpore or by cadence) in stored order.

    Args:
        file_name: One data file (its dataset's other files are found through
            its header) or a list of data files (read in that order).
        num_consumer: Accepted for compatibility, an int in [1, 128]; rows are
            read by the calling thread.
        columns: The fields to read, in order; None for all.
        operator: Not supported (must be None).

    Raises:
        FileNotFoundError: If a file is missing.
        MindRecordError: If a header, page or `.db` index is damaged or missing
            (naming the file and what is wrong).
        ValueError: If a column is not in the schema.

    Example:
        See `FileWriter`.
    """

    def __init__(
        self,
        file_name: str | Path | list[str],
        num_consumer: int = 4,
        columns: list[str] | None = None,
        operator: Any = None,
    ) -> None:
        where = "FileReader"
        check_int(
            num_consumer, "num_consumer", where, minimum=1, maximum=_MAX_CONSUMERS
        )
        if operator is not None:
            raise NotImplementedError(
                f"For '{where}', the argument 'operator' is not supported; leave it at None."
            )
        self._files = MindRecordFiles(find_files(file_name, where))
        schema = self._files.schema
        self._columns = (
            schema.raw_fields + schema.blob_fields
            if columns is None
            else _columns(columns, schema.names, where)
        )

    def get_next(self) -> Iterator[dict[str, Any]]:
        """Yield each row as a dict: ints, floats, str and bytes as Python values, arrays as numpy arrays."""
        for row in range(len(self._files)):
            values = self._files.read(row, self._columns)
            yield {
                name: _python(values[name], self._files.schema.by_name[name].type)
                for name in self._columns
            }

    def schema(self) -> dict[str, Any]:
        """Return the schema, as given to `FileWriter.add_schema`."""
        return dict(self._files.schema.as_json()["schema"])

    def len(self) -> int:
        """Return the number of rows of all the files."""
        return len(self._files)

    def close(self) -> None:
        """Release the files."""
        self._files.close()


def _python(value: Any, kind: str) -> Any:
    if kind in ("float32", "float64") and isinstance(value, int):
        return float(value)
    return value


def _columns(value: Any, names: list[str], where: str) -> list[str]:
    columns = check_name_list(value, "columns", where)
    unknown = [c for c in columns if c not in names]
    if unknown:
        raise ValueError(
            f"For '{where}', the columns {unknown!r} are not in the schema, whose fields are {names!r}."
        )
    return columns
